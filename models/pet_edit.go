package models

import (
	"context"
	"slices"
	"strconv"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Match is a condition on a pet as it is inside the transaction that would change it (an
// If-Match header): when it does not hold, nothing changes and the answer is precondition_failed.
// Nil always holds.
type Match func(*Pet) bool

func (m Match) check(p *Pet) error {
	if m == nil || m(p) {
		return nil
	}
	return &Error{Code: EPrecondition, Field: "If-Match",
		Message: "If-Match: pet " + strconv.FormatInt(p.ID, 10) + " has changed since that ETag was given, or it is not one of its ETags; read it again for the current ETag"}
}

// Patch changes the fields pp gives, in one transaction that locks the pet (see PetPatch). A
// field given the value it has changes nothing; a status change is recorded in the pet's history
// under actor.
func (s *PetStore) Patch(ctx context.Context, id int64, pp PetPatch, actor string, match Match) (*Pet, error) {
	return s.patch(ctx, id, pp, false, actor, match)
}

// Update saves the admin pages' edit form: the patch's rules, with name and category required
// (the form always sends them; an empty description or no tags clear them). The status is not
// the form's: the pet's page sets it (SetStatus).
func (s *PetStore) Update(ctx context.Context, id int64, pp PetPatch, actor string) (*Pet, error) {
	return s.patch(ctx, id, pp, true, actor, nil)
}

// SetStatus sets a pet's status by hand, as staff do. Setting the status the pet already has
// changes and records nothing. A pet held by an order (live, or delivered) is refused with a
// conflict (see setByHand).
func (s *PetStore) SetStatus(ctx context.Context, id int64, to PetStatus, actor string) (*Pet, error) {
	return s.patch(ctx, id, PetPatch{Status: (*string)(&to)}, false, actor, nil)
}

func (s *PetStore) patch(ctx context.Context, id int64, pp PetPatch, required bool, actor string, match Match) (*Pet, error) {
	want, err := petFields(pp, required)
	if err != nil {
		return nil, err
	}
	var pet *Pet
	err = s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		p, err := lockPet(tx, id)
		if err != nil {
			return err
		}
		pet = p
		if err := match.check(p); err != nil {
			return err
		}
		was := *p
		before := p.auditFields()
		now := tx.NowFunc()
		fields := map[string]any{}
		if pp.Name != nil && want.Name != p.Name {
			p.Name, fields["name"] = want.Name, want.Name
		}
		if pp.CategoryID != nil && want.CategoryID != p.CategoryID {
			p.CategoryID, fields["category_id"] = want.CategoryID, want.CategoryID
		}
		if pp.Description != nil && want.Description != p.Description {
			p.Description, fields["description"] = want.Description, want.Description
		}
		if pp.Tags != nil && !slices.Equal(want.Tags, p.Tags) {
			p.Tags, fields["tags"] = want.Tags, want.Tags
		}
		if len(fields) > 0 {
			p.UpdatedAt, fields["updated_at"] = now, now
			if err := tx.Model(&Pet{ID: id}).Updates(fields).Error; err != nil {
				return err
			}
			// The status, when it changes too, is recorded on its own (record, as set_status).
			after := p.auditFields()
			after["status"] = before["status"]
			if err := recordChange(tx, Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: AuditUpdate, Before: before, After: after}); err != nil {
				return err
			}
		}
		if pp.Status == nil || want.Status == p.Status {
			return recordPetUpdated(tx, &was, p)
		}
		var holders []Order
		err = tx.Where("pet_id = ? AND status IN ?", id, ordersThatHoldAPet).Order("id DESC").Limit(1).Find(&holders).Error
		if err != nil {
			return err
		}
		var holder *Order
		if len(holders) > 0 {
			holder = &holders[0]
		}
		change, err := setByHand(p, want.Status, holder, actor, now)
		if err != nil {
			return err
		}
		if err := record(tx, p, &change); err != nil {
			return err
		}
		return recordPetUpdated(tx, &was, p)
	})
	if err != nil {
		return nil, categoryError(err, want.CategoryID)
	}
	return pet, nil
}

// recordPetUpdated records pet.updated when the pet changed from was to p; one event for every
// field a change touched.
func recordPetUpdated(tx *gorm.DB, was, p *Pet) error {
	if was.UpdatedAt.Equal(p.UpdatedAt) {
		return nil
	}
	return publishPetEvent(tx, EventPetUpdated, was, p)
}

// Delete takes a pet out of the catalogue, in one transaction that locks it: it leaves every
// answer of the API, while its orders and history stay and staff can restore it. A pet that a
// live order holds is refused with a conflict; match as for Patch. The deletion is recorded in
// the pet's history under actor.
func (s *PetStore) Delete(ctx context.Context, id int64, actor string, match Match) error {
	err := s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		p, err := lockPet(tx, id)
		if err != nil {
			return err
		}
		if err := match.check(p); err != nil {
			return err
		}
		var live []Order
		if err := tx.Where("pet_id = ? AND status IN ?", id, LiveOrderStatuses).Limit(1).Find(&live).Error; err != nil {
			return err
		}
		if len(live) > 0 {
			return &Error{Code: EConflict, Field: "petId", Message: "pet " + strconv.FormatInt(id, 10) + " is held by order " +
				strconv.FormatInt(live[0].ID, 10) + " (" + string(live[0].Status) + "); cancel or deliver that order before deleting the pet"}
		}
		return markDeleted(tx, p, true, ActionDelete, actor, tx.NowFunc())
	})
	return storeError(err, "")
}

// Restore puts a deleted pet back in the catalogue as it was, recorded in its history under
// actor. Restoring a pet that is not deleted changes nothing.
func (s *PetStore) Restore(ctx context.Context, id int64, actor string) (*Pet, error) {
	var p Pet
	err := s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		if err := withPhotos(tx.Unscoped().Clauses(forUpdate)).Take(&p, id).Error; err != nil {
			return storeError(err, petNotFound(id))
		}
		setMediaBase(tx.Statement.Context, &p)
		if !p.DeletedAt.Valid {
			return nil
		}
		return markDeleted(tx, &p, false, ActionRestore, actor, tx.NowFunc())
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return &p, nil
}

// markDeleted deletes or restores p and records it in p's history and in the audit log.
func markDeleted(tx *gorm.DB, p *Pet, deleted bool, a Action, actor string, at time.Time) error {
	was := *p
	p.DeletedAt = gorm.DeletedAt{Time: at, Valid: deleted}
	p.UpdatedAt = at
	err := tx.Unscoped().Model(&Pet{ID: p.ID}).Updates(map[string]any{"deleted_at": p.DeletedAt, "updated_at": at}).Error
	if err != nil {
		return err
	}
	c := Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: AuditDelete, Before: p.auditFields()}
	if !deleted {
		c.Action, c.Before, c.After = AuditRestore, nil, p.auditFields()
	}
	if err := recordChange(tx, c); err != nil {
		return err
	}
	change := StatusChange{PetID: p.ID, Action: a, PetFrom: p.Status, PetTo: p.Status, Actor: actor, CreatedAt: at}
	if err := tx.Omit(clause.Associations).Create(&change).Error; err != nil {
		return err
	}
	// A deleted pet's event carries it as it was deleted; a restored one is an update (of the
	// pet as clients see it, it changed only its time).
	if !deleted {
		return publishPetEvent(tx, EventPetUpdated, &was, p)
	}
	return publishPetEvent(tx, EventPetDeleted, nil, p)
}

// CountByStatus counts the pets of each status that are not deleted, the inventory, and says how
// long ago they were counted (up to KeepCounts' age; the map is shared: read it only). It may
// read a replica (MayReadReplica).
func (s *PetStore) CountByStatus(ctx context.Context) (map[PetStatus]int64, time.Duration, error) {
	return s.inventory.get(ctx, s.countsMaxAge, s.now, s.countByStatus)
}

func (s *PetStore) countByStatus(ctx context.Context) (map[PetStatus]int64, error) {
	var rows []struct {
		Status PetStatus
		N      int64
	}
	err := laggingRead(ctx, s.db).WithContext(ctx).Model(&Pet{}).Select("status, COUNT(*) AS n").Group("status").Scan(&rows).Error
	if err != nil {
		return nil, storeError(err, "")
	}
	out := make(map[PetStatus]int64, len(PetStatuses))
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}

// StatusTotals counts the pets of each status that are not deleted, as the admin dashboard shows
// them: by countGroups' rule, exact in a small catalogue and estimated in a large one (exact
// false), at the same cost at any size. (CountByStatus counts exactly, for the API's inventory.)
func (s *PetStore) StatusTotals(ctx context.Context) (counts map[PetStatus]int64, exact bool, err error) {
	groups, exact, err := countGroups(ctx, laggingRead(ctx, s.db), "pets", "status", []string{"deleted_at IS NULL"}, nil)
	counts = make(map[PetStatus]int64, len(groups))
	for k, n := range groups {
		counts[PetStatus(k)] = n
	}
	return counts, exact, err
}

// CategoryTotals counts the pets of each category that are not deleted, for the admin's
// category list, by countGroups' rule.
func (s *PetStore) CategoryTotals(ctx context.Context) (counts map[int64]int64, exact bool, err error) {
	groups, exact, err := countGroups(ctx, s.db, "pets", "category_id", []string{"deleted_at IS NULL"}, nil)
	counts = make(map[int64]int64, len(groups))
	for k, n := range groups {
		if id, perr := strconv.ParseInt(k, 10, 64); perr == nil {
			counts[id] = n
		}
	}
	return counts, exact, err
}

// Names returns the names of the pets with these ids, deleted ones too, for tables that show
// other records' pets (orders); an id without a pet is absent.
func (s *PetStore) Names(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   int64
		Name string
	}
	if err := s.db.WithContext(ctx).Unscoped().Model(&Pet{}).Select("id, name").Where("id IN ?", ids).Scan(&rows).Error; err != nil {
		return nil, storeError(err, "")
	}
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

package models

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// PetStatus is a pet's availability. The name after @name is its schema in the API document.
type PetStatus string //	@name	PetStatus

// The pet statuses of the spec.
const (
	PetAvailable PetStatus = "available"
	PetPending   PetStatus = "pending"
	PetSold      PetStatus = "sold"
)

// PetStatuses lists every status, in lifecycle order.
var PetStatuses = []PetStatus{PetAvailable, PetPending, PetSold}

// ParsePetStatus checks a status given by a user; field names the parameter in the message.
func ParsePetStatus(field, s string) (PetStatus, error) {
	for _, st := range PetStatuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", &Error{Code: EValidation, Field: field,
		Message: field + ": must be one of available, pending, sold; got " + strconv.Quote(s)}
}

// Pet is an animal of the catalogue, as stored. A deleted pet keeps its row (DeletedAt set), so
// its orders and history stay and staff can restore it; GORM's queries leave it out unless
// Unscoped.
//
// The API's lists of the live pets of a status or a category read a partial index of the live
// pets in order, which PostgreSQL picks even before it has statistics of the table (right after a
// bulk load): with none it takes `deleted_at IS NULL` for one row in two hundred, and with a full
// index it read every pet of the status and sorted them. These indexes also require what their
// lists' condition implies (status IS NOT NULL; the columns are NOT NULL, so they hold the same
// rows): a list without that condition, which sorts by another column, cannot take one for a
// cheap set of live pets to sort, which without statistics it would. Without statistics the lists
// of every live pet still sort them, whatever the indexes: the planner's statistics are gathered
// after a seed and by migrate (see analyzeUnknown).
//
// The live pets sorted by id, by name or by the time of their last change read a partial index
// of the live pets too: a page jump passes over its rows in the index alone (an index-only scan,
// once vacuum has marked the table's pages all-visible), where a full index (the primary key's
// included) makes it read each skipped pet's row to test deleted_at.
type Pet struct {
	ID         int64     `gorm:"primaryKey;index:idx_pets_status_id,priority:2;index:idx_pets_live_status_id,priority:2,where:deleted_at IS NULL AND status IS NOT NULL;index:idx_pets_live_category_id,priority:2,where:deleted_at IS NULL AND category_id IS NOT NULL;index:idx_pets_deleted_id,where:deleted_at IS NOT NULL;index:idx_pets_live_id,where:deleted_at IS NULL;index:idx_pets_live_name_id,priority:2,where:deleted_at IS NULL;index:idx_pets_live_updated_at_id,priority:2,where:deleted_at IS NULL;index:idx_pets_deleted_name_id,priority:2,where:deleted_at IS NOT NULL;index:idx_pets_deleted_status_id,priority:2,where:deleted_at IS NOT NULL;index:idx_pets_deleted_updated_at_id,priority:2,where:deleted_at IS NOT NULL"`
	Name       string    `gorm:"size:400;not null;index:idx_pets_live_name_id,priority:1,where:deleted_at IS NULL;index:idx_pets_deleted_name_id,priority:1,where:deleted_at IS NOT NULL"`
	CategoryID int64     `gorm:"not null;index:idx_pets_live_category_id,priority:1,where:deleted_at IS NULL AND category_id IS NOT NULL"`
	Category   *Category `gorm:"constraint:OnUpdate:CASCADE,OnDelete:RESTRICT"`
	Status     PetStatus `gorm:"size:16;not null;index:idx_pets_status_id,priority:1;index:idx_pets_live_status_id,priority:1,where:deleted_at IS NULL AND status IS NOT NULL;index:idx_pets_deleted_status_id,priority:1,where:deleted_at IS NOT NULL"`
	// Description and Tags are "" and none when not given (release 1.2.0 added them); the word
	// search's and the tag filter's indexes are made by searchIndexes.
	Description string `gorm:"type:text;not null;default:''"`
	Tags        Tags   `gorm:"type:text;not null;default:''"`
	CreatedAt   time.Time
	UpdatedAt   time.Time `gorm:"index:idx_pets_live_updated_at_id,priority:1,where:deleted_at IS NULL;index:idx_pets_deleted_updated_at_id,priority:1,where:deleted_at IS NOT NULL"`
	DeletedAt   gorm.DeletedAt
	// Photos are read with the pet, in the same statement (withPhotos), in display order; they
	// are no column of the table.
	Photos Photos `gorm:"->;-:migration;type:text"`
}

// auditFields are what the audit log keeps of a pet.
func (p *Pet) auditFields() Fields {
	return Fields{"name": p.Name, "categoryId": p.CategoryID, "status": p.Status,
		"description": p.Description, "tags": p.Tags.List()}
}

// NewPet is what a user gives to add a pet. Nil means the field was not given.
type NewPet struct {
	Name        *string
	CategoryID  *int64
	Status      *string
	Description *string
	Tags        *[]string
}

// Validate checks every field and returns the pet to store, with the name trimmed and the
// status defaulted to available. The category's existence is checked by the store.
func (n NewPet) Validate() (Pet, error) {
	p, err := petFields(PetPatch(n), true)
	if n.Status == nil {
		p.Status = PetAvailable
	}
	return p, err
}

// PetPatch changes some of a pet's fields (a JSON Merge Patch of them): nil leaves a field as it
// is. Each given field follows the rules of creation; a status follows the rule of a status set
// by hand (see setByHand). An empty Description or Tags clears them (what null does in the API's
// merge patch).
type PetPatch struct {
	Name        *string
	CategoryID  *int64
	Status      *string
	Description *string
	Tags        *[]string
}

// petFields checks the fields given, with the rules every way of adding or changing a pet
// shares, and returns them in a Pet (zero where not given). With required, name and category
// must be given.
func petFields(in PetPatch, required bool) (Pet, error) {
	var p Pet
	var errs fieldErrors
	name, categoryID, status := in.Name, in.CategoryID, in.Status
	switch {
	case name != nil:
		n, err := validName("name", *name)
		errs.add(err)
		p.Name = n
	case required:
		errs.add(FieldError("name", "is required"))
	}
	switch {
	case categoryID != nil && *categoryID < 1:
		errs.add(FieldError("categoryId", "must be a positive integer"))
	case categoryID != nil:
		p.CategoryID = *categoryID
	case required:
		errs.add(FieldError("categoryId", "is required"))
	}
	if status != nil {
		st, err := ParsePetStatus("status", *status)
		if err != nil {
			errs.add(err.(*Error))
		}
		p.Status = st
	}
	if in.Description != nil {
		d, err := validPetDescription("description", *in.Description)
		errs.add(err)
		p.Description = d
	}
	if in.Tags != nil {
		t, err := validTags("tags", *in.Tags)
		errs.add(err)
		p.Tags = t
	}
	return p, errs.err()
}

// categoryError reports a write that named a category that does not exist (the foreign key
// refused it) as the validation error it is.
func categoryError(err error, categoryID int64) error {
	if errors.Is(err, gorm.ErrForeignKeyViolated) {
		return FieldError("categoryId", "no category with id %d", categoryID)
	}
	return storeError(err, "")
}

// PetFilter narrows a list of pets. Zero values do not filter.
type PetFilter struct {
	Status     PetStatus
	CategoryID int64
	// IDs keeps only the pets with these ids.
	IDs []int64
	// NameContains matches names case-insensitively (ASCII), for the admin pages' search.
	NameContains string
	// Search is the admin pages' search box: a number (42 or #42) finds the pet with that id,
	// anything else is a word search, as Words.
	Search string
	// Deleted lists the deleted pets instead of the others (staff only).
	Deleted bool
	// Tags keeps the pets that carry every one of these tags.
	Tags []string
	// Words keeps the pets whose name, description and tags hold every word (see Search).
	Words Search
}

// pets lists the pets table. Besides id, a page may be sorted by name, status or the time of the
// last change, each through an index on (column, id), and a partial one of the deleted pets
// (without it SQLite would read the whole catalogue's index looking for the few deleted ones).
var pets = keyset[Pet]{
	table: "pets",
	sortKeys: map[string]sortKey[Pet]{
		"name":    textKey("name", func(p *Pet) string { return p.Name }),
		"status":  textKey("status", func(p *Pet) string { return string(p.Status) }),
		"updated": timeKey("updated_at", false, func(p *Pet) *time.Time { return &p.UpdatedAt }),
	},
	id:    func(p *Pet) int64 { return p.ID },
	scope: withPhotos,
}

// PetStore reads and changes pets.
type PetStore struct {
	db *gorm.DB
	// countsMaxAge is how long the tags in use and the inventory are kept by now's clock (see
	// counted).
	countsMaxAge time.Duration
	now          func() time.Time
	tags         counted[[]TagCount]
	inventory    counted[map[PetStatus]int64]
	suggestions  counted[[]string]
}

// NewPetStore returns a store on db that counts tags and the inventory on each call.
func NewPetStore(db *gorm.DB) *PetStore { return &PetStore{db: db, now: time.Now} }

// KeepCounts makes s keep the tags in use, the inventory and the admin's tag suggestions it
// counted for up to maxAge by now's clock (0: count on each call), and returns s.
func (s *PetStore) KeepCounts(maxAge time.Duration, now func() time.Time) *PetStore {
	s.countsMaxAge, s.now = maxAge, now
	return s
}

// List returns one page of the pets that match f; it may read a replica (MayReadReplica).
func (s *PetStore) List(ctx context.Context, f PetFilter, page Page) (Paged[Pet], error) {
	where, args := make([]string, 1, 6), make([]any, 0, 6)
	where[0] = "deleted_at IS NULL"
	if f.Deleted {
		where[0] = "deleted_at IS NOT NULL"
	}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.CategoryID != 0 {
		where = append(where, "category_id = ?")
		args = append(args, f.CategoryID)
	}
	if len(f.IDs) > 0 {
		where = append(where, "id IN ?")
		args = append(args, f.IDs)
	}
	if f.NameContains != "" {
		where = append(where, "LOWER(name) LIKE ? ESCAPE '\\'")
		args = append(args, nameLike(f.NameContains))
	}
	// A number is an id alone: with "or a name containing it", no index could answer.
	if id, ok := searchedID(f.Search); ok {
		where, args = append(where, "id = ?"), append(args, id)
	} else if f.Search != "" {
		words, err := ParseSearch("q", f.Search)
		if err != nil {
			return Paged[Pet]{}, err
		}
		f.Words.Words = append(f.Words.Words, words.Words...)
	}
	db := laggingRead(ctx, s.db)
	where, args = tagsCondition(db, f.Tags, where, args)
	list, err := searchList(ctx, db, f.Words, where, args, page)
	if err != nil {
		return list, err
	}
	for i := range list.Items {
		setMediaBase(ctx, &list.Items[i])
	}
	return list, nil
}

// Get returns one pet that is not deleted; it may read a replica (MayReadReplica).
func (s *PetStore) Get(ctx context.Context, id int64) (*Pet, error) {
	var p Pet
	err := withPhotos(laggingRead(ctx, s.db).WithContext(ctx)).Take(&p, id).Error
	setMediaBase(ctx, &p)
	return &p, storeError(err, petNotFound(id))
}

// GetAny returns one pet, deleted or not (for staff).
func (s *PetStore) GetAny(ctx context.Context, id int64) (*Pet, error) {
	var p Pet
	err := withPhotos(s.db.WithContext(ctx).Unscoped()).Take(&p, id).Error
	setMediaBase(ctx, &p)
	return &p, storeError(err, petNotFound(id))
}

func petNotFound(id int64) string { return "pet " + strconv.FormatInt(id, 10) + " not found" }

// Create validates and stores a new pet, with its audit entry and its pet.created event, in
// one transaction; then, when given, runs in it too. A category that does not exist is a
// validation error.
func (s *PetStore) Create(ctx context.Context, n NewPet, then Then[Pet]) (*Pet, error) {
	p, err := n.Validate()
	if err != nil {
		return nil, err
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := createPet(tx, &p); err != nil {
			return err
		}
		if err := recordChange(tx, Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: AuditCreate, After: p.auditFields()}); err != nil {
			return err
		}
		if err := publishPetEvent(tx, EventPetCreated, nil, &p); err != nil {
			return err
		}
		return then.run(tx, &p)
	})
	if err != nil {
		return nil, categoryError(err, p.CategoryID)
	}
	return &p, nil
}

// createPet inserts p and fills in its id and times.
func createPet(tx *gorm.DB, p *Pet) error {
	return tx.Omit(clause.Associations).Create(p).Error
}

// nameLike is the LIKE pattern of names that contain s, case-insensitively (ASCII).
func nameLike(s string) string { return "%" + escapeLike(strings.ToLower(s)) + "%" }

// searchedID reads a search for an id: digits, after an optional #.
func searchedID(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	return id, err == nil && id > 0 && !strings.ContainsAny(s, "+-")
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

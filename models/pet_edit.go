package models

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// PetEdit is what staff change about a pet in the admin pages. Its status is not here: status
// changes go through SetStatus, which records them.
type PetEdit struct {
	Name       string
	CategoryID *int64
}

// Update changes a pet's name and category with the rules of creation.
func (s *PetStore) Update(ctx context.Context, id int64, e PetEdit) (*Pet, error) {
	var errs fieldErrors
	name, nerr := validName("name", e.Name)
	errs.add(nerr)
	switch {
	case e.CategoryID == nil:
		errs.add(FieldError("categoryId", "is required"))
	case *e.CategoryID < 1:
		errs.add(FieldError("categoryId", "must be a positive integer"))
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		p, err := lockPet(tx, id)
		if err != nil {
			return err
		}
		before := p.auditFields()
		p.Name, p.CategoryID = name, *e.CategoryID
		if err := tx.Model(p).Omit("Category").Updates(map[string]any{"name": p.Name, "category_id": p.CategoryID}).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: AuditUpdate, Before: before, After: p.auditFields()})
	})
	if errors.Is(err, gorm.ErrForeignKeyViolated) {
		return nil, FieldError("categoryId", "no category with id %d", *e.CategoryID)
	}
	if err != nil {
		return nil, storeError(err, "")
	}
	return s.Get(ctx, id)
}

// CountByStatus counts the pets of each status, for the admin dashboard.
func (s *PetStore) CountByStatus(ctx context.Context) (map[PetStatus]int64, error) {
	var rows []struct {
		Status PetStatus
		N      int64
	}
	err := s.db.WithContext(ctx).Model(&Pet{}).Select("status, COUNT(*) AS n").Group("status").Scan(&rows).Error
	if err != nil {
		return nil, storeError(err, "")
	}
	out := make(map[PetStatus]int64, len(PetStatuses))
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}

// CountByCategory counts the pets of each category, for the admin's category list.
func (s *PetStore) CountByCategory(ctx context.Context) (map[int64]int64, error) {
	var rows []struct {
		CategoryID int64
		N          int64
	}
	err := s.db.WithContext(ctx).Model(&Pet{}).Select("category_id, COUNT(*) AS n").Group("category_id").Scan(&rows).Error
	if err != nil {
		return nil, storeError(err, "")
	}
	out := make(map[int64]int64, len(rows))
	for _, r := range rows {
		out[r.CategoryID] = r.N
	}
	return out, nil
}

// Names returns the names of the pets with these ids, for tables that show other records'
// pets (orders); an id without a pet is absent.
func (s *PetStore) Names(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   int64
		Name string
	}
	if err := s.db.WithContext(ctx).Model(&Pet{}).Select("id, name").Where("id IN ?", ids).Scan(&rows).Error; err != nil {
		return nil, storeError(err, "")
	}
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

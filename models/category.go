package models

import (
	"context"
	"errors"
	"strconv"
	"time"

	"gorm.io/gorm"
)

// Category groups pets. Names are unique.
type Category struct {
	ID        int64  `gorm:"primaryKey"`
	Name      string `gorm:"size:400;not null;uniqueIndex"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MaxCategories bounds the categories: listCategories answers them all in one page, and the
// document states the bound as its maxItems.
const MaxCategories = 1000

// categoryLockClass keys, with a hash of the schema's name (as the migration's lock), the
// PostgreSQL advisory lock that keeps two creations from both taking the last place (SQLite's
// immediate transactions already run one at a time).
const categoryLockClass = 731_606

// errTooManyCategories refuses a category past MaxCategories, as an 11th webhook endpoint is.
var errTooManyCategories = &Error{Code: EValidation, Field: "name", Message: "name: there are already " +
	thousands(MaxCategories) + " categories, as many as there can be; rename one instead of adding another"}

// SeedCategories are the categories a new database starts with.
var SeedCategories = []string{"Dogs", "Cats", "Birds", "Fish", "Reptiles", "Small animals"}

// CategoryStore reads and changes categories.
type CategoryStore struct{ db *gorm.DB }

// NewCategoryStore returns a store on db.
func NewCategoryStore(db *gorm.DB) *CategoryStore { return &CategoryStore{db: db} }

// List returns every category in id order; the set is small and managed by staff. It may read a
// replica (MayReadReplica).
func (s *CategoryStore) List(ctx context.Context) ([]Category, error) {
	var cats []Category
	err := laggingRead(ctx, s.db).WithContext(ctx).Order("id").Find(&cats).Error
	return cats, storeError(err, "")
}

// Get returns one category.
func (s *CategoryStore) Get(ctx context.Context, id int64) (*Category, error) {
	var c Category
	err := s.db.WithContext(ctx).Take(&c, id).Error
	return &c, storeError(err, "category not found")
}

// Create adds a category; a name already taken is a conflict, and one past MaxCategories is
// refused.
func (s *CategoryStore) Create(ctx context.Context, name string) (*Category, error) {
	name, verr := validName("name", name)
	if verr != nil {
		return nil, verr
	}
	c := Category{Name: name}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if tx.Dialector.Name() == "postgres" {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))", categoryLockClass).Error; err != nil {
				return err
			}
		}
		var n int64
		if err := tx.Model(&Category{}).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxCategories {
			return errTooManyCategories
		}
		if err := tx.Create(&c).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectCategory, ID: c.ID, Name: c.Name, Action: AuditCreate, After: Fields{"name": c.Name}})
	})
	return &c, categoryWriteError(err, name)
}

// Rename changes a category's name.
func (s *CategoryStore) Rename(ctx context.Context, id int64, name string) (*Category, error) {
	name, verr := validName("name", name)
	if verr != nil {
		return nil, verr
	}
	var c Category
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(forUpdate).Take(&c, id).Error; err != nil {
			return storeError(err, "category not found")
		}
		before := Fields{"name": c.Name}
		c.Name = name
		if err := tx.Model(&c).Update("name", name).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectCategory, ID: c.ID, Name: c.Name, Action: AuditUpdate, Before: before, After: Fields{"name": c.Name}})
	})
	if err != nil {
		return nil, categoryWriteError(err, name)
	}
	return &c, nil
}

func categoryWriteError(err error, name string) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return &Error{Code: EConflict, Field: "name", Message: "name: a category named " + strconv.Quote(name) + " already exists"}
	}
	return storeError(err, "")
}

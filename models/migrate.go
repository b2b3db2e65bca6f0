package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// tables lists every model the schema holds, in dependency order.
var tables = []any{&Category{}, &Pet{}, &APIKey{},
	&Order{}, &StatusChange{}, &IdempotencyRecord{},
	&Staff{},
	&AuditEntry{},
}

// migrationLockID keys the PostgreSQL advisory lock that keeps two instances starting at once
// from migrating the same schema concurrently.
const migrationLockID = 7_316_040_812

// Migrate creates or upgrades the schema and seeds the categories of a new database. It is
// idempotent: running it again changes nothing.
func Migrate(ctx context.Context, db *gorm.DB) error {
	db = db.WithContext(ctx)
	if db.Dialector.Name() != "postgres" {
		return migrate(db)
	}
	return db.Connection(func(conn *gorm.DB) error {
		if err := conn.Exec("SELECT pg_advisory_lock(?)", migrationLockID).Error; err != nil {
			return storeError(err, "")
		}
		defer conn.Exec("SELECT pg_advisory_unlock(?)", migrationLockID)
		return migrate(conn)
	})
}

func migrate(db *gorm.DB) error {
	if err := db.AutoMigrate(tables...); err != nil {
		return fmt.Errorf("migrate schema: %w", storeError(err, ""))
	}
	var n int64
	if err := db.Model(&Category{}).Count(&n).Error; err != nil {
		return storeError(err, "")
	}
	if n > 0 {
		return nil
	}
	cats := make([]Category, len(SeedCategories))
	for i, name := range SeedCategories {
		cats[i].Name = name
	}
	return storeError(db.Create(&cats).Error, "")
}

package models

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river/riverdriver"

	"gorm.io/gorm"
)

// tables lists every model the schema holds, in dependency order.
var tables = []any{&Category{}, &Pet{}, &Client{}, &APIKey{},
	&Order{}, &StatusChange{}, &IdempotencyRecord{},
	&Staff{},
	&AuditEntry{},
	&Event{}, &WebhookEndpoint{}, &DeliveryAttempt{},
}

// migrationLockClass keys, with a hash of the schema's name, the PostgreSQL advisory lock that
// keeps two instances starting at once from migrating the same schema concurrently; services on
// other schemas of the same database (tests run in parallel that way) do not wait for each other.
const migrationLockClass = 731_604

// Migrate creates or upgrades the schema and seeds the categories of a new database. It is
// idempotent: running it again changes nothing.
func Migrate(ctx context.Context, db *gorm.DB) error {
	db = db.WithContext(ctx)
	queue, err := QueueDriver(db)
	if err != nil {
		return err
	}
	if db.Dialector.Name() != "postgres" {
		return migrate(db, queue)
	}
	return db.Connection(func(conn *gorm.DB) error {
		if err := conn.Exec("SELECT pg_advisory_lock(?, hashtext(current_schema()))", migrationLockClass).Error; err != nil {
			return storeError(err, "")
		}
		defer conn.Exec("SELECT pg_advisory_unlock(?, hashtext(current_schema()))", migrationLockClass)
		return migrate(conn, queue)
	})
}

func migrate(db *gorm.DB, queue riverdriver.Driver[*sql.Tx]) error {
	if err := db.AutoMigrate(tables...); err != nil {
		return fmt.Errorf("migrate schema: %w", storeError(err, ""))
	}
	if err := migrateQueue(db.Statement.Context, queue); err != nil {
		return fmt.Errorf("migrate the job queue: %w", storeError(err, ""))
	}
	if err := giveKeysClients(db); err != nil {
		return fmt.Errorf("migrate API keys to clients: %w", storeError(err, ""))
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

// giveKeysClients upgrades the keys issued before clients and scopes existed (release 1.0.0):
// each gets a client of its own, named after it, and every scope; the orders it placed through
// the API (its id is the actor of their history's place) move to that client, so the key still
// sees them. One transaction, so an interrupted upgrade is done again whole; it finds nothing to
// do once done.
func giveKeysClients(db *gorm.DB) error {
	var old []struct {
		ID        int64
		Name      string
		CreatedAt time.Time
	}
	if err := db.Raw("SELECT id, name, created_at FROM api_keys WHERE client_id IS NULL ORDER BY id").Scan(&old).Error; err != nil {
		return err
	}
	if len(old) == 0 {
		return nil
	}
	return db.Transaction(func(tx *gorm.DB) error {
		for _, k := range old {
			c := Client{Name: k.Name, CreatedAt: k.CreatedAt}
			if err := tx.Create(&c).Error; err != nil {
				return err
			}
			err := tx.Exec("UPDATE api_keys SET client_id = ?, scopes = ? WHERE id = ? AND client_id IS NULL", c.ID, AllScopes, k.ID).Error
			if err != nil {
				return err
			}
			err = tx.Exec(`UPDATE orders SET client_id = ? WHERE client_id IS NULL AND id IN
				(SELECT order_id FROM status_changes WHERE action = ? AND actor = ? AND order_id IS NOT NULL)`,
				c.ID, ActionPlace, APIKeyActor(k.ID)).Error
			if err != nil {
				return err
			}
		}
		return nil
	})
}

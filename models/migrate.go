package models

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver"

	"gorm.io/gorm"
)

// tables lists every model the schema holds, in dependency order.
var tables = []any{&Category{}, &Pet{}, &Client{}, &APIKey{},
	&Order{}, &StatusChange{}, &IdempotencyRecord{},
	&Staff{},
	&AuditEntry{},
	&Event{}, &WebhookEndpoint{}, &DeliveryAttempt{}, &Photo{},
}

// migrationLockClass keys, with a hash of the schema's name, the PostgreSQL advisory lock that
// keeps two instances starting at once from migrating the same schema concurrently; services on
// other schemas of the same database (tests run in parallel that way) do not wait for each other.
const migrationLockClass = 731_604

// Migration says what Migrate did; all zero when the schema was up to date.
type Migration struct {
	// Created is set when the database held none of the service's tables: the schema was made.
	Created bool
	// Tables, Columns (as table.column) and Indexes were added to an existing schema.
	Tables, Columns, Indexes []string
	// DroppedIndexes are indexes of an earlier release that the added ones replace.
	DroppedIndexes []string
	// Analyzed are the tables whose planner statistics were gathered, as they had none.
	Analyzed []string
	// QueueVersions are the job queue's migrations applied.
	QueueVersions int
	// KeysGivenClients counts the keys of release 1.0.0 that got a client of their own.
	KeysGivenClients int
	// Categories are the categories a new database starts with.
	Categories []string
}

// Migrate creates or upgrades the schema and seeds the categories of a new database. It is
// idempotent: running it again changes nothing.
func Migrate(ctx context.Context, db *gorm.DB) error {
	_, err := MigrateReport(ctx, db)
	return err
}

// MigrateReport is Migrate, and says what it did.
func MigrateReport(ctx context.Context, db *gorm.DB) (Migration, error) {
	var m Migration
	db = db.WithContext(ctx)
	queue, err := QueueDriver(db)
	if err != nil {
		return m, err
	}
	if db.Dialector.Name() != "postgres" {
		return m, migrate(db, queue, &m)
	}
	return m, db.Connection(func(conn *gorm.DB) error {
		if err := conn.Exec("SELECT pg_advisory_lock(?, hashtext(current_schema()))", migrationLockClass).Error; err != nil {
			return storeError(err, "")
		}
		defer conn.Exec("SELECT pg_advisory_unlock(?, hashtext(current_schema()))", migrationLockClass)
		// Building an index on a large table, or analyzing it, takes longer than the statement
		// timeout the service's queries have (PETSTORE_DB_TIMEOUT): lifted on this connection alone
		// while it migrates.
		if err := conn.Exec("SET statement_timeout = 0").Error; err != nil {
			return storeError(err, "")
		}
		defer conn.Exec("RESET statement_timeout")
		// Each step's statements start afresh on this connection: on conn itself, one step's
		// Scan would leave its destination as the next step's model.
		return migrate(conn.Session(&gorm.Session{NewDB: true}), queue, &m)
	})
}

func migrate(db *gorm.DB, queue riverdriver.Driver[*sql.Tx], m *Migration) error {
	if err := m.missing(db); err != nil {
		return fmt.Errorf("read the schema: %w", storeError(err, ""))
	}
	if err := db.AutoMigrate(tables...); err != nil {
		return fmt.Errorf("migrate schema: %w", storeError(err, ""))
	}
	if err := m.dropRetired(db); err != nil {
		return fmt.Errorf("drop replaced indexes: %w", storeError(err, ""))
	}
	versions, err := migrateQueue(db.Statement.Context, queue)
	if err != nil {
		return fmt.Errorf("migrate the job queue: %w", storeError(err, ""))
	}
	m.QueueVersions = versions
	if err := adminIndexes(db, m); err != nil {
		return fmt.Errorf("add the admin dashboard's indexes: %w", storeError(err, ""))
	}
	if err := searchIndexes(db, m); err != nil {
		return fmt.Errorf("add the word search's and the tag filter's indexes: %w", storeError(err, ""))
	}
	if m.KeysGivenClients, err = giveKeysClients(db); err != nil {
		return fmt.Errorf("migrate API keys to clients: %w", storeError(err, ""))
	}
	if m.Analyzed, err = analyzeUnknown(db); err != nil {
		return fmt.Errorf("gather the planner's statistics: %w", storeError(err, ""))
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
	if err := db.Create(&cats).Error; err != nil {
		return storeError(err, "")
	}
	m.Categories = SeedCategories
	return nil
}

// retiredIndexes are the indexes of earlier releases that later ones replaced: the partial
// indexes of the live pets of a category, and of the live pets by name and by last change (see
// Pet), serve every list the full ones served (the deleted pets have partial indexes of their own).
var retiredIndexes = []struct {
	model any
	name  string
}{
	{&Pet{}, "idx_pets_category_id"},
	{&Pet{}, "idx_pets_name_id"},
	{&Pet{}, "idx_pets_updated_at_id"},
}

// dropRetired drops the retiredIndexes a database still has, once AutoMigrate has built their
// replacements, so that no list is left without an index meanwhile.
func (m *Migration) dropRetired(db *gorm.DB) error {
	mig := db.Migrator()
	for _, idx := range retiredIndexes {
		if !mig.HasIndex(idx.model, idx.name) {
			continue
		}
		if err := mig.DropIndex(idx.model, idx.name); err != nil {
			return err
		}
		m.DroppedIndexes = append(m.DroppedIndexes, idx.name)
	}
	return nil
}

// analyzeMinBytes is the size from which a table without statistics is analyzed by migrate:
// PostgreSQL reads a smaller one whole in a few milliseconds, whatever plan it makes.
const analyzeMinBytes = 1 << 20

// analyzeUnknown gathers the statistics of the service's tables that hold data but have none on
// PostgreSQL (no pg_stats row: never analyzed, or analyzed while empty), and returns their names.
// Without them the planner misjudges every condition: right after a bulk load (a restored dump,
// an import, a seed cut short), with autovacuum off or before its next look, it takes the live
// pets for a few and sorts every one of them. SQLite plans the lists with the same indexes
// without statistics, and nothing would keep them up to date there, so it gets none.
func analyzeUnknown(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != "postgres" {
		return nil, nil
	}
	names := make([]string, 0, len(tables))
	for _, model := range tables {
		stmt := &gorm.Statement{DB: db}
		if err := stmt.Parse(model); err != nil {
			return nil, err
		}
		names = append(names, stmt.Table)
	}
	var found []string
	err := db.Session(&gorm.Session{}).Raw(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN ? AND pg_relation_size(c.oid) >= ?
		AND NOT EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname)`,
		names, analyzeMinBytes).Scan(&found).Error
	if err != nil || len(found) == 0 {
		return nil, err
	}
	unknown := slices.DeleteFunc(names, func(name string) bool { return !slices.Contains(found, name) })
	return unknown, analyze(db, unknown...)
}

// analyze gathers the planner's statistics of the tables on PostgreSQL, in one statement. It
// reads a sample of each table, a few seconds for millions of rows on a busy machine: longer than
// the statement timeout the service's queries have, which it lifts for itself.
func analyze(db *gorm.DB, tables ...string) error {
	if db.Dialector.Name() != "postgres" || len(tables) == 0 {
		return nil
	}
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = db.Statement.Quote(t)
	}
	return db.Session(&gorm.Session{}).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SET LOCAL statement_timeout = 0").Error; err != nil {
			return err
		}
		return tx.Exec("ANALYZE " + strings.Join(quoted, ", ")).Error
	})
}

// missing notes the tables, columns and indexes AutoMigrate is about to add; none of the tables
// at all is a new database.
func (m *Migration) missing(db *gorm.DB) error {
	mig := db.Migrator()
	for _, model := range tables {
		stmt := &gorm.Statement{DB: db}
		if err := stmt.Parse(model); err != nil {
			return err
		}
		if !mig.HasTable(model) {
			m.Tables = append(m.Tables, stmt.Table)
			continue
		}
		for _, f := range stmt.Schema.Fields {
			// A column only read (Pet.Photos, computed by each read) is not AutoMigrate's to add.
			if f.DBName != "" && !f.IgnoreMigration && !mig.HasColumn(model, f.DBName) {
				m.Columns = append(m.Columns, stmt.Table+"."+f.DBName)
			}
		}
		for _, idx := range stmt.Schema.ParseIndexes() {
			if !mig.HasIndex(model, idx.Name) {
				m.Indexes = append(m.Indexes, idx.Name)
			}
		}
	}
	if len(m.Tables) == len(tables) {
		m.Created, m.Tables = true, nil
	}
	return nil
}

// giveKeysClients upgrades the keys issued before clients and scopes existed (release 1.0.0):
// each gets a client of its own, named after it, and every scope; the orders it placed through
// the API (its id is the actor of their history's place) move to that client, so the key still
// sees them. One transaction, so an interrupted upgrade is done again whole; it finds nothing to
// do once done.
func giveKeysClients(db *gorm.DB) (int, error) {
	var old []struct {
		ID        int64
		Name      string
		CreatedAt time.Time
	}
	if err := db.Raw("SELECT id, name, created_at FROM api_keys WHERE client_id IS NULL ORDER BY id").Scan(&old).Error; err != nil {
		return 0, err
	}
	if len(old) == 0 {
		return 0, nil
	}
	return len(old), db.Transaction(func(tx *gorm.DB) error {
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

// The admin dashboard's indexes (issue 28), partial ones that GORM's tags cannot write for both
// databases: each holds only the rows a dashboard count reads, so the counts stay small however
// many orders, keys and endpoints there are. The queries (order_admin.go, admin_work.go) repeat
// each predicate, as both databases need to use a partial index.
var adminIndexDefs = []struct{ table, name, def string }{
	{"orders", "idx_orders_live_ship_date", "orders (ship_date, id) WHERE " + liveOrders},
	{"api_keys", "idx_api_keys_banned_until", "api_keys (banned_until) WHERE banned_until IS NOT NULL"},
	{"webhook_endpoints", "idx_webhook_endpoints_troubled", "webhook_endpoints (id) WHERE " + troubledEndpoints},
}

func adminIndexes(db *gorm.DB, m *Migration) error {
	for _, idx := range adminIndexDefs {
		if db.Migrator().HasIndex(idx.table, idx.name) {
			continue
		}
		if err := db.Exec("CREATE INDEX IF NOT EXISTS " + idx.name + " ON " + idx.def).Error; err != nil {
			return err
		}
		if !m.Created {
			m.Indexes = append(m.Indexes, idx.name)
		}
	}
	return nil
}

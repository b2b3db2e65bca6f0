package apptest

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// Config returns the default service configuration on a fresh, empty database of the given
// kind, which is dropped when the test ends.
func Config(tb testing.TB, store testenv.Store) app.Config {
	tb.Helper()
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	// Tables count their rows exactly however slow the shared machine is (the race detector
	// slows SQLite, which is Go, several times); the estimate past the budget is tested in models.
	cfg.AdminCountBudget = 10 * time.Second
	// The tags in use and the inventory are counted on each call, so that a test sees its own
	// changes in them; TestTagsAndInventoryAreKeptForTheirMaxAgeByEachInstance keeps them.
	cfg.CountsMaxAge = 0
	d := testenv.NewDatabase(tb, store)
	cfg.DatabaseURL = d.PostgresURL
	if d.SQLitePath != "" {
		cfg.DBPath = d.SQLitePath
	}
	// The photos' folder of the test's own (beside the SQLite file by default, which on
	// PostgreSQL would be the working directory).
	cfg.MediaDir = filepath.Join(tb.TempDir(), "media")
	return cfg
}

// OpenDB opens and migrates the database of cfg, with its read replicas, closed when the test
// ends.
func OpenDB(tb testing.TB, cfg app.Config) *gorm.DB {
	tb.Helper()
	db, err := app.OpenDB(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { models.Close(db) })
	if err := models.Migrate(context.Background(), db); err != nil {
		tb.Fatal(err)
	}
	replicas, err := app.UseReplicas(context.Background(), db, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(replicas.Close)
	return db
}

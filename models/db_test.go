package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// openDB opens and migrates a fresh database of the given kind, closed when the test ends.
func openDB(tb testing.TB, store testenv.Store) *gorm.DB {
	tb.Helper()
	d := testenv.NewDatabase(tb, store)
	db, err := models.Open(context.Background(), models.DBOptions{PostgresURL: d.PostgresURL, SQLitePath: d.SQLitePath,
		Timeout: 5 * time.Second, MaxOpenConns: 4, MaxIdleConns: 4, ConnMaxLifetime: time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { models.Close(db) })
	if err := models.Migrate(context.Background(), db); err != nil {
		tb.Fatal(err)
	}
	return db
}

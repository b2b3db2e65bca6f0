package keychanges_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/app/keychanges"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// heard collects what a listener delivers.
type heard chan int64

func (h heard) deliver(id int64) { h <- id }

// next waits for the delivery of id, skipping "anything may have changed" (0), which a listener
// sends whenever it starts listening.
func (h heard) next(t *testing.T, id int64) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-h:
			if got == id {
				return
			}
			if got != 0 {
				t.Fatalf("heard of key %d, want %d", got, id)
			}
		case <-deadline:
			t.Fatalf("did not hear of key %d", id)
		}
	}
}

// quiet checks that nothing but "anything may have changed" arrives for a while.
func (h heard) quiet(t *testing.T) {
	t.Helper()
	deadline := time.After(600 * time.Millisecond)
	for {
		select {
		case got := <-h:
			if got != 0 {
				t.Fatalf("heard of key %d, want nothing", got)
			}
		case <-deadline:
			return
		}
	}
}

func open(t *testing.T, d testenv.Database) *gorm.DB {
	t.Helper()
	db, err := models.Open(context.Background(), models.DBOptions{PostgresURL: d.PostgresURL, SQLitePath: d.SQLitePath,
		Timeout: 5 * time.Second, MaxOpenConns: 4, MaxIdleConns: 4, ConnMaxLifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { models.Close(db) })
	if err := models.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

var log = slog.New(slog.DiscardHandler)

// Each way news travels, alone: a change made by another process's key store is heard; a last
// use, which is no change, is not.
func TestChangesAreHeardThroughEachSource(t *testing.T) {
	for name, listen := range map[string]func(t *testing.T, d testenv.Database, prefix string, h heard) func(){
		"postgres": func(t *testing.T, d testenv.Database, _ string, h heard) func() {
			return keychanges.Listen(keychanges.Sources{PostgresURL: d.PostgresURL, Log: log}, h.deliver)
		},
		"sqlite": func(t *testing.T, d testenv.Database, _ string, h heard) func() {
			db := open(t, d) // this process's own connection to the file
			return keychanges.Listen(keychanges.Sources{SQLite: db, Keys: models.NewAPIKeyStore(db, models.KeyStoreOptions{}), Log: log}, h.deliver)
		},
		"redis": func(t *testing.T, _ testenv.Database, prefix string, h heard) func() {
			return keychanges.Listen(keychanges.Sources{Redis: testenv.RedisClient(t, testenv.RedisURL(t)), RedisPrefix: prefix, Log: log}, h.deliver)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := testenv.SQLite
			if name == "postgres" {
				store = testenv.Postgres
			}
			d := testenv.NewDatabase(t, store)
			other := open(t, d) // the process that makes the changes
			keys := models.NewAPIKeyStore(other, models.KeyStoreOptions{})
			var prefix string
			if name == "redis" {
				prefix = testenv.RedisPrefix(t)
				keys.OnChange(keychanges.Publisher(testenv.RedisClient(t, testenv.RedisURL(t)), prefix, log))
			}
			ctx := models.WithActor(context.Background(), models.ActorCLI)
			k, _, err := keys.Create(ctx, models.NewAPIKey{Name: "partner", Plan: "free"})
			if err != nil {
				t.Fatal(err)
			}
			h := make(heard, 100)
			stop := listen(t, d, prefix, h)
			defer stop()
			h.next(t, 0) // listening

			if _, err := keys.SetScopes(ctx, k.ID, []string{"pets:read"}); err != nil {
				t.Fatal(err)
			}
			h.next(t, k.ID)
			keys.Touch(k.ID)
			if err := keys.Close(context.Background()); err != nil { // writes the last use
				t.Fatal(err)
			}
			h.quiet(t)
			if _, err := keys.Revoke(ctx, k.ID); err != nil {
				t.Fatal(err)
			}
			h.next(t, k.ID)
		})
	}
}

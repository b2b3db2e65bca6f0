// Package testenv provides the real services tests run against: a fresh database of either kind
// (an SQLite file, or a PostgreSQL schema of the test's own), a Redis key prefix of the test's
// own, and a clock the test moves. It imports nothing of the service, so the tests of its
// lowest packages (models, the rate limiter) stay light.
//
// A missing PostgreSQL or Redis skips the test on a developer's machine and fails it under CI
// (CI set), so a missing server never passes silently.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Store names a database kind the suite runs against.
type Store string

// The stores every data test runs on.
const (
	SQLite   Store = "sqlite"
	Postgres Store = "postgres"
)

// Stores lists both stores, for table-driven suites.
var Stores = []Store{SQLite, Postgres}

// ForEachStore runs fn as a parallel subtest on each store.
func ForEachStore(t *testing.T, fn func(t *testing.T, store Store)) {
	for _, s := range Stores {
		t.Run(string(s), func(t *testing.T) {
			t.Parallel()
			fn(t, s)
		})
	}
}

// Database is where a fresh, empty database of one kind lives: PostgresURL for PostgreSQL, else
// the SQLite file SQLitePath.
type Database struct {
	PostgresURL string
	SQLitePath  string
}

// NewDatabase returns a fresh, empty database of the given kind, dropped when the test ends.
func NewDatabase(tb testing.TB, store Store) Database {
	tb.Helper()
	switch store {
	case SQLite:
		return Database{SQLitePath: filepath.Join(tb.TempDir(), "petstore.db")}
	case Postgres:
		return Database{PostgresURL: PostgresSchema(tb)}
	}
	tb.Fatalf("unknown store %q", store)
	return Database{}
}

// DefaultPostgresURL is the developer's local server; PETSTORE_TEST_DATABASE_URL overrides it.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresURL is the server the tests use.
func PostgresURL() string {
	if u := os.Getenv("PETSTORE_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// PostgresSchema creates a schema of the test's own on the test server and returns a URL whose
// connections use it; the schema is dropped when the test ends.
func PostgresSchema(tb testing.TB) string {
	tb.Helper()
	base := PostgresURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		unavailable(tb, "PostgreSQL", base, "PETSTORE_TEST_DATABASE_URL", err)
	}
	schema := "t_" + randomHex(8)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		_ = conn.Close(ctx)
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
		_ = conn.Close(ctx)
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// DefaultRedisURL is the developer's local Redis; PETSTORE_TEST_REDIS_URL overrides it.
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// RedisURL is the Redis server the tests use, checked to answer.
func RedisURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("PETSTORE_TEST_REDIS_URL")
	if u == "" {
		u = DefaultRedisURL
	}
	client := RedisClient(tb, u)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		unavailable(tb, "Redis", u, "PETSTORE_TEST_REDIS_URL", err)
	}
	return u
}

// RedisClient connects to the Redis at url until the test ends.
func RedisClient(tb testing.TB, url string) *redis.Client {
	tb.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatal(err)
	}
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	opt.DialerRetries = 1 // a missing server is reported at once
	client := redis.NewClient(opt)
	tb.Cleanup(func() { _ = client.Close() })
	return client
}

// RedisPrefix returns a key prefix of the test's own on the test Redis, so tests running in
// parallel never share a counter; its keys are deleted when the test ends.
func RedisPrefix(tb testing.TB) string {
	tb.Helper()
	prefix := "petstore-test:" + randomHex(8) + ":"
	client := RedisClient(tb, RedisURL(tb))
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := client.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
	})
	return prefix
}

func unavailable(tb testing.TB, what, u, variable string, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s is required under CI and does not answer at %s: %v", what, u, err)
	}
	tb.Skipf("%s does not answer at %s (set %s): %v", what, u, variable, err)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

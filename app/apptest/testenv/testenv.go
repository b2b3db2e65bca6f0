// Package testenv provides the real services tests run against: a fresh database of either kind
// (an SQLite file, or a PostgreSQL schema of the test's own), a Redis key prefix of the test's
// own, and a clock the test moves. It imports nothing of the service, so the tests of its
// lowest packages (models, the rate limiter) stay light.
//
// A missing PostgreSQL, Redis or S3 server skips the test on a developer's machine and fails it under CI
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
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
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

// The S3-compatible server the tests use: .ci/run starts MinIO on DefaultS3URL with these root
// credentials; PETSTORE_TEST_S3_URL (with PETSTORE_TEST_S3_ACCESS_KEY and
// PETSTORE_TEST_S3_SECRET_KEY) names another.
const (
	DefaultS3URL       = "http://127.0.0.1:9000"
	DefaultS3AccessKey = "petstore-test"
	DefaultS3SecretKey = "petstore-test-secret" // #nosec G101 -- a loopback test server's, which .ci/run starts with it
)

// S3 is a bucket of the test's own on the test S3 server.
type S3 struct {
	Endpoint             string // such as http://127.0.0.1:9000
	Bucket               string
	AccessKey, SecretKey string
}

// BucketURL is the bucket as PETSTORE_MEDIA_BUCKET names it.
func (b S3) BucketURL() string {
	return "s3://" + b.Bucket + "?endpoint=" + url.QueryEscape(b.Endpoint)
}

// S3Bucket creates a bucket of the test's own on the test S3 server, emptied and removed when
// the test ends, and sets the AWS variables the service reads its credentials from.
func S3Bucket(tb testing.TB) S3 {
	tb.Helper()
	b := S3{Endpoint: os.Getenv("PETSTORE_TEST_S3_URL"), AccessKey: os.Getenv("PETSTORE_TEST_S3_ACCESS_KEY"),
		SecretKey: os.Getenv("PETSTORE_TEST_S3_SECRET_KEY"), Bucket: "t-" + randomHex(8)}
	if b.Endpoint == "" {
		b.Endpoint = DefaultS3URL
	}
	if b.AccessKey == "" {
		b.AccessKey, b.SecretKey = DefaultS3AccessKey, DefaultS3SecretKey
	}
	client := b.Client(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.MakeBucket(ctx, b.Bucket, minio.MakeBucketOptions{}); err != nil {
		unavailable(tb, "The S3 server", b.Endpoint, "PETSTORE_TEST_S3_URL", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for obj := range client.ListObjects(ctx, b.Bucket, minio.ListObjectsOptions{Recursive: true}) {
			if obj.Err == nil {
				_ = client.RemoveObject(ctx, b.Bucket, obj.Key, minio.RemoveObjectOptions{})
			}
		}
		_ = client.RemoveBucket(ctx, b.Bucket)
	})
	// The service reads the standard variables; every test's bucket is on the same server with the
	// same credentials, so parallel tests may all set them.
	_ = os.Setenv("AWS_ACCESS_KEY_ID", b.AccessKey)     // #nosec G104 -- see above
	_ = os.Setenv("AWS_SECRET_ACCESS_KEY", b.SecretKey) // #nosec G104
	return b
}

// Client is a client of the test S3 server, for a test to look into the bucket itself.
func (b S3) Client(tb testing.TB) *minio.Client {
	tb.Helper()
	u, err := url.Parse(b.Endpoint)
	if err != nil {
		tb.Fatal(err)
	}
	client, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(b.AccessKey, b.SecretKey, ""), Secure: u.Scheme == "https"})
	if err != nil {
		tb.Fatal(err)
	}
	return client
}

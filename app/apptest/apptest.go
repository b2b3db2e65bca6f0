// Package apptest starts the real service against a real database for tests: the embedded
// SQLite in a temporary folder, and PostgreSQL in a schema of the test's own.
package apptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// DefaultPostgresURL is the developer's local server; PETSTORE_TEST_DATABASE_URL overrides it.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Store names a database kind the suite runs against.
type Store string

// The stores every API test runs on.
const (
	SQLite   Store = "sqlite"
	Postgres Store = "postgres"
)

// Stores lists both stores, for table-driven suites.
var Stores = []Store{SQLite, Postgres}

// ForEachStore runs fn as a subtest on each store.
func ForEachStore(t *testing.T, fn func(t *testing.T, store Store)) {
	for _, s := range Stores {
		t.Run(string(s), func(t *testing.T) {
			t.Parallel()
			fn(t, s)
		})
	}
}

// Config returns a service configuration on a fresh, empty database of the given kind, which
// is dropped when the test ends.
func Config(tb testing.TB, store Store) app.Config {
	tb.Helper()
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	switch store {
	case SQLite:
		cfg.DBPath = filepath.Join(tb.TempDir(), "petstore.db")
	case Postgres:
		cfg.DatabaseURL = PostgresSchema(tb)
	default:
		tb.Fatalf("unknown store %q", store)
	}
	return cfg
}

// PostgresURL is the server the tests use. When it does not answer, the test is skipped on a
// developer's machine and fails under CI (CI set), so a missing server never passes silently.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("PETSTORE_TEST_DATABASE_URL")
	if u == "" {
		u = DefaultPostgresURL
	}
	return u
}

// PostgresSchema creates a schema of the test's own on the test server and returns a URL whose
// connections use it; the schema is dropped when the test ends.
func PostgresSchema(tb testing.TB) string {
	tb.Helper()
	base := PostgresURL(tb)
	cfg, _ := app.LoadConfig(func(string) string { return "" })
	cfg.DatabaseURL = base
	admin, err := app.OpenDB(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("PostgreSQL is required under CI and does not answer at %s: %v", base, err)
		}
		tb.Skipf("PostgreSQL does not answer at %s (set PETSTORE_TEST_DATABASE_URL): %v", base, err)
	}
	schema := "t_" + randomHex(8)
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		if sqlDB, err := admin.DB(); err == nil {
			sqlDB.Close()
		}
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

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// OpenDB opens and migrates the database of cfg, closed when the test ends.
func OpenDB(tb testing.TB, cfg app.Config) *gorm.DB {
	tb.Helper()
	db, err := app.OpenDB(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
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

// Server is the service under test, listening on a loopback port of its own.
type Server struct {
	App *fiber.App
	DB  *gorm.DB
	Cfg app.Config
	// URL is the service's base address, such as http://127.0.0.1:41234.
	URL string
	// Headers are sent with every request (an API key, for instance).
	Headers http.Header
	// Metrics are the server's own; MetricsURL serves them at /metrics, as PETSTORE_METRICS_ADDR does.
	Metrics    *metrics.Metrics
	MetricsURL string
}

// New starts the service on a fresh database of the given kind.
func New(tb testing.TB, store Store) *Server {
	tb.Helper()
	return NewWithConfig(tb, Config(tb, store))
}

// NewWithConfig starts the service on cfg's database; it stops when the test ends.
func NewWithConfig(tb testing.TB, cfg app.Config) *Server {
	tb.Helper()
	db := OpenDB(tb, cfg)
	m := metrics.New("test")
	s := &Server{App: app.NewServer(cfg, slog.New(slog.DiscardHandler), db, m), DB: db, Cfg: cfg, Headers: http.Header{}}
	s.URL = Listen(tb, s.App)
	s.Metrics = m
	metricsServer := httptest.NewServer(m.Handler())
	tb.Cleanup(metricsServer.Close)
	s.MetricsURL = metricsServer.URL
	return s
}

// Listen serves a on a fresh loopback port until the test ends and returns its base URL.
func Listen(tb testing.TB, a *fiber.App) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = a.Listener(ln) }()
	tb.Cleanup(func() { _ = a.ShutdownWithTimeout(5 * time.Second) })
	return "http://" + ln.Addr().String()
}

// Response is an answer as a client sees it, with its body read.
type Response struct {
	*http.Response
	Body []byte
}

// JSON decodes the body into v, failing the test when it is not JSON of that shape.
func (r *Response) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("%s %s: body is not the expected JSON: %v\n%s", r.Request.Method, r.Request.URL, err, r.Body)
	}
}

// ErrorBody decodes an Error body and checks that it is complete and its status matches the
// response's.
func (r *Response) ErrorBody(tb testing.TB) (code, message string) {
	tb.Helper()
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Status  int    `json:"status"`
	}
	r.JSON(tb, &e)
	if e.Status != r.StatusCode || e.Code == "" || e.Message == "" {
		tb.Fatalf("%s %s: not a complete Error body for status %d: %s", r.Request.Method, r.Request.URL, r.StatusCode, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		tb.Fatalf("%s %s: error Content-Type %q, want application/json", r.Request.Method, r.Request.URL, ct)
	}
	return e.Code, e.Message
}

// NewRequest makes a request to the server; target is a path such as /v1/pets.
func (s *Server) NewRequest(tb testing.TB, method, target string, body io.Reader) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(method, s.URL+target, body)
	if err != nil {
		tb.Fatal(err)
	}
	return req
}

// Do sends a request over the loopback connection and reads the answer.
func (s *Server) Do(tb testing.TB, req *http.Request) *Response {
	tb.Helper()
	for k, vs := range s.Headers {
		if req.Header.Get(k) == "" {
			req.Header[k] = vs
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return &Response{Response: res, Body: body}
}

// Get sends a GET to target, a path such as /v1/pets.
func (s *Server) Get(tb testing.TB, target string) *Response {
	tb.Helper()
	return s.Do(tb, s.NewRequest(tb, http.MethodGet, target, nil))
}

// PostJSON sends a POST whose body is v encoded as JSON, or the bytes themselves for a string
// or []byte (to send malformed bodies).
func (s *Server) PostJSON(tb testing.TB, target string, v any) *Response {
	tb.Helper()
	var body []byte
	switch b := v.(type) {
	case string:
		body = []byte(b)
	case []byte:
		body = b
	default:
		var err error
		if body, err = json.Marshal(v); err != nil {
			tb.Fatal(err)
		}
	}
	req := s.NewRequest(tb, http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.Do(tb, req)
}

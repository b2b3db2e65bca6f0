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
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
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
			_ = sqlDB.Close()
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

// DefaultRedisURL is the developer's local Redis; PETSTORE_TEST_REDIS_URL overrides it.
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// RedisURL is the Redis server the tests use. When it does not answer, the test is skipped on a
// developer's machine and fails under CI (CI set).
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
		if os.Getenv("CI") != "" {
			tb.Fatalf("Redis is required under CI and does not answer at %s: %v", u, err)
		}
		tb.Skipf("Redis does not answer at %s (set PETSTORE_TEST_REDIS_URL): %v", u, err)
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
			_ = sqlDB.Close()
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
	// Headers are sent with every request: by default Authorization with APIKey.
	Headers http.Header
	// Metrics are the server's own; MetricsURL serves them at /metrics, as PETSTORE_METRICS_ADDR does.
	Metrics    *metrics.Metrics
	MetricsURL string
	// invalidRequests skips checking requests against the API document (see Invalid).
	invalidRequests bool
	// APIKey is the plain key the server was started with: an Enterprise key whose limits no
	// test reaches. KeyID is its id.
	APIKey string
	KeyID  int64
	// Keys is the service's own key store: a change made through it (revoke, set plan, unban)
	// applies to the service's next request, as one made in its admin pages does.
	Keys *models.APIKeyStore
	// Clock is the service's clock when the test gave one (Options.Clock), else nil.
	Clock *Clock
	// Logs holds every line the service logged, at debug level, as JSON (unless Options.Log
	// took the log elsewhere).
	Logs *LogBuffer
}

// Options change how Start starts the service.
type Options struct {
	// Clock, when set, is the service's clock (rate-limit windows, bans, key expiry and cache).
	Clock *Clock
	// Log receives the service's log; when nil, Server.Logs collects it.
	Log *slog.Logger
	// Routes, when set, adds routes of the test's own before the server starts (fiber builds
	// its routing tree then: a route added to a running server is never served).
	Routes func(*fiber.App)
}

// DefaultKeyLimit is the per-minute and per-day limit of the key every test server starts with.
const DefaultKeyLimit = models.MaxCustomLimit

// New starts the service on a fresh database of the given kind.
func New(tb testing.TB, store Store) *Server {
	tb.Helper()
	return NewWithConfig(tb, Config(tb, store))
}

// NewWithConfig starts the service on cfg's database; it stops when the test ends.
func NewWithConfig(tb testing.TB, cfg app.Config) *Server {
	tb.Helper()
	return Start(tb, cfg, Options{})
}

// Start starts the service on cfg's database with the given options; it stops when the test
// ends. Every request sends the server's own API key unless the test sets Authorization.
func Start(tb testing.TB, cfg app.Config, o Options) *Server {
	tb.Helper()
	db := OpenDB(tb, cfg)
	m := metrics.New("test")
	now := time.Now
	if o.Clock != nil {
		now = o.Clock.Now
	}
	logs := &LogBuffer{}
	log := o.Log
	if log == nil {
		log = logs.Logger()
	}
	keys := app.NewKeyStore(cfg, db, now)
	s := &Server{DB: db, Cfg: cfg, Headers: http.Header{}, Keys: keys, Clock: o.Clock, Logs: logs}
	k, plain := s.CreateKey(tb, models.NewAPIKey{Name: "apptest", Plan: string(models.PlanEnterprise),
		PerMinute: DefaultKeyLimit, PerDay: DefaultKeyLimit})
	s.APIKey, s.KeyID = plain, k.ID
	s.Headers.Set("Authorization", "Bearer "+plain)
	s.App = app.NewServer(cfg, log, db, app.WithClock(now), app.WithKeyStore(keys), app.WithMetrics(m))
	if o.Routes != nil {
		o.Routes(s.App)
	}
	s.URL = Listen(tb, s.App)
	s.Metrics = m
	metricsServer := httptest.NewServer(m.Handler())
	tb.Cleanup(metricsServer.Close)
	s.MetricsURL = metricsServer.URL
	return s
}

// CreateKey issues a key through the server's store and returns it with its plain key.
func (s *Server) CreateKey(tb testing.TB, n models.NewAPIKey) (*models.APIKey, string) {
	tb.Helper()
	k, plain, err := s.Keys.Create(context.Background(), n)
	if err != nil {
		tb.Fatalf("create API key %+v: %v", n, err)
	}
	return k, plain
}

// NewKey issues a key on plan (free, pro, business; enterprise gets 1,000 per minute and
// 100,000 per day) and returns the plain key.
func (s *Server) NewKey(tb testing.TB, plan string) string {
	tb.Helper()
	n := models.NewAPIKey{Name: "test " + plan, Plan: plan}
	if plan == string(models.PlanEnterprise) {
		n.PerMinute, n.PerDay = 1_000, 100_000
	}
	_, plain := s.CreateKey(tb, n)
	return plain
}

// As returns a view of the server whose requests send key instead of the server's own; an
// empty key sends no Authorization header.
func (s *Server) As(key string) *Server {
	c := *s
	c.Headers = s.Headers.Clone()
	c.Headers.Del("Authorization")
	if key != "" {
		c.Headers.Set("Authorization", "Bearer "+key)
	}
	return &c
}

// Clock is a clock that moves only when the test moves it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
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

// Do sends a request over the loopback connection and reads the answer. An exchange with /v1 is
// checked against the published API document (see Invalid).
func (s *Server) Do(tb testing.TB, req *http.Request) *Response {
	tb.Helper()
	var reqBody []byte
	if req.Body != nil {
		var err error
		if reqBody, err = io.ReadAll(req.Body); err != nil {
			tb.Fatal(err)
		}
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	out := s.DoUnchecked(tb, req)
	s.checkContract(tb, req, reqBody, out)
	return out
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

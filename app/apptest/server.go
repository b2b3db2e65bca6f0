package apptest

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes"
	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

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
	// test reaches, with every scope. KeyID is its id, ClientID its client's.
	APIKey   string
	KeyID    int64
	ClientID int64
	// Keys is the service's own key store: a change made through it (revoke, plan, scopes,
	// unban) applies to the service's next request, as one made in its admin pages does.
	Keys *models.APIKeyStore
	// Clock is the service's clock when the test gave one (WithClock), else nil.
	Clock *testenv.Clock
	// Logs holds every line the service logged, at debug level, as JSON (unless WithLog took
	// the log elsewhere).
	Logs *LogBuffer
}

// Option changes how New starts the service.
type Option func(*options)

type options struct {
	clock      *testenv.Clock
	log        *slog.Logger
	accessLog  routes.AccessLog
	routes     func(*fiber.App)
	deliveries bool
}

// WithDeliveries makes the server deliver webhooks too, as serve does, polling its queue every
// DeliveryPoll so tests wait little.
func WithDeliveries() Option { return func(o *options) { o.deliveries = true } }

// DeliveryPoll is how often a test server's idle workers look for deliveries.
const DeliveryPoll = 50 * time.Millisecond

// Today is the date the service's pages and exports give today: its clock's, in the store's time
// zone (PETSTORE_TIMEZONE).
func (s *Server) Today() string {
	now := time.Now()
	if s.Clock != nil {
		now = s.Clock.Now()
	}
	zone := s.Cfg.Timezone
	if zone == nil {
		zone = time.UTC
	}
	return now.In(zone).Format(time.DateOnly)
}

// WithClock makes c the service's clock (rate-limit windows, bans, key expiry and cache).
func WithClock(c *testenv.Clock) Option { return func(o *options) { o.clock = c } }

// WithLog sends the service's log to l instead of Server.Logs.
func WithLog(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithAccessLog sends the lines of requests to l instead of the service's log.
func WithAccessLog(l routes.AccessLog) Option { return func(o *options) { o.accessLog = l } }

// WithRoutes adds routes of the test's own before the server starts (fiber builds its routing
// tree then: a route added to a running server is never served).
func WithRoutes(add func(*fiber.App)) Option { return func(o *options) { o.routes = add } }

// DefaultKeyLimit is the per-minute and per-day limit of the key every test server starts with.
const DefaultKeyLimit = models.MaxCustomLimit

// New starts the service on cfg's database (see Config) and stops it when the test ends. Every
// request sends the server's own API key unless the test sets Authorization.
func New(tb testing.TB, cfg app.Config, opts ...Option) *Server {
	tb.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	db := OpenDB(tb, cfg)
	m := metrics.New("test")
	now := time.Now
	if o.clock != nil {
		now = o.clock.Now
	}
	logs := &LogBuffer{}
	log := o.log
	if log == nil {
		log = logs.Logger()
	}
	keys := app.NewKeyStore(cfg, db, now)
	s := &Server{DB: db, Cfg: cfg, Headers: http.Header{}, Keys: keys, Clock: o.clock, Logs: logs}
	k, plain := s.CreateKey(tb, models.NewAPIKey{Name: "apptest", Plan: string(models.PlanEnterprise),
		PerMinute: DefaultKeyLimit, PerDay: DefaultKeyLimit})
	s.APIKey, s.KeyID, s.ClientID = plain, k.ID, k.ClientID
	s.Headers.Set("Authorization", "Bearer "+plain)
	serverOpts := []app.Option{app.WithClock(now), app.WithKeyStore(keys), app.WithMetrics(m), app.WithStaffHashCost(bcrypt.MinCost)}
	if o.accessLog != nil {
		serverOpts = append(serverOpts, app.WithAccessLog(o.accessLog))
	}
	s.App = app.NewServer(cfg, log, db, serverOpts...)
	if o.routes != nil {
		o.routes(s.App)
	}
	if o.deliveries {
		stop, err := app.StartDeliveries(context.Background(), cfg, log, db, app.DeliveryOptions{Now: now, Metrics: m, Poll: DeliveryPoll})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(stop)
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
	k, plain, err := s.Keys.Create(models.WithActor(context.Background(), models.ActorCLI), n)
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

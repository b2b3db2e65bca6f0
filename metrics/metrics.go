// Package metrics keeps the service's Prometheus metrics: HTTP requests by route and status,
// their latency, rate-limit refusals and bans, and the database pools. Each Metrics has a
// registry of its own (no globals), so tests run many servers in one process; the service
// serves it on a listener of its own, never on the public port.
package metrics

import (
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Unmatched is the route label of requests no route answered (404 and 405), so that scanners
// probing random paths cannot grow the number of series.
const Unmatched = "unmatched"

// Metrics holds the service's collectors. Its methods are safe on a nil *Metrics, which counts
// nothing, so code that reports (the rate limiter) needs no check.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	refusals *prometheus.CounterVec
	bans     prometheus.Counter
	// series caches each request series' counter and histogram (seriesKey → *series): the
	// vectors hash every label value on every lookup, a tenth of what counting cost.
	series sync.Map
}

type seriesKey struct {
	method, route string
	status        int
}

type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// seriesOf returns the series of one method, route and status. The strings of a new series are
// copied: a request's method may be one of its reused buffers, and the registry keeps them.
func (m *Metrics) seriesOf(method, route string, status int) *series {
	k := seriesKey{method, route, status}
	if s, ok := m.series.Load(k); ok {
		return s.(*series)
	}
	k.method, k.route = utils.CopyString(method), utils.CopyString(route)
	s, _ := m.series.LoadOrStore(k, &series{
		requests: m.requests.WithLabelValues(k.method, k.route, strconv.Itoa(status)),
		latency:  m.latency.WithLabelValues(k.method, k.route),
	})
	return s.(*series)
}

// New makes the collectors, with the Go runtime's and the process's own, and a build-info gauge
// carrying version.
func New(version string) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "petstore_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status code.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "petstore_http_request_duration_seconds",
			Help: "Time from receiving a request to having its response ready, by method and route pattern.",
			// From a cached read (about a millisecond) up to the database timeout's order.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "petstore_http_requests_in_flight",
			Help: "Requests being handled now.",
		}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "petstore_rate_limit_refusals_total",
			Help: "Requests refused with 429, by error code: rate_limit_exceeded (over a limit) or api_key_banned (during a ban).",
		}, []string{"code"}),
		bans: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "petstore_api_key_bans_total",
			Help: "Temporary bans started (a client kept sending after its 429s).",
		}),
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "petstore_build_info",
		Help:        "Always 1; the version label is the running build's.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	build.Set(1)
	m.registry.MustRegister(m.requests, m.latency, m.inFlight, m.refusals, m.bans, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Both codes are present from the start, so a rate() over them has a zero to begin from.
	m.refusals.WithLabelValues("rate_limit_exceeded")
	m.refusals.WithLabelValues("api_key_banned")
	return m
}

// Middleware counts and times every request. It must run first, outside the middleware that
// turns errors into responses, so it sees the status the client gets.
func (m *Metrics) Middleware() fiber.Handler {
	if m == nil {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	var routes endpoints
	return func(c *fiber.Ctx) error {
		start := time.Now()
		m.inFlight.Inc()
		defer m.inFlight.Dec()
		err := c.Next()
		status := c.Response().StatusCode()
		if err != nil {
			// An error nobody answered yet is answered by fiber's error handler with its status.
			if fe, ok := err.(*fiber.Error); ok {
				status = fe.Code
			} else {
				status = fiber.StatusInternalServerError
			}
		}
		method, route := routes.label(c, status)
		s := m.seriesOf(method, route, status)
		s.requests.Inc()
		s.latency.Observe(time.Since(start).Seconds())
		return err
	}
}

// endpoints are the app's endpoints (its routes less the middleware), gathered on first use:
// every route is registered before the server listens.
type endpoints struct {
	once sync.Once
	set  map[endpoint]struct{}
}

type endpoint struct{ method, path string }

// label names a request's method and route pattern, so that ids in paths do not become series.
// A request that no endpoint answered has no pattern: it is /v1 when the
// API's gate (or another middleware under /v1) refused it, and Unmatched when no route matched
// it or another middleware refused it. One a middleware answered without an error (a CORS
// preflight, say) carries that middleware's pattern.
func (e *endpoints) label(c *fiber.Ctx, status int) (method, route string) {
	e.once.Do(func() {
		e.set = map[endpoint]struct{}{}
		for _, r := range c.App().GetRoutes(true) {
			e.set[endpoint{r.Method, r.Path}] = struct{}{}
		}
	})
	r := c.Route()
	if _, ok := e.set[endpoint{r.Method, r.Path}]; ok {
		return r.Method, r.Path
	}
	method = c.Method()
	switch {
	case status == fiber.StatusNotFound || status == fiber.StatusMethodNotAllowed:
		return method, Unmatched
	case r.Path == "/v1" || strings.HasPrefix(r.Path, "/v1/"):
		return method, "/v1"
	case status < 400:
		return method, r.Path
	}
	return method, Unmatched
}

// RateLimitRefused counts one request refused with 429; code is the Error body's code
// (rate_limit_exceeded or api_key_banned).
func (m *Metrics) RateLimitRefused(code string) {
	if m == nil {
		return
	}
	m.refusals.WithLabelValues(code).Inc()
}

// KeyBanned counts the start of one temporary ban.
func (m *Metrics) KeyBanned() {
	if m == nil {
		return
	}
	m.bans.Inc()
}

// WatchDB reports a connection pool's use (go_sql_* with db_name=name): open, in use, idle,
// and how often and how long requests waited for a connection.
func (m *Metrics) WatchDB(name string, db *sql.DB) {
	if m == nil {
		return
	}
	m.registry.MustRegister(collectors.NewDBStatsCollector(db, name))
}

// Handler serves the metrics in Prometheus's text format at /metrics and nothing else.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return mux
}

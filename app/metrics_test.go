package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// freeAddr returns a loopback address nothing listens on (for a server that binds it itself).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// logWatch is the stderr of a running service: it collects the lines and tells when one
// containing a given text has appeared.
type logWatch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waiters map[string]chan struct{}
}

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for text, ch := range w.waiters {
		if strings.Contains(w.buf.String(), text) {
			close(ch)
			delete(w.waiters, text)
		}
	}
	return len(p), nil
}

func (w *logWatch) waitFor(t *testing.T, text string, done <-chan error) {
	t.Helper()
	w.mu.Lock()
	ch := make(chan struct{})
	if strings.Contains(w.buf.String(), text) {
		close(ch)
	} else {
		if w.waiters == nil {
			w.waiters = map[string]chan struct{}{}
		}
		w.waiters[text] = ch
	}
	w.mu.Unlock()
	select {
	case <-ch:
	case err := <-done:
		t.Fatalf("the service stopped before logging %q: %v\n%s", text, err, w.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the service did not log %q within 30s:\n%s", text, w.String())
	}
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startServe runs `petstore serve` in-process with env until the test ends, and returns once
// it listens.
func startServe(t *testing.T, env map[string]string) *logWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &logWatch{}
	done := make(chan error, 1)
	go func() {
		done <- app.Run(ctx, []string{"petstore", "serve"}, func(k string) string { return env[k] },
			strings.NewReader(""), io.Discard, logs)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve after shutdown: %v\n%s", err, logs.String())
		}
	})
	logs.waitFor(t, `"msg":"listening"`, done)
	return logs
}

func TestMetricsListenerCountsRequestsByRoutePatternAndStatus(t *testing.T) {
	t.Parallel()
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	env := map[string]string{
		"PETSTORE_ADDR":         addr,
		"PETSTORE_METRICS_ADDR": metricsAddr,
		"PETSTORE_DB_PATH":      t.TempDir() + "/p.db",
	}
	logs := startServe(t, env)
	if !strings.Contains(logs.String(), `"msg":"metrics listening"`) {
		t.Fatalf("no metrics listener in the log:\n%s", logs)
	}
	key := strings.TrimSpace(runOK(t, env, "keys", "create", "--name", "metrics", "--plan", "pro"))
	public := &apptest.Server{URL: "http://" + addr, Headers: http.Header{"Authorization": {"Bearer " + key}}}
	metricsURL := "http://" + metricsAddr

	before := apptest.Scrape(t, metricsURL)
	if n := before.Value("petstore_http_requests_total"); n != 0 {
		t.Fatalf("a fresh service reports %v requests", n)
	}
	for range 3 {
		public.Get(t, "/v1/pets")
	}
	created := createPet(t, public, map[string]any{"name": "Rex", "categoryId": 1})
	public.Get(t, fmt.Sprintf("/v1/pets/%d", created.ID))
	public.Get(t, "/v1/pets/987654")
	public.Invalid().Get(t, "/v1/no/such/thing")
	public.Get(t, "/v1/pets/123456789") // another id: the same series
	public.As("").Get(t, "/v1/pets/42") // refused before routing: no pattern

	after := apptest.Scrape(t, metricsURL)
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"method", "GET", "route", "/v1/pets", "status", "200"}, 3},
		{[]string{"method", "POST", "route", "/v1/pets", "status", "201"}, 1},
		{[]string{"method", "GET", "route", "/v1/pets/:petId", "status", "200"}, 1},
		{[]string{"method", "GET", "route", "/v1/pets/:petId", "status", "404"}, 2},
		{[]string{"method", "GET", "route", "unmatched", "status", "404"}, 1},
		{[]string{"method", "GET", "route", "/v1", "status", "401"}, 1},
	} {
		if got := after.Value("petstore_http_requests_total", c.labels...); got != c.want {
			t.Errorf("petstore_http_requests_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	if n := after.Value("petstore_http_requests_total"); n != 9 {
		t.Errorf("petstore_http_requests_total = %v in all, want the test's 9 requests (scrapes are not counted)", n)
	}
	if n := after.Value("petstore_http_request_duration_seconds", "method", "GET", "route", "/v1/pets"); n != 3 {
		t.Errorf("latency histogram of GET /v1/pets holds %v observations, want 3", n)
	}
	if !after.Has("go_sql_open_connections", "db_name", "primary") || after.Value("go_sql_max_open_connections", "db_name", "primary") != 1 {
		t.Errorf("database pool metrics missing or wrong: open %v, max open %v (SQLite uses one connection)",
			after.Value("go_sql_open_connections", "db_name", "primary"), after.Value("go_sql_max_open_connections", "db_name", "primary"))
	}
	for _, code := range []string{"rate_limit_exceeded", "api_key_banned"} {
		if !after.Has("petstore_rate_limit_refusals_total", "code", code) {
			t.Errorf("petstore_rate_limit_refusals_total{code=%q} is not exported", code)
		}
	}
	if !after.Has("petstore_build_info", "version", "dev") {
		t.Error("petstore_build_info{version} is not exported")
	}

	// Never on the public port.
	if res := public.Get(t, "/metrics"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on the public port answered %d, want 404", res.StatusCode)
	}
}

func TestMetricsAreOffUnlessConfiguredAndNeverOnThePublicPort(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	logs := startServe(t, map[string]string{"PETSTORE_ADDR": addr, "PETSTORE_DB_PATH": t.TempDir() + "/p.db"})
	if strings.Contains(logs.String(), "metrics listening") {
		t.Fatalf("a metrics listener started without PETSTORE_METRICS_ADDR:\n%s", logs)
	}

	_, port, _ := net.SplitHostPort(addr)
	for _, bad := range []string{addr, ":" + port, "nonsense"} {
		_, _, err := run(t, map[string]string{"PETSTORE_ADDR": addr, "PETSTORE_METRICS_ADDR": bad}, "migrate")
		if err == nil || !strings.Contains(err.Error(), "PETSTORE_METRICS_ADDR") {
			t.Errorf("PETSTORE_METRICS_ADDR=%q with PETSTORE_ADDR=%q: %v, want an error naming it", bad, addr, err)
		}
	}
}

func TestMetricsShowDatabasePoolUseRefusalsAndBansOnPostgres(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.Postgres)
	// A ban after 6 refusals in a minute (a tenth of the Free plan's 60), to keep the test short.
	cfg.BanThreshold = 0.1
	s := apptest.New(t, cfg, apptest.WithClock(testenv.NewClock(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))))
	c := s.As(s.NewKey(t, "free"))
	for i := range 60 {
		if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, res.StatusCode, res.Body)
		}
	}
	codes := map[string]int{}
	for range 7 {
		res := c.Get(t, "/v1/pets/1")
		code, _ := res.ErrorBody(t)
		codes[code]++
	}
	if codes["rate_limit_exceeded"] != 5 || codes["api_key_banned"] != 2 {
		t.Fatalf("refusals %v, want 5 rate_limit_exceeded then the ban: 2 api_key_banned", codes)
	}
	s.As("").Get(t, "/v1/categories")

	m := s.ScrapeMetrics(t)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"petstore_rate_limit_refusals_total", []string{"code", "rate_limit_exceeded"}, 5},
		{"petstore_rate_limit_refusals_total", []string{"code", "api_key_banned"}, 2},
		{"petstore_api_key_bans_total", nil, 1},
		{"petstore_http_requests_total", []string{"route", "/v1/pets", "status", "200"}, 60},
		// Refused by the gate before routing: counted under /v1, not under a pattern they never reached.
		{"petstore_http_requests_total", []string{"route", "/v1", "status", "429"}, 7},
		{"petstore_http_requests_total", []string{"route", "/v1", "status", "401"}, 1},
		{"petstore_http_requests_total", []string{"route", "/v1/pets/:petId"}, 0},
		{"petstore_http_requests_total", []string{"route", "/v1/categories"}, 0},
		{"go_sql_max_open_connections", []string{"db_name", "primary"}, float64(s.Cfg.DBMaxOpenConns)},
	} {
		if got := m.Value(c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if m.Value("go_sql_open_connections", "db_name", "primary") < 1 {
		t.Error("go_sql_open_connections shows no connection after these reads")
	}
}

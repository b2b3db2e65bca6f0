package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/netfault"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// load keeps clients sending a mix of reads and writes and sorts every answer: a success, a 503
// unavailable with its Error body, or a failure (anything else, including a request that did
// not end within its bound).
type load struct {
	ok, unavailable atomic.Int64
	mu              sync.Mutex
	failures        []string
	slowest         time.Duration
}

func (l *load) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 20 {
		l.failures = append(l.failures, fmt.Sprintf(format, args...))
	}
}

// run sends requests from workers clients until ctx ends. A request that takes longer than
// bound fails: the client gives up on it, as a caller would.
func (l *load) run(ctx context.Context, s *apptest.Server, workers int, bound time.Duration) *sync.WaitGroup {
	client := &http.Client{Timeout: bound}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				var req *http.Request
				switch (w + i) % 4 {
				case 0:
					req, _ = http.NewRequest("GET", s.URL+"/v1/pets?limit=5", nil)
				case 1:
					req, _ = http.NewRequest("GET", s.URL+"/v1/pets/1", nil)
				case 2:
					req, _ = http.NewRequest("GET", s.URL+"/v1/store/orders?limit=5", nil)
				default:
					body := fmt.Sprintf(`{"name":"Load %d-%d","categoryId":1}`, w, i)
					req, _ = http.NewRequest("POST", s.URL+"/v1/pets", bytes.NewReader([]byte(body)))
					req.Header.Set("Content-Type", "application/json")
				}
				for k, vs := range s.Headers {
					req.Header[k] = vs
				}
				l.send(client, req)
			}
		}()
	}
	return &wg
}

func (l *load) send(client *http.Client, req *http.Request) {
	start := time.Now()
	res, err := client.Do(req)
	took := time.Since(start)
	l.mu.Lock()
	l.slowest = max(l.slowest, took)
	l.mu.Unlock()
	if err != nil {
		l.fail("%s %s: no answer after %s: %v", req.Method, req.URL.Path, took.Round(time.Millisecond), err)
		return
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode < 300 {
		l.ok.Add(1)
		return
	}
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Status  int    `json:"status"`
	}
	if res.StatusCode == 503 && json.Unmarshal(body, &e) == nil && e.Code == "unavailable" && e.Status == 503 && e.Message != "" {
		l.unavailable.Add(1)
		return
	}
	l.fail("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, body)
}

// eventually polls cond until it holds, failing the test after a generous deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 60s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readyStatus(s *apptest.Server) int {
	res, err := http.Get(s.URL + "/readyz")
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// outageUnderLoad runs clients against s, breaks the database with fault, checks that /v1
// answers 503 unavailable and /readyz fails while every request still ends within the database
// timeout plus a margin, then heals it and checks that the same process serves again.
func outageUnderLoad(t *testing.T, s *apptest.Server, fault, heal func()) {
	createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	// The bound is generous: what it catches is a request that hangs, not one that is slow.
	bound := s.Cfg.DBTimeout + 10*time.Second
	var l load
	ctx, stop := context.WithCancel(context.Background())
	wg := l.run(ctx, s, 8, bound)
	defer func() { stop(); wg.Wait() }()

	eventually(t, "healthy traffic", func() bool { return l.ok.Load() >= 30 })
	fault()
	eventually(t, "/readyz failing during the outage", func() bool { return readyStatus(s) == 503 })
	seen := l.unavailable.Load()
	eventually(t, "503 unavailable answers during the outage", func() bool { return l.unavailable.Load() >= seen+20 })
	if res := s.Get(t, "/v1/pets"); res.StatusCode != 503 {
		t.Fatalf("GET /v1/pets during the outage: %d %s, want 503", res.StatusCode, res.Body)
	}

	heal()
	eventually(t, "/readyz passing after the database came back", func() bool { return readyStatus(s) == 200 })
	healed := l.ok.Load()
	eventually(t, "traffic succeeding after the database came back", func() bool { return l.ok.Load() >= healed+100 })
	stop()
	wg.Wait()

	// Recovered means every request succeeds again, not just some.
	for i := range 30 {
		createPet(t, s, map[string]any{"name": fmt.Sprint("After ", i), "categoryId": 2})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Logf("%d successes, %d answered 503 unavailable; slowest answer %s (bound %s)",
		l.ok.Load(), l.unavailable.Load(), l.slowest.Round(time.Millisecond), bound)
	for _, f := range l.failures {
		t.Error(f)
	}
}

func outageConfig(t *testing.T, databaseURL string) app.Config {
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.DatabaseURL = databaseURL
	cfg.DBTimeout = time.Second
	return cfg
}

func TestDatabaseOutageAnswers503WithoutHangingAndRecoversWithoutRestart(t *testing.T) {
	t.Run("connections cut", func(t *testing.T) {
		t.Parallel()
		u, proxy := netfault.ProxiedURL(t, testenv.PostgresSchema(t))
		outageUnderLoad(t, apptest.New(t, outageConfig(t, u)), proxy.Cut, proxy.Heal)
	})
	t.Run("network partition", func(t *testing.T) {
		t.Parallel()
		u, proxy := netfault.ProxiedURL(t, testenv.PostgresSchema(t))
		outageUnderLoad(t, apptest.New(t, outageConfig(t, u)), proxy.Partition, proxy.Heal)
	})
	t.Run("PostgreSQL stopped and started", func(t *testing.T) {
		t.Parallel()
		c := apptest.NewCluster(t)
		outageUnderLoad(t, apptest.New(t, outageConfig(t, c.URL)), func() { c.Stop(t) }, func() { c.Start(t) })
	})
}

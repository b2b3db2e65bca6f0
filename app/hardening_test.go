package app_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes"
)

// wantSecurityHeaders are on every answer, the ones fasthttp makes before any middleware runs
// included.
var wantSecurityHeaders = map[string]string{
	"X-Content-Type-Options":       "nosniff",
	"X-Frame-Options":              "DENY",
	"Referrer-Policy":              "no-referrer",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Cross-Origin-Opener-Policy":   "same-origin",
	"X-XSS-Protection":             "0",
}

func checkSecurityHeaders(t *testing.T, what string, res *apptest.Response) {
	t.Helper()
	for h, want := range wantSecurityHeaders {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %s %q, want %q", what, h, got, want)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("%s: Content-Security-Policy %q, want one that forbids framing and inline script", what, csp)
	}
	for _, h := range []string{"Server", "X-Powered-By"} {
		if v := res.Header.Get(h); v != "" {
			t.Errorf("%s: %s %q gives the software away; want none", what, h, v)
		}
	}
}

func TestEveryAnswerCarriesSecurityHeadersAndNoServerBanner(t *testing.T) {
	t.Parallel()
	s := serverWithRoute(t, "/v1/explode", func(*fiber.Ctx) error { panic("boom") }).Invalid()
	bigHeader := strings.Repeat("a", 2*s.Cfg.MaxHeaderBytes)
	bigBody := `{"name":"` + strings.Repeat("x", routes.MaxBodyBytes) + `","categoryId":1}`
	cases := []struct {
		name   string
		do     func() *apptest.Response
		status int
	}{
		{"health", func() *apptest.Response { return s.Get(t, "/healthz") }, 200},
		{"list", func() *apptest.Response { return s.Get(t, "/v1/pets") }, 200},
		{"create", func() *apptest.Response {
			return s.PostJSON(t, "/v1/pets", map[string]any{"name": "Rex", "categoryId": 1})
		}, 201},
		{"bad parameter", func() *apptest.Response { return s.Get(t, "/v1/pets?limit=0") }, 400},
		{"unknown route", func() *apptest.Response { return s.Get(t, "/nowhere") }, 404},
		{"wrong method", func() *apptest.Response { return s.Do(t, s.NewRequest(t, "DELETE", "/v1/pets", nil)) }, 405},
		{"panic", func() *apptest.Response { return s.Get(t, "/v1/explode") }, 500},
		{"body over the limit", func() *apptest.Response { return s.PostJSON(t, "/v1/pets", bigBody) }, 413},
		{"headers over the cap", func() *apptest.Response {
			return s.Raw(t, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: "+bigHeader+"\r\n\r\n")
		}, 431},
		{"malformed request line", func() *apptest.Response { return s.Raw(t, "GARBAGE\x01 / HTTP/9\r\n\r\n") }, 400},
		{"unknown method", func() *apptest.Response { return s.Raw(t, "FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n") }, 400},
		{"malformed header", func() *apptest.Response {
			return s.Raw(t, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
		}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.do()
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, res.Body)
			}
			if tc.status >= 400 {
				res.ErrorBody(t)
			}
			checkSecurityHeaders(t, tc.name, res)
		})
	}
}

// serverWithRoute starts the service on SQLite with one more GET route.
func serverWithRoute(t *testing.T, path string, h fiber.Handler) *apptest.Server {
	t.Helper()
	return apptest.New(t, apptest.Config(t, testenv.SQLite), apptest.WithRoutes(func(a *fiber.App) { a.Get(path, h) }))
}

func TestHeadersOverTheCapAnswer431AndHeadersUnderItPass(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.MaxHeaderBytes = 4096
	s := apptest.New(t, cfg)

	// The HTTP server refuses headers over the cap before any route: the API document does
	// not list that answer.
	req := s.NewRequest(t, "GET", "/v1/pets", nil)
	req.Header.Set("X-Padding", strings.Repeat("p", 3000))
	if res := s.Do(t, req); res.StatusCode != 200 {
		t.Fatalf("3,000-byte header under a 4,096-byte cap: %d %s", res.StatusCode, res.Body)
	}
	req = s.NewRequest(t, "GET", "/v1/pets", nil)
	req.Header.Set("X-Padding", strings.Repeat("p", 5000))
	res := s.DoUnchecked(t, req)
	if code, _ := res.ErrorBody(t); res.StatusCode != 431 || code != "request_header_fields_too_large" {
		t.Fatalf("5,000-byte header over a 4,096-byte cap: %d %s, want 431 request_header_fields_too_large", res.StatusCode, res.Body)
	}
	// Many small headers add up the same way.
	req = s.NewRequest(t, "GET", "/v1/pets", nil)
	for i := range 400 {
		req.Header.Set(fmt.Sprintf("X-H%d", i), "0123456789")
	}
	if res := s.DoUnchecked(t, req); res.StatusCode != 431 {
		t.Fatalf("400 small headers over the cap: %d, want 431", res.StatusCode)
	}
}

// requestIP sends a request with the given headers and returns the client IP its access-log
// line records (c.IP(), which per-IP limits key on), and the answer.
func requestIP(t *testing.T, s *apptest.Server, headers map[string]string) (string, *apptest.Response) {
	t.Helper()
	req := s.NewRequest(t, "GET", "/healthz", nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res := s.Do(t, req)
	id := res.Header.Get("X-Request-ID")
	lines := s.Logs.Find("request_id", id)
	if len(lines) == 0 {
		t.Fatalf("no log line for request %s:\n%s", id, s.Logs.String())
	}
	ip, _ := lines[len(lines)-1]["ip"].(string)
	return ip, res
}

func TestSpoofedForwardingHeadersAreIgnoredUnlessThePeerIsATrustedProxy(t *testing.T) {
	t.Parallel()
	spoof := map[string]string{"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "X-Real-IP": "203.0.113.10"}
	for _, tc := range []struct {
		name    string
		trusted []string
		header  string
		headers map[string]string
		wantIP  string
		hsts    bool
	}{
		{"no trusted proxy (the default)", nil, "X-Forwarded-For", spoof, "127.0.0.1", false},
		{"a trusted proxy elsewhere", []string{"10.0.0.0/8", "192.0.2.1"}, "X-Forwarded-For", spoof, "127.0.0.1", false},
		{"the peer is a trusted proxy", []string{"127.0.0.0/8"}, "X-Forwarded-For", spoof, "203.0.113.9", true},
		{"the peer is a trusted proxy with another header", []string{"127.0.0.1"}, "X-Real-IP", spoof, "203.0.113.10", true},
		{"a trusted proxy that sends no address", []string{"127.0.0.1"}, "X-Forwarded-For", nil, "127.0.0.1", false},
		{"a trusted proxy that sends garbage", []string{"127.0.0.1"}, "X-Forwarded-For", map[string]string{"X-Forwarded-For": "'; DROP TABLE pets"}, "127.0.0.1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := apptest.Config(t, testenv.SQLite)
			cfg.TrustedProxies, cfg.ProxyHeader = tc.trusted, tc.header
			s := apptest.New(t, cfg)
			ip, res := requestIP(t, s, tc.headers)
			if ip != tc.wantIP {
				t.Fatalf("client IP %q, want %q", ip, tc.wantIP)
			}
			// HSTS goes out on HTTPS only, so it shows whether X-Forwarded-Proto was believed.
			if hsts := res.Header.Get("Strict-Transport-Security"); (hsts != "") != tc.hsts {
				t.Fatalf("Strict-Transport-Security %q; want it only when a trusted proxy says https", hsts)
			}
		})
	}
}

func TestCORSIsOffByDefaultAndAllowsOnlyConfiguredOrigins(t *testing.T) {
	t.Parallel()
	preflight := func(s *apptest.Server, origin string) *apptest.Response {
		req := s.NewRequest(t, "OPTIONS", "/v1/pets", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		return s.Do(t, req)
	}
	get := func(s *apptest.Server, origin string) *apptest.Response {
		req := s.NewRequest(t, "GET", "/v1/pets", nil)
		req.Header.Set("Origin", origin)
		return s.Do(t, req)
	}

	off := apptest.New(t, apptest.Config(t, testenv.SQLite)).Invalid() // OPTIONS is no operation of the document
	if res := preflight(off, "https://shop.example.com"); res.Header.Get("Access-Control-Allow-Origin") != "" || res.StatusCode < 400 {
		t.Fatalf("CORS off: preflight answered %d with Access-Control-Allow-Origin %q; want a refusal and none",
			res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	if res := get(off, "https://shop.example.com"); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS off: GET with Origin answered Access-Control-Allow-Origin %q", res.Header.Get("Access-Control-Allow-Origin"))
	}

	cfg := apptest.Config(t, testenv.SQLite)
	cfg.CORSOrigins = []string{"https://shop.example.com"}
	on := apptest.New(t, cfg).Invalid()
	res := preflight(on, "https://shop.example.com")
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "https://shop.example.com" ||
		!strings.Contains(strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")), "authorization") ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("allowed origin: preflight %d %v, want 204 allowing POST with Authorization", res.StatusCode, res.Header)
	}
	if res.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatal("preflight allows credentials; keys travel in headers, cookies must never be sent cross-origin")
	}
	res = get(on, "https://shop.example.com")
	if res.Header.Get("Access-Control-Allow-Origin") != "https://shop.example.com" || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Link") {
		t.Fatalf("allowed origin: GET headers %v, want the origin allowed and Link exposed", res.Header)
	}
	for _, other := range []string{"https://evil.example.com", "https://shop.example.com.evil.com", "null"} {
		if res := preflight(on, other); res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("origin %s was allowed: %v", other, res.Header)
		}
		if res := get(on, other); res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("origin %s was allowed on GET: %v", other, res.Header)
		}
	}
}

// connEnds reads from conn until the server closes it, and fails the test when that takes longer
// than limit (a generous bound, far above the timeout under test).
func connEnds(t *testing.T, conn net.Conn, limit time.Duration) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, conn)
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		t.Fatalf("the server still held the connection open after %s", limit)
	}
}

func TestSlowAndIdleClientsCannotHoldAConnection(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.ReadTimeout, cfg.IdleTimeout = 500*time.Millisecond, 500*time.Millisecond
	s := apptest.New(t, cfg)
	limit := 20 * time.Second

	t.Run("headers never finished", func(t *testing.T) {
		conn := s.Dial(t)
		_, _ = io.WriteString(conn, "GET /v1/pets HTTP/1.1\r\nHost: x\r\n")
		connEnds(t, conn, limit)
	})
	t.Run("a byte at a time", func(t *testing.T) {
		conn := s.Dial(t)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, b := range []byte("GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Drip: " + strings.Repeat("d", 1000)) {
				if _, err := conn.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
		connEnds(t, conn, limit)
		conn.Close()
		<-done
	})
	t.Run("body never finished", func(t *testing.T) {
		conn := s.Dial(t)
		_, _ = io.WriteString(conn, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na")
		connEnds(t, conn, limit)
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		conn := s.Dial(t)
		_, _ = io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("first request: %v %v", res, err)
		}
		res.Body.Close()
		connEnds(t, conn, limit)
	})
}

func TestPostgresConnectionsCarryTheStatementTimeout(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.Postgres)
	cfg.DBTimeout = 1234 * time.Millisecond
	db := apptest.OpenDB(t, cfg)
	var got string
	if err := db.Raw("SHOW statement_timeout").Scan(&got).Error; err != nil {
		t.Fatal(err)
	}
	if got != "1234ms" {
		t.Fatalf("statement_timeout %q, want 1234ms (PETSTORE_DB_TIMEOUT)", got)
	}
}

func TestBadSecuritySettingsNameTheVariable(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"PETSTORE_MAX_HEADER_BYTES": "12",
		"PETSTORE_TRUSTED_PROXIES":  "10.0.0.0/8, proxy.internal",
		"PETSTORE_PROXY_HEADER":     "X Forwarded For",
		"PETSTORE_CORS_ORIGINS":     "https://shop.example.com/path",
	} {
		_, err := app.LoadConfig(func(k string) string {
			if k == name {
				return value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s=%q: error %v, want one naming %s", name, value, err, name)
		}
	}
	cfg, err := app.LoadConfig(func(k string) string {
		return map[string]string{
			"PETSTORE_TRUSTED_PROXIES": "10.0.0.0/8, 0:0:0:0:0:0:0:1",
			"PETSTORE_CORS_ORIGINS":    "https://Shop.example.com/, https://*.example.org",
		}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cfg.TrustedProxies, cfg.CORSOrigins); got != "[10.0.0.0/8 ::1] [https://shop.example.com https://*.example.org]" {
		t.Fatalf("parsed %s, want canonical addresses and origins", got)
	}
}

func TestRotatingForwardedForDoesNotEscapeThePerIPLimit(t *testing.T) {
	t.Parallel()
	limit := models.AnonymousLimits.PerMinute
	for _, tc := range []struct {
		name    string
		trusted []string
		limited bool
	}{
		{"from an untrusted peer, every request counts against the peer", nil, true},
		{"from a trusted proxy, each forwarded client has its own window", []string{"127.0.0.1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := apptest.Config(t, testenv.SQLite)
			cfg.TrustedProxies = tc.trusted
			// A stopped clock: the minute window cannot roll over halfway through.
			s := apptest.New(t, cfg, apptest.WithClock(testenv.NewClock(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))))
			s.Headers = http.Header{} // no API key: limited per client IP
			var last *apptest.Response
			for i := range limit + 1 {
				req := s.NewRequest(t, "GET", "/v1/pets", nil)
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i%250+1))
				last = s.Do(t, req)
			}
			code, _ := last.ErrorBody(t)
			if limited := last.StatusCode == 429; limited != tc.limited {
				t.Fatalf("request %d with its own X-Forwarded-For: %d %s; want limited=%v", limit+1, last.StatusCode, code, tc.limited)
			}
		})
	}
}

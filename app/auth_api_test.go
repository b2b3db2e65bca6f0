package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// The clock of these tests stands at 10:20:15 UTC: the minute window ends 45 s later.
var (
	testNow       = time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC)
	testMinuteEnd = time.Date(2030, 1, 2, 10, 21, 0, 0, time.UTC)
)

// startAt starts the service on store with a clock standing at testNow.
func startAt(t *testing.T, cfg app.Config) *apptest.Server {
	t.Helper()
	return apptest.New(t, cfg, apptest.WithClock(testenv.NewClock(testNow)))
}

// cliEnv points the command line at the server's database.
func cliEnv(cfg app.Config) map[string]string {
	env := map[string]string{"PETSTORE_LOG_LEVEL": "error"}
	if cfg.DatabaseURL != "" {
		env["DATABASE_URL"] = cfg.DatabaseURL
	} else {
		env["PETSTORE_DB_PATH"] = cfg.DBPath
	}
	if cfg.MediaDir != "" {
		env["PETSTORE_MEDIA_DIR"] = cfg.MediaDir
	}
	return env
}

func runOK(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	out, stderr, err := run(t, env, args...)
	if err != nil {
		t.Fatalf("petstore %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// wantRateLimit checks the X-RateLimit-* headers of a response.
func wantRateLimit(t *testing.T, res *apptest.Response, limit, remaining int, reset time.Time) {
	t.Helper()
	for h, want := range map[string]string{
		"X-RateLimit-Limit":     strconv.Itoa(limit),
		"X-RateLimit-Remaining": strconv.Itoa(remaining),
		"X-RateLimit-Reset":     strconv.FormatInt(reset.Unix(), 10),
	} {
		if got := res.Header.Get(h); got != want {
			t.Fatalf("%s %s: %s %q, want %q", res.Request.Method, res.Request.URL.Path, h, got, want)
		}
	}
}

// wantError checks the status, the code and the Retry-After header of an error response.
func wantError(t *testing.T, res *apptest.Response, status int, code, retryAfter string) string {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, status, res.Body)
	}
	got, msg := res.ErrorBody(t)
	if got != code {
		t.Fatalf("%s %s: code %q, want %q: %s", res.Request.Method, res.Request.URL.Path, got, code, msg)
	}
	if ra := res.Header.Get("Retry-After"); ra != retryAfter {
		t.Fatalf("%s %s: Retry-After %q, want %q", res.Request.Method, res.Request.URL.Path, ra, retryAfter)
	}
	return msg
}

func TestFreeKeyAdmits60RequestsAMinuteThenAnswers429UntilTheMinuteEnds(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := startAt(t, apptest.Config(t, store))
		c := s.As(s.NewKey(t, "free"))
		for i := 1; i <= 60; i++ {
			res := c.Get(t, "/v1/pets")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("request %d: %d %s", i, res.StatusCode, res.Body)
			}
			wantRateLimit(t, res, 60, 60-i, testMinuteEnd)
		}
		res := c.Get(t, "/v1/pets")
		msg := wantError(t, res, http.StatusTooManyRequests, "rate_limit_exceeded", "45")
		wantRateLimit(t, res, 60, 0, testMinuteEnd)
		if !strings.Contains(msg, "60 requests per minute") {
			t.Fatalf("message %q, want it to name the limit", msg)
		}

		s.Clock.Set(testMinuteEnd)
		res = c.Get(t, "/v1/pets")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("at the reset time: %d %s", res.StatusCode, res.Body)
		}
		wantRateLimit(t, res, 60, 59, testMinuteEnd.Add(time.Minute))
	})
}

func TestFreeKeyHas1000RequestsADayAndWaitsForMidnightUTC(t *testing.T) {
	t.Parallel()
	s := startAt(t, apptest.Config(t, testenv.SQLite))
	c := s.As(s.NewKey(t, "free"))
	midnight := time.Date(2030, 1, 3, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 1000; i++ {
		if i%60 == 1 {
			s.Clock.Advance(time.Minute)
		}
		if res := c.Get(t, "/v1/categories"); res.StatusCode != http.StatusOK {
			t.Fatalf("request %d of the day: %d %s", i, res.StatusCode, res.Body)
		}
	}
	res := c.Get(t, "/v1/categories")
	wait := midnight.Sub(s.Clock.Now())
	msg := wantError(t, res, http.StatusTooManyRequests, "rate_limit_exceeded", strconv.Itoa(int(wait/time.Second)))
	wantRateLimit(t, res, 1000, 0, midnight)
	if !strings.Contains(msg, "1000 requests per day") {
		t.Fatalf("message %q, want it to name the day's limit", msg)
	}
	s.Clock.Set(midnight)
	if res := c.Get(t, "/v1/categories"); res.StatusCode != http.StatusOK {
		t.Fatalf("at midnight UTC: %d %s", res.StatusCode, res.Body)
	}
}

// exhaust sends a Free key's 60 requests of the minute, then n refused ones, which should say
// Retry-After: retryAfter.
func exhaust(t *testing.T, c *apptest.Server, refused int, retryAfter string) {
	t.Helper()
	for i := 1; i <= 60; i++ {
		if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, res.StatusCode, res.Body)
		}
	}
	for i := 1; i <= refused; i++ {
		wantError(t, c.Get(t, "/v1/pets"), http.StatusTooManyRequests, "rate_limit_exceeded", retryAfter)
	}
}

type keyListItem struct {
	ID          int64      `json:"id"`
	Key         string     `json:"key"`
	Client      int64      `json:"client"`
	Scopes      []string   `json:"scopes"`
	State       string     `json:"state"`
	BannedUntil *time.Time `json:"bannedUntil"`
}

func listedKey(t *testing.T, env map[string]string, id int64) keyListItem {
	t.Helper()
	var list []keyListItem
	if err := json.Unmarshal([]byte(runOK(t, env, "keys", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, k := range list {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("key %d is not in keys list", id)
	return keyListItem{}
}

func TestKeyThatKeepsSendingAfterIts429sIsBannedUntilUnbanned(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := startAt(t, apptest.Config(t, store))
		k, plain := s.CreateKey(t, models.NewAPIKey{Name: "noisy", Plan: "free"})
		c := s.As(plain)
		exhaust(t, c, 59, "45")

		// The 60th refusal in the minute (as many as the per-minute limit) bans the key for 15 minutes.
		banEnd := testNow.Add(15 * time.Minute)
		res := c.Get(t, "/v1/pets")
		msg := wantError(t, res, http.StatusTooManyRequests, "api_key_banned", "900")
		wantRateLimit(t, res, 60, 0, banEnd)
		if !strings.Contains(msg, banEnd.Format(time.RFC3339)) {
			t.Fatalf("message %q, want it to say when the ban ends", msg)
		}
		// A new minute does not end it.
		s.Clock.Advance(2 * time.Minute)
		res = c.Get(t, "/v1/categories")
		wantError(t, res, http.StatusTooManyRequests, "api_key_banned", "780")
		wantRateLimit(t, res, 60, 0, banEnd)

		// The ban is stored with the key, so another process sees it and lifts it.
		env := cliEnv(s.Cfg)
		if got := listedKey(t, env, k.ID); got.State != "banned" || got.BannedUntil == nil || !got.BannedUntil.Equal(banEnd) {
			t.Fatalf("keys list shows %+v, want banned until %s", got, banEnd)
		}
		if out := runOK(t, env, "keys", "unban", strconv.FormatInt(k.ID, 10)); !strings.Contains(out, "lifted the ban") {
			t.Fatalf("keys unban said %q", out)
		}
		s.Clock.Advance(s.Cfg.KeyCacheTTL)
		res = c.Get(t, "/v1/pets")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("after the unban reached the instance: %d %s", res.StatusCode, res.Body)
		}
		if got := listedKey(t, env, k.ID); got.State != "active" {
			t.Fatalf("keys list shows %+v after unban, want active", got)
		}
	})
}

func TestBanThresholdAndDurationAreConfigurableAndABanEndsByItself(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.BanThreshold, cfg.BanDuration = 0.5, 2*time.Minute
	s := startAt(t, cfg)
	k, plain := s.CreateKey(t, models.NewAPIKey{Name: "noisy", Plan: "free"})
	c := s.As(plain)
	exhaust(t, c, 29, "45")
	wantError(t, c.Get(t, "/v1/pets"), http.StatusTooManyRequests, "api_key_banned", "120")

	// Unbanned through the instance's own store (as the admin pages do): at once. The minute
	// is still full, and the refusals from before the unban no longer count: only 30 more ban
	// the key again.
	if _, err := s.Keys.Unban(models.WithActor(context.Background(), models.ActorCLI), k.ID); err != nil {
		t.Fatal(err)
	}
	for range 29 {
		wantError(t, c.Get(t, "/v1/pets"), http.StatusTooManyRequests, "rate_limit_exceeded", "45")
	}
	wantError(t, c.Get(t, "/v1/pets"), http.StatusTooManyRequests, "api_key_banned", "120")
	if _, err := s.Keys.Unban(models.WithActor(context.Background(), models.ActorCLI), k.ID); err != nil {
		t.Fatal(err)
	}
	s.Clock.Set(testMinuteEnd)
	exhaust(t, c, 29, "60")
	wantError(t, c.Get(t, "/v1/pets"), http.StatusTooManyRequests, "api_key_banned", "120")
	s.Clock.Advance(2 * time.Minute)
	if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
		t.Fatalf("after the ban's 2 minutes: %d %s", res.StatusCode, res.Body)
	}
}

func TestRevokedAndExpiredKeysAnswer401(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := startAt(t, apptest.Config(t, store))
		ctx := context.Background()

		// Revoked through the instance's own store (as the admin pages do): the next request.
		k, plain := s.CreateKey(t, models.NewAPIKey{Name: "leaked", Plan: "pro"})
		c := s.As(plain)
		if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
			t.Fatalf("before revocation: %d %s", res.StatusCode, res.Body)
		}
		if _, err := s.Keys.Revoke(models.WithActor(ctx, models.ActorCLI), k.ID); err != nil {
			t.Fatal(err)
		}
		res := c.Get(t, "/v1/pets")
		if msg := wantError(t, res, http.StatusUnauthorized, "invalid_api_key", ""); !strings.Contains(msg, "revoked") {
			t.Fatalf("message %q, want it to say the key was revoked", msg)
		}
		if got := res.Header.Get("WWW-Authenticate"); got != `Bearer realm="petstore", error="invalid_token"` {
			t.Fatalf("WWW-Authenticate %q", got)
		}

		// Revoked from the command line (another process): within the key cache's TTL.
		k2, plain2 := s.CreateKey(t, models.NewAPIKey{Name: "old", Plan: "free"})
		c2 := s.As(plain2)
		c2.Get(t, "/v1/pets")
		runOK(t, cliEnv(s.Cfg), "keys", "revoke", strconv.FormatInt(k2.ID, 10))
		s.Clock.Advance(s.Cfg.KeyCacheTTL)
		wantError(t, c2.Get(t, "/v1/pets"), http.StatusUnauthorized, "invalid_api_key", "")

		// Expired: from its expiry on.
		exp := testNow.Add(time.Hour)
		_, plain3 := s.CreateKey(t, models.NewAPIKey{Name: "temporary", Plan: "free", ExpiresAt: &exp})
		c3 := s.As(plain3)
		if res := c3.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
			t.Fatalf("before expiry: %d %s", res.StatusCode, res.Body)
		}
		s.Clock.Set(exp)
		if msg := wantError(t, c3.Get(t, "/v1/pets"), http.StatusUnauthorized, "invalid_api_key", ""); !strings.Contains(msg, "expired") {
			t.Fatalf("message %q, want it to say the key expired", msg)
		}
	})
}

func TestRequestsWithoutAValidKeyAnswer401AndAreLimitedPerClientIP(t *testing.T) {
	t.Parallel()
	s := startAt(t, apptest.Config(t, testenv.SQLite))
	valid := s.NewKey(t, "free")
	wrongSecret := valid[:13] + strings.Repeat("a", len(valid)-13)
	cases := []struct {
		authorization, code, challenge string
	}{
		{"", "missing_api_key", `Bearer realm="petstore"`},
		{"Basic dXNlcjpwYXNz", "missing_api_key", `Bearer realm="petstore"`},
		{"Bearer ", "missing_api_key", `Bearer realm="petstore"`},
		{"Bearer nonsense", "invalid_api_key", `Bearer realm="petstore", error="invalid_token"`},
		{"Bearer psk_aaaaaaaa_" + strings.Repeat("a", 52), "invalid_api_key", `Bearer realm="petstore", error="invalid_token"`},
		{"Bearer " + wrongSecret, "invalid_api_key", `Bearer realm="petstore", error="invalid_token"`},
	}
	sent := 0
	for _, tc := range cases {
		for _, path := range []string{"/v1/pets", "/v1/pets/1", "/v1/no-such-route"} {
			anonymous := s.As("")
			if path == "/v1/no-such-route" {
				anonymous = anonymous.Invalid() // a route the API document does not have
			}
			req := anonymous.NewRequest(t, http.MethodGet, path, nil)
			if tc.authorization != "" {
				req.Header.Set("Authorization", tc.authorization)
			}
			res := anonymous.Do(t, req)
			sent++
			wantError(t, res, http.StatusUnauthorized, tc.code, "")
			if got := res.Header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Fatalf("%q on %s: WWW-Authenticate %q, want %q", tc.authorization, path, got, tc.challenge)
			}
			wantRateLimit(t, res, 60, 60-sent, testMinuteEnd)
			if path == "/v1/pets/1" && res.Header.Get("Deprecation") == "" {
				t.Fatal("getPet's 401 lacks its Deprecation header")
			}
		}
	}
	for ; sent < 60; sent++ {
		s.As("").Get(t, "/v1/pets")
	}
	res := s.As("").Get(t, "/v1/pets")
	wantError(t, res, http.StatusTooManyRequests, "rate_limit_exceeded", "45")
	wantRateLimit(t, res, 60, 0, testMinuteEnd)

	// A valid key from the same address has its own allowance, and the scheme's case is free.
	req := s.NewRequest(t, http.MethodGet, "/v1/pets", nil)
	req.Header.Set("Authorization", "bearer "+valid)
	if res := s.Do(t, req); res.StatusCode != http.StatusOK {
		t.Fatalf("a valid key after the address's allowance is spent: %d %s", res.StatusCode, res.Body)
	}
}

func TestEveryV1ResponseCarriesTheRateLimitHeadersAndNothingElseDoes(t *testing.T) {
	t.Parallel()
	s := startAt(t, apptest.Config(t, testenv.SQLite))
	requests := []struct {
		method, path, contentType string
		status                    int
	}{
		{"GET", "/v1/pets", "", 200},
		{"GET", "/v1/pets?limit=0", "", 400},
		{"GET", "/v1/pets/987654", "", 404},
		{"GET", "/v1/no-such-route", "", 404},
		{"DELETE", "/v1/pets", "", 405},
		{"POST", "/v1/pets", "text/plain", 415},
		// Refused by the HTTP server before any middleware, yet counted by the same gate.
		{"POST", "/v1/pets", "application/json", 413},
	}
	for i, r := range requests {
		body := "x"
		if r.status == 413 {
			body = `{"name":"` + strings.Repeat("x", 65*1024) + `","categoryId":1}`
		}
		req := s.NewRequest(t, r.method, r.path, strings.NewReader(body))
		if r.contentType != "" {
			req.Header.Set("Content-Type", r.contentType)
		}
		// Bodies on GET, bad parameters and unknown routes: off the API document on purpose.
		res := s.Invalid().Do(t, req)
		if res.StatusCode != r.status {
			t.Fatalf("%s %s: %d, want %d: %s", r.method, r.path, res.StatusCode, r.status, res.Body)
		}
		wantRateLimit(t, res, apptest.DefaultKeyLimit, apptest.DefaultKeyLimit-i-1, testMinuteEnd)
	}
	// Without a key, a body over the limit answers like any other keyless request: 401.
	req := s.NewRequest(t, "POST", "/v1/pets", strings.NewReader(`{"name":"`+strings.Repeat("x", 65*1024)+`"}`))
	req.Header.Set("Content-Type", "application/json")
	wantError(t, s.As("").Invalid().Do(t, req), http.StatusUnauthorized, "missing_api_key", "")
	// A body over what the HTTP server reads at all is refused from its Content-Length, before
	// any middleware; the error handler still runs the gate, so the answer is counted alike.
	huge := "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n"
	res := s.Raw(t, huge+"Authorization: Bearer "+s.APIKey+"\r\n\r\n")
	if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusRequestEntityTooLarge || code != "payload_too_large" {
		t.Fatalf("a 50 MB body: %d %s, want 413 payload_too_large", res.StatusCode, res.Body)
	}
	wantRateLimit(t, res, apptest.DefaultKeyLimit, apptest.DefaultKeyLimit-len(requests)-1, testMinuteEnd)
	res = s.Raw(t, huge+"\r\n")
	if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusUnauthorized || code != "missing_api_key" {
		t.Fatalf("a 50 MB body without a key: %d %s, want 401 missing_api_key", res.StatusCode, res.Body)
	}
	for _, path := range []string{"/healthz", "/readyz", "/no-such-page"} {
		if res := s.Get(t, path); res.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("%s carries X-RateLimit-Limit: only /v1 is rate limited", path)
		}
	}
}

func TestEachPlanHasItsLimitsAndAPlanChangeAppliesToTheNextRequest(t *testing.T) {
	t.Parallel()
	s := startAt(t, apptest.Config(t, testenv.SQLite))
	for plan, limit := range map[string]int{"free": 60, "pro": 300, "business": 1000, "enterprise": 1000} {
		res := s.As(s.NewKey(t, plan)).Get(t, "/v1/pets")
		wantRateLimit(t, res, limit, limit-1, testMinuteEnd)
	}
	k, plain := s.CreateKey(t, models.NewAPIKey{Name: "custom", Plan: "enterprise", PerMinute: 5000, PerDay: 7000})
	c := s.As(plain)
	wantRateLimit(t, c.Get(t, "/v1/pets"), 5000, 4999, testMinuteEnd)
	if _, err := s.Keys.SetPlan(models.WithActor(context.Background(), models.ActorCLI), k.ID, "pro", 0, 0); err != nil {
		t.Fatal(err)
	}
	wantRateLimit(t, c.Get(t, "/v1/pets"), 300, 298, testMinuteEnd)
	runOK(t, cliEnv(s.Cfg), "keys", "set-plan", strconv.FormatInt(k.ID, 10), "free")
	s.Clock.Advance(s.Cfg.KeyCacheTTL)
	wantRateLimit(t, c.Get(t, "/v1/pets"), 60, 57, testMinuteEnd)
}

// TestHundredConcurrentRequestsWithAFreeKeyGetExactly60Successes holds on the in-memory
// limiter and on Redis, also when the requests are spread over two instances sharing it.
func TestHundredConcurrentRequestsWithAFreeKeyGetExactly60Successes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		redis     bool
		instances int
	}{
		{"memory", false, 1},
		{"redis", true, 1},
		{"redis, two instances", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := apptest.Config(t, testenv.SQLite)
			if tc.redis {
				cfg.RedisURL, cfg.RedisPrefix = testenv.RedisURL(t), testenv.RedisPrefix(t)
			}
			servers := make([]*apptest.Server, tc.instances)
			for i := range servers {
				servers[i] = apptest.New(t, cfg)
			}
			key := servers[0].NewKey(t, "free")
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				counts = map[int]int{}
			)
			for i := range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res := servers[i%tc.instances].As(key).Get(t, "/v1/categories")
					mu.Lock()
					counts[res.StatusCode]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			if counts[200] != 60 || counts[429] != 40 {
				t.Fatalf("statuses %v, want exactly 60 × 200 and 40 × 429", counts)
			}
		})
	}
}

// syncBuffer collects the log lines the server writes from its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestUnreachableRedisLeavesTheServiceAnsweringWithCountsOfItsOwn(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.RedisURL = "redis://127.0.0.1:1/0" // nothing listens on port 1
	var logs syncBuffer
	s := apptest.New(t, cfg, apptest.WithClock(testenv.NewClock(testNow)), apptest.WithLog(slog.New(slog.NewJSONHandler(&logs, nil))))
	c := s.As(s.NewKey(t, "free"))
	exhaust(t, c, 1, "45")

	res := s.Get(t, "/readyz")
	if res.StatusCode != http.StatusOK || !strings.Contains(string(res.Body), `"ratelimit":"degraded: redis unreachable`) {
		t.Fatalf("/readyz: %d %s, want 200 reporting the rate limiter degraded", res.StatusCode, res.Body)
	}
	if strings.Contains(string(res.Body), "127.0.0.1:1") {
		t.Fatalf("/readyz shows Redis's address: %s", res.Body)
	}
	if !strings.Contains(logs.String(), `"level":"WARN","msg":"rate limiter: Redis does not answer`) {
		t.Fatalf("no warning in the log:\n%s", logs.String())
	}
}

func TestLastUsedTimesAreWrittenInBatchesNotPerRequest(t *testing.T) {
	t.Parallel()
	s := startAt(t, apptest.Config(t, testenv.SQLite))
	k, plain := s.CreateKey(t, models.NewAPIKey{Name: "busy", Plan: "pro"})
	var writes sync.Map
	if err := s.DB.Callback().Update().After("gorm:update").Register("test:count_key_writes", func(db *gorm.DB) {
		if db.Statement.Table == "api_keys" {
			n, _ := writes.LoadOrStore("n", new(int))
			*n.(*int)++
		}
	}); err != nil {
		t.Fatal(err)
	}
	c := s.As(plain)
	for range 50 {
		s.Clock.Advance(time.Second)
		if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", res.StatusCode, res.Body)
		}
	}
	last := s.Clock.Now()
	got, err := s.Keys.Get(context.Background(), k.ID)
	if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(last) {
		t.Fatalf("last used %v (%v), want %s", got.LastUsedAt, err, last)
	}
	if err := s.App.Shutdown(); err != nil {
		t.Fatal(err)
	}
	var stored models.APIKey
	if err := s.DB.Take(&stored, k.ID).Error; err != nil || stored.LastUsedAt == nil || !stored.LastUsedAt.Equal(last) {
		t.Fatalf("stored last used %v (%v), want %s after shutdown", stored.LastUsedAt, err, last)
	}
	n, _ := writes.Load("n")
	if n == nil || *n.(*int) > 2 {
		t.Fatalf("%v writes to api_keys for 50 requests, want at most 2 (the first use and shutdown)", n)
	}
}

func TestARepeatedWrongKeyCostsOneDatabaseReadPerCacheTTL(t *testing.T) {
	t.Parallel()
	s := startAt(t, apptest.Config(t, testenv.SQLite))
	var reads sync.Map
	if err := s.DB.Callback().Query().After("gorm:query").Register("test:count_key_reads", func(db *gorm.DB) {
		if db.Statement.Table == "api_keys" {
			n, _ := reads.LoadOrStore("n", new(int))
			*n.(*int)++
		}
	}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n, _ := reads.Load("n")
		if n == nil {
			return 0
		}
		return *n.(*int)
	}
	_, valid := s.CreateKey(t, models.NewAPIKey{Name: "real", Plan: "pro"})
	wrong := valid[:len(valid)-4] + "aaaa"
	c := s.As(wrong)
	for range 5 {
		wantError(t, c.Get(t, "/v1/pets"), http.StatusUnauthorized, "invalid_api_key", "")
	}
	if n := count(); n != 1 {
		t.Fatalf("%d reads of api_keys for 5 requests with one wrong key, want 1", n)
	}
	s.Clock.Advance(s.Cfg.KeyCacheTTL)
	wantError(t, c.Get(t, "/v1/pets"), http.StatusUnauthorized, "invalid_api_key", "")
	if n := count(); n != 2 {
		t.Fatalf("%d reads of api_keys after the TTL, want 2", n)
	}
	if res := s.As(valid).Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
		t.Fatalf("the real key after a wrong one with its prefix: %d %s", res.StatusCode, res.Body)
	}
}

func TestKeysCommandIssuesListsRevokesAndChangesPlans(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	env := cliEnv(cfg)
	var created struct {
		ID        int64  `json:"id"`
		Key       string `json:"key"`
		Name      string `json:"name"`
		Plan      string `json:"plan"`
		PerMinute int    `json:"perMinute"`
	}
	out := runOK(t, env, "keys", "create", "--name", "demo", "--plan", "free", "--json")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.ID < 1 || created.Name != "demo" || created.Plan != "free" || created.PerMinute != 60 {
		t.Fatalf("keys create --json printed %s (%v)", out, err)
	}
	plainOut, stderr, err := run(t, env, "keys", "create", "--name", "second", "--plan", "enterprise", "--per-minute", "500", "--per-day", "9000")
	second := strings.TrimSpace(plainOut)
	if err != nil || !strings.HasPrefix(second, "psk_") || strings.Contains(second, "\n") || !strings.Contains(stderr, "shown only this once") {
		t.Fatalf("keys create printed %q, %q (%v); want the key alone on standard output", plainOut, stderr, err)
	}

	// The key works against the service on the same database.
	s := apptest.New(t, cfg)
	res := s.As(created.Key).Get(t, "/v1/pets")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the new key: %d %s", res.StatusCode, res.Body)
	}

	for _, args := range [][]string{{"keys", "list"}, {"keys", "list", "--json"}} {
		out := runOK(t, env, args...)
		if strings.Contains(out, created.Key) || strings.Contains(out, second) || strings.Contains(out, created.Key[13:]) {
			t.Fatalf("%s shows a secret:\n%s", strings.Join(args, " "), out)
		}
		if !strings.Contains(out, created.Key[:12]) || !strings.Contains(out, "enterprise") {
			t.Fatalf("%s does not show the keys' prefixes and plans:\n%s", strings.Join(args, " "), out)
		}
	}
	id := strconv.FormatInt(created.ID, 10)
	if out := runOK(t, env, "keys", "set-plan", id, "enterprise", "--per-minute", "100", "--per-day", "1000"); !strings.Contains(out, "enterprise (100 per minute, 1000 per day)") {
		t.Fatalf("keys set-plan said %q", out)
	}
	if out := runOK(t, env, "keys", "unban", id); !strings.Contains(out, "was not banned") {
		t.Fatalf("keys unban of a key that is not banned said %q", out)
	}
	if out := runOK(t, env, "keys", "revoke", id); !strings.Contains(out, "revoked") {
		t.Fatalf("keys revoke said %q", out)
	}
	if got := listedKey(t, env, created.ID); got.State != "revoked" || got.Key != "" {
		t.Fatalf("keys list --json shows %+v, want revoked and no key", got)
	}

	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"keys", "create", "--plan", "free"}, "name"},
		{[]string{"keys", "create", "--name", "x", "--plan", "gold"}, "plan"},
		{[]string{"keys", "create", "--name", "x", "--plan", "enterprise"}, "--per-minute"},
		{[]string{"keys", "create", "--name", "x", "--plan", "free", "--per-day", "5"}, "--per-day"},
		{[]string{"keys", "create", "--name", "x", "--plan", "free", "--expires", "tomorrow"}, "RFC 3339"},
		{[]string{"keys", "create", "--name", "x", "--plan", "free", "--expires", "2001-01-01T00:00:00Z"}, "future"},
		{[]string{"keys", "revoke", "999"}, "not found"},
		{[]string{"keys", "revoke", "abc"}, "ID"},
		{[]string{"keys", "set-plan", id}, "ID PLAN"},
		{[]string{"keys", "rotate"}, "unknown subcommand"},
		{[]string{"keys"}, "subcommand"},
	} {
		_, _, err := run(t, env, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Fatalf("petstore %s: error %v, want one mentioning %q", strings.Join(tc.args, " "), err, tc.mention)
		}
	}
	if stdout, _, err := run(t, env, "keys", "create", "--help"); err != nil || !strings.Contains(stdout, "-per-minute") {
		t.Fatalf("keys create --help: %v\n%s", err, stdout)
	}
}

func TestBadBanAndCacheSettingsNameTheVariable(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"PETSTORE_BAN_THRESHOLD": "0",
		"PETSTORE_BAN_DURATION":  "forever",
		"PETSTORE_KEY_CACHE_TTL": "-5s",
		"REDIS_URL":              "redis://127.0.0.1:6379/notanumber",
	} {
		_, _, err := run(t, map[string]string{name: value}, "keys", "list")
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s=%q: error %v, want one naming %s", name, value, err, name)
		}
	}
}

func TestKeysAreRandomAndNeitherStoredNorLoggedInFull(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.BanThreshold = 0.1
	s := apptest.New(t, cfg, apptest.WithClock(testenv.NewClock(testNow)), apptest.WithLog(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	plain := s.NewKey(t, "free")
	if plain == s.NewKey(t, "free") || len(plain) != 65 || !strings.HasPrefix(plain, "psk_") {
		t.Fatalf("key %q: want psk_, an 8-character prefix, _ and 52 base32 characters (260 bits), different each time", plain)
	}
	secret := plain[13:]
	exhaust(t, s.As(plain), 5, "45")
	wantError(t, s.As(plain).Get(t, "/v1/pets"), http.StatusTooManyRequests, "api_key_banned", "900") // logged
	s.As(plain[:64]+"x").Get(t, "/v1/pets")

	rows, err := s.DB.Raw("SELECT * FROM api_keys").Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if strings.Contains(fmt.Sprint(*v.(*any)), secret) {
				t.Fatalf("column %s holds the key's secret", cols[i])
			}
		}
	}
	if !strings.Contains(logs.String(), "API key banned") || !strings.Contains(logs.String(), plain[:12]) {
		t.Fatalf("the ban is not logged with the key's prefix:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), secret) || strings.Contains(logs.String(), secret[:20]) {
		t.Fatal("the log holds the key's secret")
	}
}

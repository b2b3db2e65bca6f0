package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// loginServer is adminServer behind a proxy on this machine that the service trusts, so each
// test request can come from an address of its choosing (X-Forwarded-For).
func loginServer(t *testing.T, store testenv.Store) *apptest.Server {
	t.Helper()
	cfg := loginConfig(t, store)
	cfg.TrustedProxies = []string{"127.0.0.1"}
	s := apptest.New(t, cfg)
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	s.CreateStaff(t, "sam", staffPassword, models.RoleStaff)
	return s
}

// loginConfig gives a login the time bcrypt takes at its own cost under the race detector on a
// busy machine, which can outlast a request's database deadline (5 s): the login would answer
// the timeout's 503, which is not what these tests are about.
func loginConfig(t *testing.T, store testenv.Store) app.Config {
	cfg := apptest.Config(t, store)
	cfg.DBTimeout = time.Minute
	return cfg
}

// loginAttempt is a login form read from addr, ready to be posted from there.
type loginAttempt struct {
	b   *apptest.Browser
	req *http.Request
}

func prepareLogin(t *testing.T, s *apptest.Server, addr, username, password string) loginAttempt {
	t.Helper()
	b := s.NewBrowser(t)
	get := s.NewRequest(t, http.MethodGet, "/admin/login", nil)
	get.Header.Set("X-Forwarded-For", addr)
	b.Do(t, get)
	form := url.Values{"username": {username}, "password": {password}, "_csrf": {b.CSRF}}
	req := s.NewRequest(t, http.MethodPost, "/admin/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", addr)
	return loginAttempt{b: b, req: req}
}

// loginFrom posts the login form from addr and returns the answer.
func loginFrom(t *testing.T, s *apptest.Server, addr, username, password string) *apptest.Page {
	t.Helper()
	a := prepareLogin(t, s, addr, username, password)
	return a.b.Do(t, a.req)
}

// burst posts every attempt at once and counts the answers by status; every 429 and 503 must
// say when to try again.
func burst(t *testing.T, attempts []loginAttempt) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, a := range attempts {
		wg.Go(func() {
			<-start
			res, err := a.b.Client.Do(a.req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if (res.StatusCode == 429 || res.StatusCode == 503) && res.Header.Get("Retry-After") == "" {
				t.Errorf("a %d without Retry-After", res.StatusCode)
			}
			mu.Lock()
			statuses[res.StatusCode]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return statuses
}

// failedLogins counts the password checks that failed for username: each one is in the audit log.
func failedLogins(t *testing.T, s *apptest.Server, username string) int64 {
	t.Helper()
	var n int64
	if err := s.DB.Model(&models.AuditEntry{}).Where("action = ? AND object_name = ?", models.AuditLogInFailed, username).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFortyParallelWrongPasswordsCheckAtMostFiveAndTheRestAnswer429(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		attempts := make([]loginAttempt, 40)
		for i := range attempts {
			attempts[i] = prepareLogin(t, s, "192.0.2.7", "ada", fmt.Sprintf("wrong password %d", i))
		}
		got := burst(t, attempts)
		checked := failedLogins(t, s, "ada")
		if got[401] < 1 || got[401] > 5 || got[401]+got[429] != 40 || checked != int64(got[401]) {
			t.Fatalf("40 parallel wrong passwords: %v, %d checked; want at most 5 answered 401 (each checked once) and the rest 429", got, checked)
		}
		// The right password waits too now, from that address only.
		p := loginFrom(t, s, "192.0.2.7", "ada", adminPassword)
		wantStatus(t, p, http.StatusTooManyRequests)
		if !strings.Contains(p.Text("form-error"), "Too many failed logins for this account from this address. Try again in 15 minutes.") || p.Header.Get("Retry-After") != "900" {
			t.Fatalf("after the burst, the right password says %q, Retry-After %q", p.Text("form-error"), p.Header.Get("Retry-After"))
		}
		wantStatus(t, loginFrom(t, s, "198.51.100.7", "ada", adminPassword), http.StatusSeeOther)
		// Another account from the same address is not locked out.
		wantStatus(t, loginFrom(t, s, "192.0.2.7", "sam", staffPassword), http.StatusSeeOther)
	})
}

func TestWithRedisTwoInstancesShareOneBudgetOfLoginAttempts(t *testing.T) {
	t.Parallel()
	cfg := loginConfig(t, testenv.Postgres)
	cfg.TrustedProxies = []string{"127.0.0.1"}
	cfg.RedisURL = testenv.RedisURL(t)
	cfg.RedisPrefix = testenv.RedisPrefix(t)
	first, second := apptest.New(t, cfg), apptest.New(t, cfg)
	first.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	var attempts []loginAttempt
	for i := range 20 {
		attempts = append(attempts, prepareLogin(t, first, "192.0.2.8", "ada", fmt.Sprintf("wrong password %d", i)),
			prepareLogin(t, second, "192.0.2.8", "ada", fmt.Sprintf("wrong password %d", i)))
	}
	got := burst(t, attempts)
	if got[401] < 1 || got[401] > 5 || got[401]+got[429] != 40 {
		t.Fatalf("40 parallel wrong passwords on two instances: %v; want at most 5 answered 401 in all, the rest 429", got)
	}
	wantStatus(t, loginFrom(t, second, "192.0.2.8", "ada", adminPassword), http.StatusTooManyRequests)
}

func TestGuessesFromManyAddressesAreSlowedButTheOwnersAddressStillLogsIn(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		// Ada signs in from her office; the service remembers the address.
		wantStatus(t, loginFrom(t, s, "192.0.2.10", "ada", adminPassword), http.StatusSeeOther)
		var attempts []loginAttempt
		for i := range 30 {
			attempts = append(attempts, prepareLogin(t, s, fmt.Sprintf("198.51.100.%d", i+1), "ada", fmt.Sprintf("guess %d", i)))
		}
		got := burst(t, attempts)
		if checked := failedLogins(t, s, "ada"); checked > 9 || got[429] < 21 || got[401] != int(checked) {
			t.Fatalf("30 guesses from 30 addresses: %v, %d checked; want at most 9 checked (10 a minute from new addresses, one was ada's), at least 21 answered 429", got, checked)
		}
		// From her own address Ada still logs in; from a new one she waits like the guessers.
		wantStatus(t, loginFrom(t, s, "192.0.2.10", "ada", adminPassword), http.StatusSeeOther)
		p := loginFrom(t, s, "203.0.113.5", "ada", adminPassword)
		wantStatus(t, p, http.StatusTooManyRequests)
		if !strings.Contains(p.Text("form-error"), "Too many logins for this account from new addresses.") {
			t.Fatalf("a new address says %q", p.Text("form-error"))
		}
	})
}

func TestAddressesOfOneIPv6Slash64ShareTheirLimits(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		for i := range 5 {
			p := loginFrom(t, s, fmt.Sprintf("2001:db8:1:2::%x", i+1), "ada", "wrong password "+fmt.Sprint(i))
			wantStatus(t, p, http.StatusUnauthorized)
		}
		wantStatus(t, loginFrom(t, s, "2001:db8:1:2:ffff::1", "ada", adminPassword), http.StatusTooManyRequests)
		wantStatus(t, loginFrom(t, s, "2001:db8:1:3::1", "ada", adminPassword), http.StatusSeeOther)

		// On /v1, requests without a valid key are limited per address as the Free plan is
		// (60 a minute): one /64 has one such limit. A stopped clock keeps the 61 requests in
		// one minute, which on the wall clock they may straddle.
		cfg := loginConfig(t, store)
		cfg.TrustedProxies = []string{"127.0.0.1"}
		anon := apptest.New(t, cfg, apptest.WithClock(testenv.NewClock(testNow))).As("")
		for i := range 61 {
			req := anon.NewRequest(t, http.MethodGet, "/v1/pets", nil)
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("2001:db8:9:9::%x", i+1))
			res := anon.Do(t, req)
			if want := map[bool]int{true: 401, false: 429}[i < 60]; res.StatusCode != want {
				t.Fatalf("keyless request %d from the /64: %d, want %d", i+1, res.StatusCode, want)
			}
		}
		req := anon.NewRequest(t, http.MethodGet, "/v1/pets", nil)
		req.Header.Set("X-Forwarded-For", "2001:db8:9:a::1")
		if res := anon.Do(t, req); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a keyless request from the next /64: %d, want 401", res.StatusCode)
		}
	})
}

func TestAUsernameOver64CharactersIsRefusedUncountedUnloggedAndNotShownBack(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		huge := strings.Repeat("x", 60_000)
		// More than the address's budget of 50: none of them counts.
		for range 60 {
			p := loginFrom(t, s, "192.0.2.20", huge, "whatever password")
			wantStatus(t, p, http.StatusBadRequest)
			if p.Text("form-error") != "A username has at most 64 characters." || strings.Contains(string(p.Body), "xxxxxxxxxxxxxxxxxxxx") {
				t.Fatalf("a 60,000-character username: %q, and the page shows it back: %v", p.Text("form-error"), strings.Contains(string(p.Body), "xxxxxxxxxxxxxxxxxxxx"))
			}
		}
		wantStatus(t, loginFrom(t, s, "192.0.2.20", strings.Repeat("é", 65), "whatever password"), http.StatusBadRequest)
		wantStatus(t, loginFrom(t, s, "192.0.2.20", strings.Repeat("e", 64), "whatever password"), http.StatusUnauthorized)
		wantStatus(t, loginFrom(t, s, "192.0.2.20", "ada", adminPassword), http.StatusSeeOther)
		for _, line := range strings.Split(s.Logs.String(), "\n") {
			if len(line) > 2000 || strings.Contains(line, "xxxxxxxxxxxxxxxxxxxx") {
				t.Fatalf("a log line of %d bytes holds the username: %.200s", len(line), line)
			}
		}
		if n := failedLogins(t, s, huge); n != 0 {
			t.Fatalf("%d audit entries for the long username, want none", n)
		}
	})
}

func TestCommonBreachedAndUsernamePasswordsAreRefused(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)
		ada.Get(t, "/admin/staff")
		for _, tc := range []struct{ password, says string }{
			{"aaaaaaaaaaaa", "too easy to guess"},
			{"password1234", "too easy to guess"},
			{"qwertyuiop123", "too easy to guess"},
			{"annann123456", "must not contain the username"},
			{"Ann is my name!", "must not contain the username"},
		} {
			p := ada.Post(t, "/admin/staff", url.Values{"username": {"ann"}, "password": {tc.password}, "role": {"staff"}})
			if p.StatusCode != http.StatusBadRequest || !strings.Contains(p.Text("error-password"), tc.says) {
				t.Fatalf("new account ann with %q: %d %q, want 400 saying %q", tc.password, p.StatusCode, p.Text("error-password"), tc.says)
			}
		}
		var n int64
		s.DB.Model(&models.Staff{}).Where("username = ?", "ann").Count(&n)
		if n != 0 {
			t.Fatal("a refused password made the account")
		}
		p := ada.Post(t, "/admin/staff", url.Values{"username": {"ann"}, "password": {"tulip ledger orbit"}, "role": {"staff"}})
		wantStatus(t, p, http.StatusSeeOther)

		// The account page refuses them too.
		ada.Get(t, "/admin/account")
		p = ada.Post(t, "/admin/account/password", url.Values{"current": {adminPassword}, "password": {"iloveyou1234"}, "repeat": {"iloveyou1234"}})
		if p.StatusCode != http.StatusBadRequest || !strings.Contains(p.Text("error-password"), "too easy to guess") {
			t.Fatalf("a common password on the account page: %d %q", p.StatusCode, p.Text("error-password"))
		}
	})
}

func TestTheGeneratedFirstAdminPasswordMustBeChangedAtTheFirstLogin(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, loginConfig(t, store))
		password, err := models.NewStaffStore(s.DB).EnsureAdmin(context.Background(), "")
		if err != nil || password == "" {
			t.Fatalf("first admin: %q %v", password, err)
		}
		b := s.NewBrowser(t)
		b.Login(t, "admin", password)
		for _, path := range []string{"/admin", "/admin/pets", "/admin/staff", "/admin/keys", "/admin/audit"} {
			p := b.Get(t, path)
			if p.StatusCode != http.StatusSeeOther || p.Location() != "/admin/account" {
				t.Fatalf("GET %s with the generated password: %d to %q, want the account page", path, p.StatusCode, p.Location())
			}
		}
		if b.Get(t, "/admin/account").TestID("must-change").Length() != 1 {
			t.Fatal("the account page does not say the password must change")
		}
		p := b.Post(t, "/admin/account/password", url.Values{"current": {password}, "password": {"tulip ledger orbit"}, "repeat": {"tulip ledger orbit"}})
		wantStatus(t, p, http.StatusSeeOther)
		wantStatus(t, b.Get(t, "/admin/staff"), http.StatusOK)
	})
}

func TestLoginsFailuresLockOutsAndLogoutsAreInTheAuditLog(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		wantStatus(t, loginFrom(t, s, "192.0.2.30", "nobody", "some password"), http.StatusUnauthorized)
		for i := range 5 {
			wantStatus(t, loginFrom(t, s, "192.0.2.31", "sam", fmt.Sprintf("guess %d", i)), http.StatusUnauthorized)
		}
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)
		ada.Get(t, "/admin/logout")
		wantStatus(t, ada.Post(t, "/admin/logout", nil), http.StatusSeeOther)
		ada.Login(t, "ada", adminPassword)

		entries := auditEntries(ada.Get(t, "/admin/audit"))
		var lines []string
		for _, e := range entries {
			lines = append(lines, e.actor+" | "+e.object+" | "+e.action+" | "+e.changes)
		}
		got := strings.Join(lines, "\n")
		for _, want := range []string{
			"ada | Staff #1 · ada | signed in | Address 127.0.0.1",
			"ada | Staff #1 · ada | signed out | Address 127.0.0.1",
			"someone not signed in | Staff #2 · sam | failed to sign in | Address 192.0.2.31",
			"someone not signed in | Staff · nobody | failed to sign in | Address 192.0.2.30",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("the audit log lacks %q:\n%s", want, got)
			}
		}
		if !strings.Contains(got, "someone not signed in | Staff #2 · sam | locked out | Address 192.0.2.31; Locked out until ") {
			t.Errorf("the audit log lacks sam's lock-out:\n%s", got)
		}
	})
}

func TestAFloodOfLoginsLeavesTheAPIItsCores(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := loginServer(t, store)
		// Names that are no account's: each is checked against a hash of bcrypt's full cost.
		var attempts []loginAttempt
		for i := range 100 {
			attempts = append(attempts, prepareLogin(t, s, fmt.Sprintf("198.18.%d.%d", i/250, i%250+1), fmt.Sprintf("nobody%d", i), "some password"))
		}
		// The API's answers meanwhile, one after another.
		var latencies []time.Duration
		done := make(chan map[int]int)
		start := time.Now()
		go func() { done <- burst(t, attempts) }()
		var got map[int]int
		for got == nil {
			select {
			case got = <-done:
			default:
				t0 := time.Now()
				if res := s.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
					t.Fatalf("GET /v1/pets during the flood: %d", res.StatusCode)
				}
				latencies = append(latencies, time.Since(t0))
			}
		}
		took := time.Since(start)
		slices.Sort(latencies)
		median := latencies[len(latencies)/2]
		t.Logf("100 parallel logins: %v in %v; /v1 meanwhile: median %v, slowest %v of %d", got, took, median, latencies[len(latencies)-1], len(latencies))
		if got[503] < 1 || got[401]+got[503] != 100 {
			t.Fatalf("100 parallel logins: %v, want 401s for the checked ones and 503s for the rest", got)
		}
		var checked int64
		s.DB.Model(&models.AuditEntry{}).Where("action = ?", models.AuditLogInFailed).Count(&checked)
		if checked != int64(got[401]) {
			t.Fatalf("%d passwords checked, %d answered 401", checked, got[401])
		}
	})
}

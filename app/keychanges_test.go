package app_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// propagationBound is how long a test waits for a change to reach an instance: far above the
// second the service promises, so a busy machine does not fail the test, and far below the key
// cache's TTL in these tests (an hour), so only the news of the change can explain an instance
// seeing it. The latencies measured are logged.
const propagationBound = 10 * time.Second

// waitFor polls seen until it holds and returns how long that took, failing the test after
// propagationBound.
func waitFor(t *testing.T, what string, seen func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !seen() {
		if time.Since(start) > propagationBound {
			t.Fatalf("%s: not seen within %s", what, propagationBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

func TestKeyChangesMadeElsewhereReachEveryRunningInstanceAtOnce(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		cfg.KeyCacheTTL = time.Hour
		cfg.DBMaxOpenConns, cfg.DBMaxIdleConns = 4, 4
		// One clock for both instances, standing still: no window, ban or cache entry ends by
		// itself during the test.
		clock := testenv.NewClock(testNow)
		a := apptest.New(t, cfg, apptest.WithClock(clock))
		b := apptest.New(t, cfg, apptest.WithClock(clock))
		k, plain := a.CreateKey(t, models.NewAPIKey{Name: "partner", Plan: "enterprise", PerMinute: 1_000_000, PerDay: 1_000_000})
		instances := map[string]*apptest.Server{"A": a.As(plain), "B": b.As(plain)}
		status := func(s *apptest.Server, path string) int { return s.Get(t, path).StatusCode }
		for name, s := range instances {
			if got := status(s, "/v1/categories"); got != http.StatusOK {
				t.Fatalf("%s before any change: %d", name, got) // both now hold the key in their caches
			}
		}
		env := cliEnv(cfg)
		id := strconv.FormatInt(k.ID, 10)
		// everywhere waits until both instances show the change, and returns how long after the
		// change was made (the command returned) the later of the two showed it.
		everywhere := func(what string, shows func(s *apptest.Server) bool) time.Duration {
			t.Helper()
			start := time.Now()
			for name, s := range instances {
				waitFor(t, name+" "+what, func() bool { return shows(s) })
			}
			return time.Since(start)
		}

		// A ban decided by instance A (its gate stores it through its key store): B refuses the
		// key too. B's own counts are far below any limit, so only the news can explain it.
		if _, err := a.Keys.Ban(context.Background(), k.ID, testNow.Add(15*time.Minute)); err != nil {
			t.Fatal(err)
		}
		ban := waitFor(t, "B refusing the key A banned", func() bool {
			res := instances["B"].Get(t, "/v1/categories")
			return res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "900"
		})

		// Unbanned, then moved to another plan, from the command line.
		runOK(t, env, "keys", "unban", id)
		unban := everywhere("admitting the unbanned key", func(s *apptest.Server) bool { return status(s, "/v1/categories") == http.StatusOK })
		runOK(t, env, "keys", "set-plan", id, "business")
		plan := everywhere("counting on the new plan", func(s *apptest.Server) bool {
			return s.Get(t, "/v1/categories").Header.Get("X-RateLimit-Limit") == "1000"
		})

		// Scopes and revocation changed from the command line.
		runOK(t, env, "keys", "set-scopes", id, "--scopes", "orders:read")
		scopes := everywhere("refusing pets:read", func(s *apptest.Server) bool { return status(s, "/v1/categories") == http.StatusForbidden })
		runOK(t, env, "keys", "revoke", id)
		revoke := everywhere("refusing the revoked key", func(s *apptest.Server) bool { return status(s, "/v1/store/orders") == http.StatusUnauthorized })
		t.Logf("%s: seen by both instances after: ban %s, unban %s, plan %s, scopes %s, revocation %s (the cache TTL is %s)",
			store, ban.Round(time.Millisecond), unban.Round(time.Millisecond), plan.Round(time.Millisecond),
			scopes.Round(time.Millisecond), revoke.Round(time.Millisecond), cfg.KeyCacheTTL)
	})
}

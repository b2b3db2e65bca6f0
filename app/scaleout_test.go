package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// twoInstances starts two instances of the service on different ports sharing one PostgreSQL
// database (and one Redis, as a deployment behind a load balancer does).
func twoInstances(t *testing.T) (*apptest.Server, *apptest.Server) {
	t.Helper()
	cfg := apptest.Config(t, testenv.Postgres)
	cfg.RedisURL, cfg.RedisPrefix = testenv.RedisURL(t), testenv.RedisPrefix(t)
	// Pools sized as in production (instances × pool below max_connections): the test server is
	// shared by parallel tests, and a burst on two default pools of 20 can exhaust it.
	cfg.DBMaxOpenConns, cfg.DBMaxIdleConns = 4, 4
	a, b := apptest.New(t, cfg), apptest.New(t, cfg)
	if a.URL == b.URL {
		t.Fatalf("both instances listen on %s", a.URL)
	}
	return a, b
}

func TestScaleOutAPetCreatedOnOneInstanceIsReadOnTheOther(t *testing.T) {
	t.Parallel()
	a, b := twoInstances(t)

	onA := createPet(t, a, map[string]any{"name": "Made on A", "categoryId": 1})
	var got pet
	res := b.Get(t, fmt.Sprintf("/v1/pets/%d", onA.ID))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("B: GET /v1/pets/%d = %d, want 200: %s", onA.ID, res.StatusCode, res.Body)
	}
	res.JSON(t, &got)
	if got != onA {
		t.Fatalf("B reads %+v, want what A created: %+v", got, onA)
	}

	onB := createPet(t, b, map[string]any{"name": "Made on B", "categoryId": 2, "status": "pending"})
	for _, s := range []*apptest.Server{a, b} {
		var list []pet
		s.Get(t, "/v1/pets").JSON(t, &list)
		if len(list) != 2 || list[0] != onA || list[1] != onB {
			t.Fatalf("%s: GET /v1/pets = %+v, want [%+v %+v] on both instances", s.URL, list, onA, onB)
		}
	}
}

func TestScaleOutAKeysRateLimitHoldsAcrossBothInstances(t *testing.T) {
	t.Parallel()
	a, b := twoInstances(t)
	key := a.NewKey(t, "free") // 60 requests a minute
	servers := []*apptest.Server{a.As(key), b.As(key)}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[string]int{}
	)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := servers[i%2].Get(t, "/v1/pets")
			mu.Lock()
			defer mu.Unlock()
			statuses[fmt.Sprintf("%s %d", []string{"A", "B"}[i%2], res.StatusCode)]++
			if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusTooManyRequests {
				t.Errorf("%s: %d %s", []string{"A", "B"}[i%2], res.StatusCode, res.Body)
			}
		}()
	}
	wg.Wait()
	ok := statuses["A 200"] + statuses["B 200"]
	refused := statuses["A 429"] + statuses["B 429"]
	if ok != 60 || refused != 40 {
		t.Fatalf("statuses %v: %d successes and %d refusals, want exactly 60 and 40 over both instances", statuses, ok, refused)
	}
	if statuses["A 200"] == 0 || statuses["B 200"] == 0 {
		t.Fatalf("statuses %v: both instances should have served some of the 60", statuses)
	}
}

func TestScaleOutAnIdempotencyKeyUsedOnOneInstanceReplaysOnTheOther(t *testing.T) {
	t.Parallel()
	a, b := twoInstances(t)
	key := a.NewKey(t, "pro")
	onA, onB := a.As(key), b.As(key)
	const body = `{"name":"Once","categoryId":1}`

	first := postWithKey(t, onA, "/v1/pets", "scale-out-1", body)
	if first.StatusCode != http.StatusCreated {
		t.Fatalf("A: %d %s, want 201", first.StatusCode, first.Body)
	}
	replay := postWithKey(t, onB, "/v1/pets", "scale-out-1", body)
	if replay.StatusCode != http.StatusCreated || string(replay.Body) != string(first.Body) ||
		replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("B replays %d %s (Idempotent-Replayed %q), want A's 201 %s marked true",
			replay.StatusCode, replay.Body, replay.Header.Get("Idempotent-Replayed"), first.Body)
	}
	if res := postWithKey(t, onB, "/v1/pets", "scale-out-1", `{"name":"Other","categoryId":1}`); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("B, same key and another body: %d %s, want 422", res.StatusCode, res.Body)
	}
	if n := countPets(t, a); n != 1 {
		t.Fatalf("%d pets, want the one A created", n)
	}
}

func TestScaleOutAStaffSessionMadeOnOneInstanceWorksOnTheOther(t *testing.T) {
	t.Parallel()
	a, b := twoInstances(t)
	a.CreateStaff(t, "sam", "staff password 1", models.RoleStaff)
	onA := a.NewBrowser(t)
	onA.Login(t, "sam", "staff password 1")
	onB := b.NewBrowser(t)
	onB.Client = onA.Client // the same browser, its session cookie now sent to the other instance

	if p := onB.Get(t, "/admin/pets/new"); p.StatusCode != http.StatusOK {
		t.Fatalf("B: GET /admin/pets/new with A's session = %d (Location %q), want 200", p.StatusCode, p.Location())
	}
	// A form B served posts to A: its CSRF token lives in the shared session.
	onA.CSRF = onB.CSRF
	if p := onA.Post(t, "/admin/pets", url.Values{"name": {"Across"}, "categoryId": {"1"}, "status": {"available"}}); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("A: POST /admin/pets with B's form = %d, want 303", p.StatusCode)
	}
	// Logging out on A ends the session on B.
	onA.Get(t, "/admin")
	if p := onA.Post(t, "/admin/logout", nil); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("A: logout = %d, want 303", p.StatusCode)
	}
	if p := onB.Get(t, "/admin/pets"); p.StatusCode != http.StatusSeeOther || !strings.HasPrefix(p.Location(), "/admin/login") {
		t.Fatalf("B after logging out on A: %d to %q, want a redirect to the login page", p.StatusCode, p.Location())
	}
}

package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func postWithKey(t *testing.T, s *apptest.Server, path, key, body string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return s.Do(t, req)
}

func countOrders(t *testing.T, s *apptest.Server) int {
	t.Helper()
	var n int64
	if err := s.DB.Model(&models.Order{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// sameResponse fails unless replay repeats first exactly, marked as a replay.
func sameResponse(t *testing.T, first, replay *apptest.Response) {
	t.Helper()
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("the first response is marked Idempotent-Replayed")
	}
	if replay.StatusCode != first.StatusCode || !bytes.Equal(replay.Body, first.Body) ||
		replay.Header.Get("Location") != first.Header.Get("Location") ||
		replay.Header.Get("Content-Type") != first.Header.Get("Content-Type") ||
		replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %d %q Location %q Idempotent-Replayed %q; want %d %q Location %q, marked true",
			replay.StatusCode, replay.Body, replay.Header.Get("Location"), replay.Header.Get("Idempotent-Replayed"),
			first.StatusCode, first.Body, first.Header.Get("Location"))
	}
}

func TestRetryWithTheSameKeyReplaysTheFirstResponseAndCreatesNothing(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		first := postWithKey(t, s, "/v1/pets", "key-1", `{"name":"Rex","categoryId":1}`)
		if first.StatusCode != http.StatusCreated {
			t.Fatalf("first: %d %s", first.StatusCode, first.Body)
		}
		// The same JSON re-encoded (key order, spacing), sent to the same route spelt another
		// way, is the same request.
		replay := postWithKey(t, s.Invalid(), "/v1/pets/", "key-1", "{ \"categoryId\": 1,\n  \"name\": \"Rex\" }")
		sameResponse(t, first, replay)
		if n := countPets(t, s); n != 1 {
			t.Fatalf("%d pets after a retry, want 1", n)
		}

		var p pet
		first.JSON(t, &p)
		body := fmt.Sprintf(`{"petId":%d}`, p.ID)
		firstOrder := postWithKey(t, s, "/v1/store/orders", "key-2", body)
		if firstOrder.StatusCode != http.StatusCreated {
			t.Fatalf("first order: %d %s", firstOrder.StatusCode, firstOrder.Body)
		}
		// The pet is pending now: run again, the request would be a 409; replayed, it is the 201.
		// Spelling out the default quantity makes it no other request.
		sameResponse(t, firstOrder, postWithKey(t, s, "/v1/store/orders", "key-2", body))
		sameResponse(t, firstOrder, postWithKey(t, s, "/v1/store/orders", "key-2", fmt.Sprintf(`{"quantity":1,"petId":%d}`, p.ID)))
		sameResponse(t, first, postWithKey(t, s, "/v1/pets", "key-1", `{"name":"Rex","categoryId":1,"status":"available"}`))
		if replay := postWithKey(t, s, "/v1/pets", "key-1", `{"name":"Rex","categoryId":1}`); replay.Header.Get("ETag") != first.Header.Get("ETag") {
			t.Fatalf("the replay's ETag %q, the first answer's %q", replay.Header.Get("ETag"), first.Header.Get("ETag"))
		}
		if n := countOrders(t, s); n != 1 {
			t.Fatalf("%d orders after a retry, want 1", n)
		}

		// Without a key, nothing is deduplicated.
		createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		if n := countPets(t, s); n != 3 {
			t.Fatalf("%d pets, want 3", n)
		}
	})
}

func TestTheKeyIsSharedByInstancesAndSurvivesARestart(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		one := apptest.New(t, cfg)
		first := postWithKey(t, one, "/v1/pets", "shared", `{"name":"Rex","categoryId":1}`)
		two := apptest.New(t, cfg)
		two.Headers = one.Headers // the same client, with the same API key, on another instance
		sameResponse(t, first, postWithKey(t, two, "/v1/pets", "shared", `{"name":"Rex","categoryId":1}`))
		if n := countPets(t, two); n != 1 {
			t.Fatalf("%d pets, want 1", n)
		}
	})
}

func TestSameKeyForADifferentRequestAnswers422(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		if res := postWithKey(t, s, "/v1/pets", "k", `{"name":"Rex","categoryId":1}`); res.StatusCode != http.StatusCreated {
			t.Fatalf("first: %d %s", res.StatusCode, res.Body)
		}
		for _, tc := range []struct{ path, body string }{
			{"/v1/pets", `{"name":"Max","categoryId":1}`},
			{"/v1/pets", `{"name":"Rex","categoryId":1,"status":"sold"}`},
			{"/v1/store/orders", `{"petId":1}`},
		} {
			res := postWithKey(t, s, tc.path, "k", tc.body)
			code, msg := res.ErrorBody(t)
			if res.StatusCode != 422 || code != "idempotency_key_reused" || !strings.Contains(msg, "Idempotency-Key") {
				t.Fatalf("POST %s %s with a used key: %d %s %q, want 422 idempotency_key_reused", tc.path, tc.body, res.StatusCode, code, msg)
			}
		}
		if n := countPets(t, s); n != 1 {
			t.Fatalf("%d pets, want 1", n)
		}
	})
}

func TestDuplicateWhileTheFirstIsInFlightAnswers409(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		body := `{"name":"Rex","categoryId":1}`
		first := postWithKey(t, s, "/v1/pets", "k", body)
		// Put the record back in flight, as it is while the first request runs.
		if err := s.DB.Model(&models.IdempotencyRecord{}).Where("idempotency_key = ?", "k").Update("status", 0).Error; err != nil {
			t.Fatal(err)
		}
		res := postWithKey(t, s, "/v1/pets", "k", body)
		code, msg := res.ErrorBody(t)
		if res.StatusCode != 409 || code != "conflict" || !strings.Contains(msg, "in progress") || res.Header.Get("Retry-After") == "" {
			t.Fatalf("duplicate in flight: %d %s %q Retry-After %q, want 409 conflict with Retry-After", res.StatusCode, code, msg, res.Header.Get("Retry-After"))
		}
		// A different body under an in-flight key is still a different request.
		if res := postWithKey(t, s, "/v1/pets", "k", `{"name":"Max","categoryId":1}`); res.StatusCode != 422 {
			t.Fatalf("different body while in flight: %d, want 422", res.StatusCode)
		}
		// A record in flight for longer than the lease was left by an instance that died: the
		// retry takes it over and runs.
		old := time.Now().UTC().Add(-s.Cfg.DBTimeout - 2*time.Minute)
		if err := s.DB.Model(&models.IdempotencyRecord{}).Where("idempotency_key = ?", "k").Update("created_at", old).Error; err != nil {
			t.Fatal(err)
		}
		retry := postWithKey(t, s, "/v1/pets", "k", body)
		if retry.StatusCode != http.StatusCreated || retry.Header.Get("Idempotent-Replayed") != "" || bytes.Equal(retry.Body, first.Body) {
			t.Fatalf("retry after the lease: %d replayed %q, want a fresh 201", retry.StatusCode, retry.Header.Get("Idempotent-Replayed"))
		}
		sameResponse(t, retry, postWithKey(t, s, "/v1/pets", "k", body))
	})
}

func TestConcurrentDuplicatesCreateOnePet(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		const n = 10
		res := make([]*apptest.Response, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				res[i] = postWithKey(t, s, "/v1/pets", "burst", `{"name":"Rex","categoryId":1}`)
			})
		}
		close(start)
		wg.Wait()
		var body []byte
		for _, r := range res {
			switch r.StatusCode {
			case http.StatusCreated:
				if body != nil && !bytes.Equal(r.Body, body) {
					t.Fatalf("two different 201 bodies: %s and %s", body, r.Body)
				}
				body = r.Body
			case http.StatusConflict:
				if code, _ := r.ErrorBody(t); code != "conflict" {
					t.Fatalf("409 with code %s", code)
				}
			default:
				t.Fatalf("status %d %s, want 201 or 409", r.StatusCode, r.Body)
			}
		}
		if body == nil || countPets(t, s) != 1 {
			t.Fatalf("%d pets, want exactly 1 and a 201", countPets(t, s))
		}
	})
}

func TestOutcomesAreReplayedButRequestAndServerErrorsAreNot(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		// A 400 did nothing and is not kept: the client fixes its body and reuses the key.
		if res := postWithKey(t, s.Invalid(), "/v1/pets", "fix-me", `{"name":"","categoryId":1}`); res.StatusCode != 400 {
			t.Fatalf("bad body: %d", res.StatusCode)
		}
		if res := postWithKey(t, s, "/v1/pets", "fix-me", `{"name":"Rex","categoryId":1}`); res.StatusCode != 201 || res.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("fixed body under the same key: %d replayed %q, want a fresh 201", res.StatusCode, res.Header.Get("Idempotent-Replayed"))
		}

		// 404 and 409 are the operation's outcome: kept and replayed, even once the state changed.
		missing := postWithKey(t, s, "/v1/store/orders", "missing", `{"petId":987654}`)
		if missing.StatusCode != 404 {
			t.Fatalf("order for a missing pet: %d", missing.StatusCode)
		}
		sameResponse(t, missing, postWithKey(t, s, "/v1/store/orders", "missing", `{"petId":987654}`))

		o, p := orderIn(t, s, models.OrderPlaced)
		body := fmt.Sprintf(`{"petId":%d}`, p.ID)
		taken := postWithKey(t, s, "/v1/store/orders", "taken", body)
		if taken.StatusCode != 409 {
			t.Fatalf("order for a pending pet: %d", taken.StatusCode)
		}
		if _, err := models.NewOrderStore(s.DB).Cancel(t.Context(), o.ID, "staff:x"); err != nil {
			t.Fatal(err)
		}
		sameResponse(t, taken, postWithKey(t, s, "/v1/store/orders", "taken", body))
		if getPetStatus(t, s, p.ID) != "available" {
			t.Fatal("a replayed 409 changed the pet")
		}

		// A 5xx is not kept: with the history table gone the order fails, and once it is back
		// the retry under the same key runs and succeeds.
		if err := s.DB.Migrator().DropTable(&models.StatusChange{}); err != nil {
			t.Fatal(err)
		}
		if res := postWithKey(t, s, "/v1/store/orders", "retry-after-500", body); res.StatusCode != 500 {
			t.Fatalf("order without a history table: %d %s, want 500", res.StatusCode, res.Body)
		}
		if err := models.Migrate(t.Context(), s.DB); err != nil {
			t.Fatal(err)
		}
		if res := postWithKey(t, s, "/v1/store/orders", "retry-after-500", body); res.StatusCode != 201 || res.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("retry after a 500: %d replayed %q, want a fresh 201", res.StatusCode, res.Header.Get("Idempotent-Replayed"))
		}
	})
}

func TestExpiredKeysRunAgainAndArePurged(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		body := `{"name":"Rex","categoryId":1}`
		first := postWithKey(t, s, "/v1/pets", "old", body)
		postWithKey(t, s, "/v1/pets", "fresh", body)
		dayAgo := time.Now().UTC().Add(-models.IdempotencyTTL - time.Minute)
		if err := s.DB.Model(&models.IdempotencyRecord{}).Where("idempotency_key = ?", "old").Update("created_at", dayAgo).Error; err != nil {
			t.Fatal(err)
		}
		again := postWithKey(t, s, "/v1/pets", "old", body)
		if again.StatusCode != 201 || again.Header.Get("Idempotent-Replayed") != "" || bytes.Equal(again.Body, first.Body) {
			t.Fatalf("after 24 hours: %d replayed %q, want the request to run again", again.StatusCode, again.Header.Get("Idempotent-Replayed"))
		}

		if err := s.DB.Model(&models.IdempotencyRecord{}).Where("idempotency_key = ?", "old").Update("created_at", dayAgo).Error; err != nil {
			t.Fatal(err)
		}
		purged, err := models.NewIdempotencyStore(s.DB, time.Minute).PurgeExpired(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		s.DB.Model(&models.IdempotencyRecord{}).Order("idempotency_key").Pluck("idempotency_key", &keys)
		if purged != 1 || fmt.Sprint(keys) != "[fresh]" {
			t.Fatalf("purged %d, left %v; want 1 purged and only the fresh key left", purged, keys)
		}
	})
}

func TestMalformedIdempotencyKeysAreRefused(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	for _, key := range []string{`""`, strings.Repeat("k", 256), "two words", "tab\there", "ключ"} {
		res := postWithKey(t, s.Invalid(), "/v1/pets", key, `{"name":"Rex","categoryId":1}`)
		code, msg := res.ErrorBody(t)
		if res.StatusCode != 400 || code != "invalid_request" || !strings.Contains(msg, "Idempotency-Key") {
			t.Fatalf("key %q: %d %s %q, want 400 invalid_request naming Idempotency-Key", key, res.StatusCode, code, msg)
		}
	}
	// The IETF draft sends the key as a quoted string; it is the same key as the bare token.
	first := postWithKey(t, s, "/v1/pets", `"8e03978e-40d5-43e8-bc93-6894a57f9324"`, `{"name":"Rex","categoryId":1}`)
	sameResponse(t, first, postWithKey(t, s, "/v1/pets", "8e03978e-40d5-43e8-bc93-6894a57f9324", `{"name":"Rex","categoryId":1}`))
	if n := countPets(t, s); n != 1 {
		t.Fatalf("%d pets, want 1", n)
	}
}

// A real first request held up in the database (PostgreSQL's row lock on its pet) keeps its key
// in flight: the duplicate answers 409 at once, and once the first finishes, retries replay it.
func TestDuplicateOfARequestStillRunningAnswers409(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.Postgres))
	p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	body := fmt.Sprintf(`{"petId":%d}`, p.ID)
	tx := s.DB.Begin()
	if err := tx.Exec("SELECT id FROM pets WHERE id = ? FOR UPDATE", p.ID).Error; err != nil {
		t.Fatal(err)
	}
	done := make(chan *apptest.Response)
	go func() { done <- postWithKey(t, s, "/v1/store/orders", "slow", body) }()
	for inFlight := int64(0); inFlight == 0; {
		if err := s.DB.Model(&models.IdempotencyRecord{}).Where("idempotency_key = ? AND status = 0", "slow").Count(&inFlight).Error; err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // polling for the first request to claim its key
	}
	dup := postWithKey(t, s, "/v1/store/orders", "slow", body)
	if code, _ := dup.ErrorBody(t); dup.StatusCode != 409 || code != "conflict" {
		t.Fatalf("duplicate while the first runs: %d %s, want 409 conflict", dup.StatusCode, code)
	}
	tx.Rollback()
	first := <-done
	if first.StatusCode != http.StatusCreated {
		t.Fatalf("first: %d %s", first.StatusCode, first.Body)
	}
	sameResponse(t, first, postWithKey(t, s, "/v1/store/orders", "slow", body))
	if n := countOrders(t, s); n != 1 {
		t.Fatalf("%d orders, want 1", n)
	}
}

func TestServePurgesExpiredKeys(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	db := apptest.OpenDB(t, cfg)
	now := time.Now().UTC()
	for key, at := range map[string]time.Time{"old": now.Add(-models.IdempotencyTTL - time.Hour), "fresh": now} {
		if err := db.Create(&models.IdempotencyRecord{APIKeyID: 1, Key: key, Fingerprint: "f", Status: 201, CreatedAt: at}).Error; err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"PETSTORE_DB_PATH": cfg.DBPath, "PETSTORE_ADDR": "127.0.0.1:0"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- app.Run(ctx, []string{"petstore", "serve"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, io.Discard)
	}()
	var keys []string
	for {
		keys = nil
		if err := db.Model(&models.IdempotencyRecord{}).Pluck("idempotency_key", &keys).Error; err != nil {
			t.Fatal(err)
		}
		if len(keys) < 2 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped before purging: %v", err)
		case <-time.After(10 * time.Millisecond): // polling for the purge at start
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if fmt.Sprint(keys) != "[fresh]" {
		t.Fatalf("keys left %v, want only the fresh one", keys)
	}
}

// Keys are scoped to the API key that sent them: another client's identical Idempotency-Key and
// body is another request, and each client's retry replays its own first response.
func TestTheSameKeyFromAnotherAPIKeyIsAnotherRequest(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		other := s.NewKey(t, "pro")
		body := `{"name":"Rex","categoryId":1}`
		asOther := func() *apptest.Response {
			req := s.NewRequest(t, http.MethodPost, "/v1/pets", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "shared-key")
			req.Header.Set("Authorization", "Bearer "+other)
			return s.Do(t, req)
		}
		mine := postWithKey(t, s, "/v1/pets", "shared-key", body)
		theirs := asOther()
		if mine.StatusCode != 201 || theirs.StatusCode != 201 || theirs.Header.Get("Idempotent-Replayed") != "" || bytes.Equal(mine.Body, theirs.Body) {
			t.Fatalf("two API keys, one Idempotency-Key: %d %s and %d %s (replayed %q); want two fresh 201s",
				mine.StatusCode, mine.Body, theirs.StatusCode, theirs.Body, theirs.Header.Get("Idempotent-Replayed"))
		}
		sameResponse(t, mine, postWithKey(t, s, "/v1/pets", "shared-key", body))
		sameResponse(t, theirs, asOther())
		if n := countPets(t, s); n != 2 {
			t.Fatalf("%d pets, want 2", n)
		}
	})
}

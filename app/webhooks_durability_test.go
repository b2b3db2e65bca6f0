package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

func TestTwoInstancesDeliverEachEventOnce(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := webhookConfig(t, store)
		a := apptest.New(t, cfg, apptest.WithDeliveries())
		b := apptest.New(t, cfg, apptest.WithDeliveries())
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, a, r.URL, "pet.created")
		const n = 40
		for i := range n {
			s := a
			if i%2 == 1 {
				s = b
			}
			createPetNamed(t, s, fmt.Sprintf("Pet %d", i))
		}
		r.Wait(t, n, 30*time.Second)
		time.Sleep(10 * apptest.DeliveryPoll)
		seen := map[string]int{}
		for _, d := range r.Deliveries() {
			verified(t, d, ep.Secret)
			seen[d.ID()]++
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("event %s delivered %d times", id, k)
			}
		}
		if len(seen) != n {
			t.Fatalf("%d events delivered, want %d", len(seen), n)
		}
	})
}

// An attempt River marked running when its instance died is taken up again by the next instance
// to run, at once rather than on the retry schedule.
func TestAnAttemptCutShortByACrashIsMadeAgainByTheNextInstance(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := webhookConfig(t, store, time.Hour) // a failed attempt would wait an hour
		s := apptest.New(t, cfg)                  // serves, and delivers nothing
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL, "pet.created")
		createPetNamed(t, s, "Rex")
		// As a crash leaves it: running, attempted by an instance that is gone, a minute ago.
		ago := "datetime('now', '-60 seconds', 'subsec')"
		if store == testenv.Postgres {
			ago = "now() - interval '60 seconds'"
		}
		res := s.DB.Exec("UPDATE river_job SET state = 'running', attempt = 1, attempted_at = " + ago)
		if res.Error != nil || res.RowsAffected != 1 {
			t.Fatalf("marking the delivery running: %v, %d rows", res.Error, res.RowsAffected)
		}
		stop, err := app.StartDeliveries(t.Context(), cfg, s.Logs.Logger(), s.DB, app.DeliveryOptions{Poll: apptest.DeliveryPoll})
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		d := r.Wait(t, 1, 30*time.Second)[0]
		verified(t, d, ep.Secret)
	})
}

// The real binary, killed with SIGKILL after a delivery failed and before it was made again:
// the next instance to run delivers it, with the same webhook-id.
func TestADeliveryOutlivesTheInstanceKilledBeforeMakingIt(t *testing.T) {
	t.Parallel() // its own servers and receivers
	bin := apptest.Binary(t)
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		env := apptest.EnvFor(store, t)
		env["PETSTORE_WEBHOOK_ALLOW_HTTP"], env["PETSTORE_WEBHOOK_ALLOW_PRIVATE"] = "true", "true"
		env["PETSTORE_WEBHOOK_RETRY_DELAYS"] = "3s"
		key := apptest.CreateKey(t, bin, env)
		r := apptest.NewReceiver(t)
		r.Answer(func(_ string, n int) int { return map[bool]int{true: 503, false: 200}[n == 0] })

		first := apptest.StartProcess(t, bin, env)
		client := apptest.KeyClient(key, 10*time.Second)
		post := func(url, path, body string) []byte {
			t.Helper()
			res, err := client.Post(url+path, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusCreated {
				t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
			}
			return b
		}
		var ep endpoint
		if err := json.Unmarshal(post(first.URL, "/v1/webhook-endpoints", `{"url":"`+r.URL+`","events":["pet.created"]}`), &ep); err != nil {
			t.Fatal(err)
		}
		post(first.URL, "/v1/pets", `{"name":"Rex","categoryId":1}`)
		failed := r.Wait(t, 1, 30*time.Second)[0]
		// Killed once River has the failure and the retry in the database (the job waits, no
		// longer running), before the retry.
		db := apptest.OpenDB(t, cfgFor(t, env))
		deadline := time.Now().Add(10 * time.Second)
		for state := "running"; state == "running"; {
			if err := db.Raw("SELECT state FROM river_job").Scan(&state).Error; err != nil || time.Now().After(deadline) {
				t.Fatalf("the failed delivery's job is %s (%v)", state, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		first.Kill(t)

		apptest.StartProcess(t, bin, env)
		got := r.Wait(t, 2, 30*time.Second)
		if got[1].ID() != failed.ID() || got[1].Status != 200 {
			t.Fatalf("after the crash: %s answered %d; the failed delivery was %s", got[1].ID(), got[1].Status, failed.ID())
		}
		e := verified(t, got[1], ep.Secret)
		if e.Type != "pet.created" || !bytes.Contains(e.Data.Object, []byte(`"Rex"`)) {
			t.Fatalf("delivered %+v", e)
		}
	})
}

// cfgFor is the configuration of the database env selects.
func cfgFor(t *testing.T, env map[string]string) app.Config {
	t.Helper()
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

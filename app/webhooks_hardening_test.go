package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// patchEndpoint sends a PATCH of endpoint id with body.
func patchEndpoint(t *testing.T, s *apptest.Server, id int64, body string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, http.MethodPatch, "/v1/webhook-endpoints/"+itoa(id), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.Invalid().Do(t, req)
}

// waitAttempt waits for the first delivery attempt to endpoint id and returns it.
func waitAttempt(t *testing.T, s *apptest.Server, id int64) models.DeliveryAttempt {
	t.Helper()
	store := models.NewWebhookStore(s.DB, models.WebhookOptions{})
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := store.Attempts(t.Context(), id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 1 {
			return got[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery attempt to endpoint %d within 20 s", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// IPv6 addresses that carry a loopback or private IPv4 address (6to4, Teredo, IPv4-translated,
// local-use NAT64), and other ranges of IANA's special-purpose registries, are refused when an
// endpoint is added or changed; an endpoint stored before the check existed is refused as the
// delivery connects, and the attempt says why.
func TestEndpointsAtIPv6FormsOfPrivateAddressesAreRefusedAtRegistrationAndWhenConnecting(t *testing.T) {
	t.Parallel() // its own servers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		cfg.WebhookAllowHTTP = true
		s := apptest.New(t, cfg, apptest.WithDeliveries())
		for _, tc := range []struct{ url, says string }{
			{"https://[2002:7f00:1::]/", "6to4 address carrying 127.0.0.1, a loopback address"},
			{"https://[2002:a00:1::]/", "6to4 address carrying 10.0.0.1, a private address"},
			{"https://[::ffff:0:7f00:1]/", "IPv4-translated address carrying 127.0.0.1, a loopback address"},
			{"https://[2001:0:808:808::80ff:fffe]/", "Teredo address carrying 127.0.0.1, a loopback address"},
			{"https://[64:ff9b:1:a9fe:a9:fe00::]/", "local-use NAT64 address carrying 169.254.169.254, a link-local address"},
			{"https://[64:ff9b::7f00:1]/", "loopback address behind a NAT64 prefix"},
			{"https://[::ffff:127.0.0.1]/", "127.0.0.1 is a loopback address"},
			{"https://192.0.2.10/", "documentation address"},
			{"https://198.18.0.1/", "network-benchmarking address"},
			{"https://192.88.99.1/", "special-purpose range 192.88.99.0/24"},
			{"https://[2001:db8::1]/", "documentation address"},
		} {
			res := s.Invalid().PostJSON(t, "/v1/webhook-endpoints", map[string]any{"url": tc.url, "events": []string{"pet.created"}})
			if code, msg := res.ErrorBody(t); res.StatusCode != http.StatusBadRequest || code != models.EValidation || !strings.Contains(msg, tc.says) {
				t.Errorf("POST %s: %d %s %q, want 400 validation_failed saying %q", tc.url, res.StatusCode, code, msg, tc.says)
			}
		}
		public := addEndpoint(t, s, "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook", "pet.created")
		res := patchEndpoint(t, s, public.ID, `{"url":"https://[2002:7f00:1::]/hook"}`)
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusBadRequest || code != models.EValidation {
			t.Fatalf("PATCH to a 6to4 address of loopback: %d %s", res.StatusCode, res.Body)
		}

		// An endpoint stored before these forms were refused.
		if err := s.DB.Exec("UPDATE webhook_endpoints SET url = ? WHERE id = ?", "http://[2002:7f00:1::]:9/hook", public.ID).Error; err != nil {
			t.Fatal(err)
		}
		createPetNamed(t, s, "Rex")
		a := waitAttempt(t, s, public.ID)
		if want := "refused: 2002:7f00:1:: is a 6to4 address carrying 127.0.0.1, a loopback address"; a.Error != want || a.StatusCode != 0 {
			t.Fatalf("attempt to a stored 6to4 address of loopback: %d %q, want %q", a.StatusCode, a.Error, want)
		}
	})
}

// A key with the webhooks scope subscribes only to the events it may read: order events need
// orders:read and pet events pets:read, refused with 403 insufficient_scope naming the scope, on
// creation and on a change; nothing is added or changed.
func TestAKeyCannotSubscribeToEventsItsScopesDoNotRead(t *testing.T) {
	t.Parallel() // its own servers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := webhookServer(t, store)
		_, hooksOnly := keyFor(t, s, "hooks only", s.ClientID, models.ScopeWebhooks)
		_, petReader := keyFor(t, s, "pet reader", s.ClientID, models.ScopeWebhooks, models.ScopePetsRead)
		for _, tc := range []struct {
			key    string
			events []string
			scope  string
		}{
			{hooksOnly, []string{"order.placed"}, "orders:read"},
			{hooksOnly, []string{"pet.created"}, "pets:read"},
			{petReader, []string{"pet.updated", "order.cancelled"}, "orders:read"},
		} {
			res := s.As(tc.key).PostJSON(t, "/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook", "events": tc.events})
			code, msg := res.ErrorBody(t)
			if res.StatusCode != http.StatusForbidden || code != models.EInsufficientScope || !strings.Contains(msg, "needs the scope "+tc.scope) ||
				res.Header.Get("WWW-Authenticate") != `Bearer realm="petstore", error="insufficient_scope", scope="`+tc.scope+`"` {
				t.Errorf("subscribing to %v: %d %s %q %q, want 403 insufficient_scope naming %s", tc.events, res.StatusCode, code, msg, res.Header.Get("WWW-Authenticate"), tc.scope)
			}
		}
		if res := s.Get(t, "/v1/webhook-endpoints"); strings.TrimSpace(string(res.Body)) != "[]" {
			t.Fatalf("endpoints after the refusals: %s", res.Body)
		}

		pets := addEndpoint(t, s.As(petReader), "http://127.0.0.1:9/hook", "pet.created")
		res := patchEndpoint(t, s.As(petReader), pets.ID, `{"events":["pet.created","order.placed"]}`)
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusForbidden || code != models.EInsufficientScope {
			t.Fatalf("adding order.placed with pets:read only: %d %s", res.StatusCode, res.Body)
		}
		orders := addEndpoint(t, s, "http://127.0.0.1:9/orders", "order.placed")
		for _, body := range []string{`{"url":"http://127.0.0.1:9/elsewhere"}`, `{"disabled":false}`} {
			if res := patchEndpoint(t, s.As(petReader), orders.ID, body); res.StatusCode != http.StatusForbidden {
				t.Errorf("PATCH %s of an order endpoint with pets:read only: %d %s, want 403", body, res.StatusCode, res.Body)
			}
		}
		if res := patchEndpoint(t, s.As(hooksOnly), orders.ID, `{"disabled":true}`); res.StatusCode != http.StatusOK {
			t.Errorf("disabling an order endpoint with webhooks only: %d %s, want 200 (stopping deliveries reads nothing)", res.StatusCode, res.Body)
		}
		var got endpoint
		s.Get(t, "/v1/webhook-endpoints/"+itoa(pets.ID)).JSON(t, &got)
		if strings.Join(got.Events, " ") != "pet.created" {
			t.Fatalf("after the refused change the endpoint delivers %v", got.Events)
		}
	})
}

// webhookServer is a server delivering webhooks to receivers on loopback.
func webhookServer(t *testing.T, store testenv.Store) *apptest.Server {
	t.Helper()
	return apptest.New(t, webhookConfig(t, store), apptest.WithDeliveries())
}

// When the client's keys lose a scope after it subscribed, the events that scope reads are no
// longer delivered: each such delivery is recorded as skipped, and the others still arrive.
func TestEventsNoKeyOfTheClientMayReadAnyMoreAreNotDelivered(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := webhookServer(t, store)
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL+"/hook", "pet.created", "order.placed")
		if _, err := s.Keys.SetScopes(staff(t.Context()), s.KeyID, []string{"pets:read", "pets:write", "orders:write", "webhooks"}); err != nil {
			t.Fatal(err)
		}
		rex := createPetNamed(t, s, "Rex")
		placeOrderFor(t, s, rex.ID)
		r.Wait(t, 1, 20*time.Second)
		deadline := time.Now().Add(20 * time.Second)
		var attempts []models.DeliveryAttempt
		for len(attempts) < 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			var err error
			if attempts, err = models.NewWebhookStore(s.DB, models.WebhookOptions{}).Attempts(t.Context(), ep.ID, 10); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(3 * apptest.DeliveryPoll) // an order.placed delivery would arrive now
		var types []string
		for _, d := range r.Deliveries() {
			types = append(types, verified(t, d, ep.Secret).Type)
		}
		if strings.Join(types, " ") != "pet.created" {
			t.Fatalf("the receiver got %v, want only pet.created", types)
		}
		outcomes := map[models.EventType]string{}
		for _, a := range attempts {
			outcomes[a.EventType] = a.Outcome + ": " + a.Error
		}
		if len(attempts) != 2 || outcomes[models.EventPetCreated] != "delivered: " ||
			outcomes[models.EventOrderPlaced] != "skipped: not sent: no API key of the client has the scope orders:read any more" {
			t.Fatalf("attempts %v, want pet.created delivered and order.placed skipped for want of orders:read", outcomes)
		}
	})
}

// startDeliveries works the server's delivery queue as serve does, with o's changes, until the
// test ends.
func startDeliveries(t *testing.T, s *apptest.Server, o app.DeliveryOptions) {
	t.Helper()
	o.Poll = apptest.DeliveryPoll
	stop, err := app.StartDeliveries(context.Background(), s.Cfg, s.Logs.Logger(), s.DB, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
}

// A client whose receiver never answers holds at most its share of the delivery workers (4 per
// endpoint, 8 per client): while 24 of its deliveries hang, every one of another client's
// deliveries arrives before any hanging attempt has ended, so none waited for a worker the
// hanging endpoint held. The attempts hang for 19 s (the longest a job allows is 20): the test
// asserts an order of events, not a time, and the log gives the latencies beside those alone.
func TestOneClientsHangingEndpointDoesNotDelayAnotherClientsDeliveries(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store))
		release := make(chan struct{})
		// hanging counts the attempts under way at the slow endpoint, mostHanging the most at once.
		var hanging, mostHanging, ended atomic.Int32
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body) // the server notices a closed connection once the body is read
			n := hanging.Add(1)
			for m := mostHanging.Load(); n > m; m = mostHanging.Load() {
				if mostHanging.CompareAndSwap(m, n) {
					break
				}
			}
			defer func() { hanging.Add(-1); ended.Add(1) }()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(slow.Close)
		fast := apptest.NewReceiver(t)
		startDeliveries(t, s, app.DeliveryOptions{AttemptTimeout: 19 * time.Second})
		t.Cleanup(func() { close(release) }) // before the deliveries stop: they wait for the attempts under way

		_, other := keyFor(t, s, "another shop", 0)
		fastEP := addEndpoint(t, s.As(other), fast.URL+"/hook", "pet.created")
		// More pets than there are workers (20): without a cap, the hanging attempts took them all.
		const pets = 24
		worst := func(round int) time.Duration {
			for i := range pets {
				createPetNamed(t, s, "Pet "+itoa(int64(round*pets+i)))
			}
			var worst time.Duration
			for _, d := range fast.Wait(t, (round+1)*pets, 30*time.Second)[round*pets:] {
				e := verified(t, d, fastEP.Secret)
				worst = max(worst, d.At.Sub(e.CreatedAt))
			}
			return worst
		}
		alone := worst(0)
		addEndpoint(t, s, slow.URL+"/hook", "pet.created")
		beside := worst(1)
		t.Logf("the other client's deliveries took up to %s after their events beside the hanging endpoint, %s alone", beside, alone)
		// Held behind the hanging attempts, they would have waited for one of them to end.
		if n := ended.Load(); n != 0 {
			t.Fatalf("%d hanging attempts had ended before the other client's deliveries all arrived: they waited for the hanging endpoint's workers", n)
		}
		if n := mostHanging.Load(); n < 1 || n > 4 {
			t.Fatalf("%d attempts hang at the slow endpoint at once, want 1 to 4", n)
		}
	})
}

// An endpoint whose attempts keep timing out is paused: its deliveries wait, none is attempted
// before the pause ends though the receiver answers again, and after it every one arrives.
func TestAnEndpointThatKeepsTimingOutIsPausedAndItsDeliveriesArriveAfterwards(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		// Retries enough that none runs out of them before the pause: on a loaded machine a
		// delivery can time out twice before the third timeout of the endpoint pauses it.
		s := apptest.New(t, webhookConfig(t, store, slices.Repeat([]time.Duration{10 * time.Millisecond}, 10)...))
		var hang atomic.Bool
		hang.Store(true)
		var mu sync.Mutex
		delivered := map[string]time.Time{}
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var e event
			_ = json.NewDecoder(r.Body).Decode(&e)
			if hang.Load() {
				<-r.Context().Done() // the attempt timed out and closed the connection
				return
			}
			mu.Lock()
			if _, ok := delivered[e.ID]; !ok {
				delivered[e.ID] = time.Now()
			}
			mu.Unlock()
		}))
		t.Cleanup(recv.Close)
		const pause = 2 * time.Second
		startDeliveries(t, s, app.DeliveryOptions{AttemptTimeout: 300 * time.Millisecond, TimeoutPause: pause})
		ep := addEndpoint(t, s, recv.URL+"/hook", "pet.created")
		for i := range 6 {
			createPetNamed(t, s, "Pet "+itoa(int64(i)))
		}

		var paused models.WebhookEndpoint
		deadline := time.Now().Add(20 * time.Second)
		for paused.PausedUntil == nil {
			if time.Now().After(deadline) {
				t.Fatalf("endpoint not paused within 20 s: %+v", paused)
			}
			time.Sleep(20 * time.Millisecond)
			if err := s.DB.Take(&paused, ep.ID).Error; err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(500 * time.Millisecond) // an attempt that began as the pause did times out
		hang.Store(false)
		if a := waitAttempt(t, s, ep.ID); !strings.Contains(a.Error, "timed out after 300ms") {
			t.Fatalf("last attempt before the pause: %q", a.Error)
		}

		deadline = time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			n := len(delivered)
			mu.Unlock()
			if n == 6 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of 6 deliveries arrived after the pause, want every one", n)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for id, at := range delivered {
			if at.Before(*paused.PausedUntil) {
				t.Errorf("%s delivered at %s, before the pause ended at %s", id, at.Format(time.StampMilli), paused.PausedUntil.Local().Format(time.StampMilli))
			}
		}
		attempts, err := models.NewWebhookStore(s.DB, models.WebhookOptions{}).Attempts(t.Context(), ep.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		var said bool
		for _, a := range attempts {
			said = said || strings.Contains(a.Error, "attempts in a row timed out: deliveries to the endpoint wait until")
		}
		if !said {
			t.Fatalf("no attempt says the endpoint was paused: %+v", attempts)
		}
	})
}

// A webhook URL's query, where receivers often carry a token, never reaches the audit log (its
// entries' names, before and after), while the endpoint itself still answers the whole URL; a
// deleted endpoint keeps no signing secret.
func TestTheAuditLogLeavesOutAWebhookURLsQueryAndADeletedEndpointKeepsNoSecret(t *testing.T) {
	t.Parallel() // its own servers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store))
		ep := addEndpoint(t, s, "http://127.0.0.1:9/hook?token=s3cret-one", "pet.created")
		if res := patchEndpoint(t, s, ep.ID, `{"url":"http://127.0.0.1:9/hook?token=s3cret-two","disabled":true}`); res.StatusCode != http.StatusOK {
			t.Fatalf("PATCH: %d %s", res.StatusCode, res.Body)
		}
		var got endpoint
		s.Get(t, "/v1/webhook-endpoints/"+itoa(ep.ID)).JSON(t, &got)
		if got.URL != "http://127.0.0.1:9/hook?token=s3cret-two" {
			t.Fatalf("the endpoint answers the URL %q, want the whole URL", got.URL)
		}
		if res := s.Do(t, s.NewRequest(t, http.MethodDelete, "/v1/webhook-endpoints/"+itoa(ep.ID), nil)); res.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d %s", res.StatusCode, res.Body)
		}

		var entries []models.AuditEntry
		if err := s.DB.Where("object_type = ?", models.ObjectWebhookEndpoint).Order("id").Find(&entries).Error; err != nil {
			t.Fatal(err)
		}
		if len(entries) != 3 {
			t.Fatalf("%d audit entries of the endpoint, want 3 (create, update, delete)", len(entries))
		}
		for _, e := range entries {
			if e.ObjectName != "http://127.0.0.1:9/hook" {
				t.Errorf("audit entry %s is named %q, want the URL without its query", e.Action, e.ObjectName)
			}
			if strings.Contains(e.Before+e.After, "s3cret") || strings.Contains(e.Before+e.After, "token=") {
				t.Errorf("audit entry %s keeps the query: before %s after %s", e.Action, e.Before, e.After)
			}
		}
		var row struct{ Secret, PreviousSecret string }
		if err := s.DB.Raw("SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ?", ep.ID).Scan(&row).Error; err != nil {
			t.Fatal(err)
		}
		if row.Secret != "" || row.PreviousSecret != "" {
			t.Fatalf("the deleted endpoint's row keeps secrets %q and %q", row.Secret, row.PreviousSecret)
		}
	})
}

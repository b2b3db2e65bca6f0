package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// webhookConfig is a test server's configuration whose endpoints may be receivers on loopback,
// retried after delays.
func webhookConfig(t *testing.T, store testenv.Store, delays ...time.Duration) app.Config {
	t.Helper()
	cfg := apptest.Config(t, store)
	cfg.WebhookAllowHTTP, cfg.WebhookAllowPrivate = true, true
	if len(delays) > 0 {
		cfg.WebhookRetryDelays = delays
	}
	return cfg
}

// endpoint is a WebhookEndpoint as the API answers it.
type endpoint struct {
	ID             int64    `json:"id"`
	URL            string   `json:"url"`
	Description    string   `json:"description"`
	Events         []string `json:"events"`
	Disabled       bool     `json:"disabled"`
	DisabledReason string   `json:"disabledReason"`
	Secret         string   `json:"secret"`
}

// event is an Event as the API lists and delivers it.
type event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	Data      struct {
		Object   json.RawMessage `json:"object"`
		Previous json.RawMessage `json:"previous"`
	} `json:"data"`
}

var allEventTypes = []string{"pet.created", "pet.updated", "pet.deleted", "order.placed", "order.approved", "order.delivered", "order.cancelled"}

func addEndpoint(t *testing.T, s *apptest.Server, url string, types ...string) endpoint {
	t.Helper()
	res := s.PostJSON(t, "/v1/webhook-endpoints", map[string]any{"url": url, "events": types, "description": "test receiver"})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/webhook-endpoints: %d %s", res.StatusCode, res.Body)
	}
	var e endpoint
	res.JSON(t, &e)
	if !strings.HasPrefix(e.Secret, "whsec_") || res.Header.Get("Location") == "" {
		t.Fatalf("new endpoint %+v, Location %q: want its secret and address", e, res.Header.Get("Location"))
	}
	return e
}

func createPetNamed(t *testing.T, s *apptest.Server, name string) pet {
	t.Helper()
	res := s.PostJSON(t, "/v1/pets", map[string]any{"name": name, "categoryId": 1})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/pets: %d %s", res.StatusCode, res.Body)
	}
	var p pet
	res.JSON(t, &p)
	return p
}

func placeOrderFor(t *testing.T, s *apptest.Server, petID int64) order {
	t.Helper()
	res := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": petID})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/store/orders: %d %s", res.StatusCode, res.Body)
	}
	var o order
	res.JSON(t, &o)
	return o
}

// verified checks a delivery's signature with the Standard Webhooks specification's own library
// and returns its event.
func verified(t *testing.T, d apptest.Delivery, secret string) event {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(d.Body, d.Header); err != nil {
		t.Fatalf("delivery %s: %v\n%s", d.ID(), err, d.Body)
	}
	var e event
	if err := json.Unmarshal(d.Body, &e); err != nil {
		t.Fatal(err)
	}
	if e.ID != d.ID() || d.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("delivery of %s with webhook-id %s, Content-Type %q", e.ID, d.ID(), d.Header.Get("Content-Type"))
	}
	return e
}

// listEvents follows the events list from its first page with query to its last.
func listEvents(t *testing.T, s *apptest.Server, query string) []event {
	t.Helper()
	var all []event
	next := "/v1/events" + query
	for next != "" {
		res := s.Get(t, next)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", next, res.StatusCode, res.Body)
		}
		var page []event
		res.JSON(t, &page)
		all = append(all, page...)
		next = ""
		if m := nextLink.FindStringSubmatch(res.Header.Get("Link")); m != nil {
			next = m[1]
		}
	}
	return all
}

// settledEvents lists the events of query once at least n are listed. On PostgreSQL an event is
// listed once every transaction that began writing before it has ended, anywhere on the server,
// so a test that lists at once could see the list a moment behind.
func settledEvents(t *testing.T, s *apptest.Server, query string, n int) []event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := listEvents(t, s, query)
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func staff(ctx context.Context) context.Context {
	return models.WithActor(ctx, models.StaffActor("ann"))
}

func TestEachEventTypeArrivesOnceSignedAndTheEventsListSaysTheSame(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store), apptest.WithDeliveries())
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL+"/hook", allEventTypes...)
		orders := models.NewOrderStore(s.DB)

		rex := createPetNamed(t, s, "Rex")                                               // pet.created
		o := placeOrderFor(t, s, rex.ID)                                                 // order.placed, pet.updated
		if _, err := orders.Approve(staff(t.Context()), o.ID, "staff:ann"); err != nil { // order.approved
			t.Fatal(err)
		}
		if _, err := orders.Deliver(staff(t.Context()), o.ID, "staff:ann"); err != nil { // order.delivered, pet.updated
			t.Fatal(err)
		}
		tom := createPetNamed(t, s, "Tom")                                                   // pet.created
		if res := cancelOrder(t, s, placeOrderFor(t, s, tom.ID).ID); res.StatusCode != 200 { // order.placed, pet.updated; order.cancelled, pet.updated
			t.Fatalf("cancel: %d %s", res.StatusCode, res.Body)
		}
		if res := s.Do(t, s.NewRequest(t, http.MethodDelete, fmt.Sprintf("/v1/pets/%d", tom.ID), nil)); res.StatusCode != 204 { // pet.deleted
			t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
		}
		want := []string{"pet.created", "order.placed", "pet.updated", "order.approved", "order.delivered", "pet.updated",
			"pet.created", "order.placed", "pet.updated", "order.cancelled", "pet.updated", "pet.deleted"}

		listed := settledEvents(t, s, "", len(want))
		var listedTypes []string
		for _, e := range listed {
			listedTypes = append(listedTypes, e.Type)
		}
		if !slices.Equal(listedTypes, want) {
			t.Fatalf("events listed %v, want %v", listedTypes, want)
		}
		r.Wait(t, len(want), 20*time.Second)
		time.Sleep(3 * apptest.DeliveryPoll) // a duplicate would arrive now
		got := r.Deliveries()
		byID := map[string]event{}
		for _, d := range got {
			e := verified(t, d, ep.Secret)
			if _, dup := byID[e.ID]; dup {
				t.Fatalf("event %s (%s) delivered twice", e.ID, e.Type)
			}
			byID[e.ID] = e
		}
		if len(byID) != len(want) {
			t.Fatalf("%d events delivered, want %d", len(byID), len(want))
		}
		for _, e := range listed {
			d, ok := byID[e.ID]
			if !ok || d.Type != e.Type || !bytes.Equal(d.Data.Object, e.Data.Object) {
				t.Fatalf("listed %s %s %s; delivered %+v", e.ID, e.Type, e.Data.Object, d)
			}
		}
		// The object is the pet or the order as the API shows it.
		last := listed[len(listed)-1]
		var deleted pet
		if err := json.Unmarshal(last.Data.Object, &deleted); err != nil || deleted.ID != tom.ID || deleted.Name != "Tom" {
			t.Fatalf("pet.deleted carries %s", last.Data.Object)
		}
		delivered := listed[4]
		res := s.Get(t, fmt.Sprintf("/v1/store/orders/%d", o.ID))
		if !bytes.Equal(bytes.TrimSpace(res.Body), delivered.Data.Object) {
			t.Fatalf("order.delivered carries %s; GET answers %s", delivered.Data.Object, res.Body)
		}
		if string(delivered.Data.Previous) != `{"complete":false,"status":"approved"}` {
			t.Fatalf("order.delivered previous %s", delivered.Data.Previous)
		}
		// An attempt is recorded after its receiver answered: wait for the last one's row.
		var attempts []models.DeliveryAttempt
		eventually(t, "every attempt recorded", func() bool {
			if err := s.DB.Where("endpoint_id = ?", ep.ID).Find(&attempts).Error; err != nil {
				t.Fatal(err)
			}
			return len(attempts) >= len(want)
		})
		for _, a := range attempts {
			if a.Outcome != models.OutcomeDelivered || a.StatusCode != 200 || a.Attempt != 1 {
				t.Fatalf("attempt %+v, want delivered at once", a)
			}
		}
		if len(attempts) != len(want) {
			t.Fatalf("%d attempts kept, want %d", len(attempts), len(want))
		}
	})
}

func TestAFailingReceiverGetsTheSameWebhookIDUntilItAnswers2xxAndThenNoMore(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store, 20*time.Millisecond, 20*time.Millisecond, 20*time.Millisecond), apptest.WithDeliveries())
		flaky, broken := apptest.NewReceiver(t), apptest.NewReceiver(t)
		flaky.Answer(func(_ string, n int) int {
			return []int{500, 302, 200}[min(n, 2)] // a redirect is a failure too
		})
		broken.Answer(func(string, int) int { return 503 })
		flakyEP := addEndpoint(t, s, flaky.URL, "pet.created")
		brokenEP := addEndpoint(t, s, broken.URL, "pet.created")
		createPetNamed(t, s, "Rex")

		got := flaky.Wait(t, 3, 20*time.Second)
		for _, d := range got {
			verified(t, d, flakyEP.Secret)
			if d.ID() != got[0].ID() {
				t.Fatalf("retry with webhook-id %s, first was %s", d.ID(), got[0].ID())
			}
		}
		// The schedule has three retries: four attempts in all, then the delivery has failed.
		broken.Wait(t, 4, 20*time.Second)
		time.Sleep(10 * apptest.DeliveryPoll)
		if n := len(flaky.Deliveries()); n != 3 {
			t.Fatalf("the receiver that answered 200 got %d deliveries, want 3", n)
		}
		if n := len(broken.Deliveries()); n != 4 {
			t.Fatalf("the failing receiver got %d deliveries, want 4 (one and three retries)", n)
		}
		outcomes := func(id int64) []string {
			var as []models.DeliveryAttempt
			if err := s.DB.Where("endpoint_id = ?", id).Order("id").Find(&as).Error; err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, a := range as {
				out = append(out, fmt.Sprintf("%d:%d:%s", a.Attempt, a.StatusCode, a.Outcome))
			}
			return out
		}
		// An attempt is recorded after its receiver answered: wait for the last rows.
		for id, want := range map[int64][]string{
			flakyEP.ID:  {"1:500:retrying", "2:302:retrying", "3:200:delivered"},
			brokenEP.ID: {"1:503:retrying", "2:503:retrying", "3:503:retrying", "4:503:failed"},
		} {
			var got []string
			eventually(t, "every attempt recorded", func() bool { got = outcomes(id); return len(got) >= len(want) })
			if !slices.Equal(got, want) {
				t.Errorf("attempts kept %v, want %v", got, want)
			}
		}
	})
}

func TestOrderEventsGoOnlyToTheClientThatOwnsTheOrder(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store), apptest.WithDeliveries())
		other, err := models.NewClientStore(s.DB).Create(models.WithActor(t.Context(), models.ActorCLI), models.NewClient{Name: "Other shop"})
		if err != nil {
			t.Fatal(err)
		}
		_, otherKey := keyFor(t, s, "other", other.ID)
		mine, theirs := apptest.NewReceiver(t), apptest.NewReceiver(t)
		addEndpoint(t, s, mine.URL, "order.placed", "pet.updated")
		addEndpoint(t, s.As(otherKey), theirs.URL, "order.placed", "pet.updated")

		p := createPetNamed(t, s, "Rex")
		placeOrderFor(t, s, p.ID) // order.placed (mine), pet.updated (everyone's)
		mineGot := mine.Wait(t, 2, 20*time.Second)
		theirsGot := theirs.Wait(t, 1, 20*time.Second)
		time.Sleep(5 * apptest.DeliveryPoll)
		var types []string
		for _, d := range mine.Deliveries() {
			var e event
			_ = json.Unmarshal(d.Body, &e)
			types = append(types, e.Type)
		}
		slices.Sort(types)
		if !slices.Equal(types, []string{"order.placed", "pet.updated"}) || len(mineGot) != 2 {
			t.Fatalf("the owner got %v", types)
		}
		if all := theirs.Deliveries(); len(all) != 1 || !strings.Contains(string(theirsGot[0].Body), `"pet.updated"`) {
			t.Fatalf("the other client got %d deliveries: %s", len(all), theirsGot[0].Body)
		}
		// Its events list has the pet's events and none of the order's.
		for _, e := range settledEvents(t, s.As(otherKey), "", 2) {
			if strings.HasPrefix(e.Type, "order.") {
				t.Fatalf("another client's order event listed: %+v", e)
			}
		}
	})
}

func TestEndpointsRefusePrivateAndPlainHTTPAddressesWithoutConnecting(t *testing.T) {
	t.Parallel() // its own servers and receivers
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var connections atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, url := range []string{
		"http://example.com/hook",                      // plain http
		fmt.Sprintf("https://127.0.0.1:%d/hook", port), // loopback, listening
		fmt.Sprintf("https://localhost:%d/hook", port),
		"https://[::1]/hook",
		"https://10.1.2.3/hook", // private
		"https://192.168.0.10/hook",
		"https://172.16.0.1/hook",
		"https://169.254.169.254/latest/meta-data", // link-local: the cloud's metadata service
		"https://[fe80::1]/hook",
		"https://[fd12:3456::1]/hook", // unique-local
		"https://224.0.0.1/hook",      // multicast
		"https://0.0.0.0/hook",        // unspecified
		"ftp://203.0.113.10/hook",
	} {
		res := s.Invalid().PostJSON(t, "/v1/webhook-endpoints", map[string]any{"url": url, "events": []string{"pet.created"}})
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", url, res.StatusCode, res.Body)
			continue
		}
		if code, msg := res.ErrorBody(t); code != models.EValidation || !strings.HasPrefix(msg, "url") {
			t.Errorf("%s: %s %q, want validation_failed naming url", url, code, msg)
		}
	}
	if n := connections.Load(); n != 0 {
		t.Fatalf("the refusals connected %d times", n)
	}
	if res := s.Get(t, "/v1/webhook-endpoints"); string(bytes.TrimSpace(res.Body)) != "[]" {
		t.Fatalf("endpoints after refusals: %s", res.Body)
	}
}

func TestEndpointRulesUnknownTypesTheEleventhAndAnotherClientsEndpoint(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store))
		for _, body := range []map[string]any{
			{"url": "http://127.0.0.1:9/hook", "events": []string{"pet.sold"}},
			{"url": "http://127.0.0.1:9/hook", "events": []string{}},
			{"url": "http://127.0.0.1:9/hook", "events": []string{"pet.created", "pet.created"}},
			{"events": []string{"pet.created"}},
		} {
			res := s.Invalid().PostJSON(t, "/v1/webhook-endpoints", body)
			if code, _ := res.ErrorBody(t); res.StatusCode != 400 || code != models.EValidation && code != models.EInvalid {
				t.Errorf("%v: %d %s, want 400", body, res.StatusCode, res.Body)
			}
		}
		var ids []int64
		for i := range models.MaxEndpointsPerClient {
			ids = append(ids, addEndpoint(t, s, fmt.Sprintf("http://127.0.0.1:9/hook/%d", i), "pet.created").ID)
		}
		res := s.PostJSON(t, "/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook/11", "events": []string{"pet.created"}})
		if code, _ := res.ErrorBody(t); res.StatusCode != 400 || code != models.EValidation {
			t.Fatalf("an 11th endpoint: %d %s", res.StatusCode, res.Body)
		}
		var list []endpoint
		s.Get(t, "/v1/webhook-endpoints").JSON(t, &list)
		if len(list) != 10 || list[0].Secret != "" {
			t.Fatalf("list of %d, first %+v: want 10 without secrets", len(list), list[0])
		}
		// PATCH and DELETE; another client's endpoint is not found.
		patch := s.NewRequest(t, http.MethodPatch, fmt.Sprintf("/v1/webhook-endpoints/%d", ids[0]), strings.NewReader(`{"events":["pet.updated","order.placed"],"disabled":true}`))
		patch.Header.Set("Content-Type", "application/merge-patch+json")
		var changed endpoint
		s.Do(t, patch).JSON(t, &changed)
		if !changed.Disabled || changed.DisabledReason != "requested" || !slices.Equal(changed.Events, []string{"pet.updated", "order.placed"}) {
			t.Fatalf("patched %+v", changed)
		}
		_, otherKey := keyFor(t, s, "other", 0)
		if res := s.As(otherKey).Get(t, fmt.Sprintf("/v1/webhook-endpoints/%d", ids[1])); res.StatusCode != 404 {
			t.Fatalf("another client's endpoint: %d", res.StatusCode)
		}
		if res := s.Do(t, s.NewRequest(t, http.MethodDelete, fmt.Sprintf("/v1/webhook-endpoints/%d", ids[1]), nil)); res.StatusCode != 204 {
			t.Fatalf("DELETE: %d %s", res.StatusCode, res.Body)
		}
		if res := s.Get(t, fmt.Sprintf("/v1/webhook-endpoints/%d", ids[1])); res.StatusCode != 404 {
			t.Fatalf("deleted endpoint: %d", res.StatusCode)
		}
		// Each change is in the audit log, never with a secret.
		var entries []models.AuditEntry
		s.DB.Where("object_type = ?", models.ObjectWebhookEndpoint).Order("id").Find(&entries)
		if len(entries) != 12 || entries[10].Action != models.AuditUpdate || entries[11].Action != models.AuditDelete {
			t.Fatalf("%d audit entries of endpoints", len(entries))
		}
		for _, e := range entries {
			if strings.Contains(e.Before+e.After, "whsec_") {
				t.Fatalf("a secret in the audit log: %+v", e)
			}
		}
	})
}

func TestARotatedSecretKeepsSigningBesideTheNewOneFor24Hours(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		clock := testenv.NewClock(time.Now().Truncate(time.Second))
		s := apptest.New(t, webhookConfig(t, store), apptest.WithClock(clock), apptest.WithDeliveries())
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL, "pet.created")
		res := s.Do(t, s.NewRequest(t, http.MethodPost, fmt.Sprintf("/v1/webhook-endpoints/%d/rotate-secret", ep.ID), nil))
		var rotated endpoint
		res.JSON(t, &rotated)
		if res.StatusCode != 200 || rotated.Secret == ep.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") {
			t.Fatalf("rotate-secret: %d %s", res.StatusCode, res.Body)
		}
		check := func(n int, oldSigns bool) {
			t.Helper()
			d := r.Wait(t, n, 20*time.Second)[n-1]
			if ts := d.Header.Get("webhook-timestamp"); ts != strconv.FormatInt(clock.Now().Unix(), 10) {
				t.Fatalf("webhook-timestamp %s, the clock says %d", ts, clock.Now().Unix())
			}
			sigs := strings.Fields(d.Header.Get("webhook-signature"))
			for _, secret := range []string{rotated.Secret, ep.Secret} {
				wh, _ := standardwebhooks.NewWebhook(secret)
				err := wh.VerifyIgnoringTimestamp(d.Body, d.Header)
				if secret == rotated.Secret && err != nil {
					t.Fatalf("the new secret does not verify: %v", err)
				}
				if secret == ep.Secret && (err == nil) != oldSigns {
					t.Fatalf("the old secret verifies: %v, want %v (signatures %v)", err == nil, oldSigns, sigs)
				}
			}
			if want := map[bool]int{true: 2, false: 1}[oldSigns]; len(sigs) != want {
				t.Fatalf("%d signatures, want %d", len(sigs), want)
			}
		}
		createPetNamed(t, s, "Rex")
		check(1, true)
		clock.Advance(24*time.Hour - time.Second)
		createPetNamed(t, s, "Tom")
		check(2, true)
		clock.Advance(2 * time.Second)
		createPetNamed(t, s, "Max")
		check(3, false)
	})
}

func TestEventsListPagesFiltersByTypeAndShowsWhatTheKeysScopesAllow(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store))
		var pets []pet
		for _, name := range []string{"Rex", "Tom", "Max"} {
			pets = append(pets, createPetNamed(t, s, name))
		}
		placeOrderFor(t, s, pets[0].ID)
		all := settledEvents(t, s, "?limit=2", 5)
		if len(all) != 5 {
			t.Fatalf("%d events listed by pages of 2, want 5", len(all))
		}
		if !slices.IsSortedFunc(all, func(a, b event) int { return strings.Compare(a.ID, b.ID) }) {
			t.Fatal("events not in the order of their ids")
		}
		if created := listEvents(t, s, "?type=pet.created"); len(created) != 3 {
			t.Fatalf("%d pet.created events", len(created))
		}
		_, petsOnly := keyFor(t, s, "pets", s.ClientID, models.ScopePetsRead)
		_, ordersOnly := keyFor(t, s, "orders", s.ClientID, models.ScopeOrdersRead)
		_, neither := keyFor(t, s, "neither", s.ClientID, models.ScopePetsWrite, models.ScopeWebhooks)
		if got := listEvents(t, s.As(petsOnly), ""); len(got) != 4 || slices.ContainsFunc(got, func(e event) bool { return e.Type == "order.placed" }) {
			t.Fatalf("pets:read lists %d events", len(got))
		}
		if got := listEvents(t, s.As(ordersOnly), ""); len(got) != 1 || got[0].Type != "order.placed" {
			t.Fatalf("orders:read lists %+v", got)
		}
		res := s.As(neither).Get(t, "/v1/events")
		if code, _ := res.ErrorBody(t); res.StatusCode != 403 || code != models.EInsufficientScope ||
			res.Header.Get("WWW-Authenticate") != `Bearer realm="petstore", error="insufficient_scope", scope="pets:read orders:read"` {
			t.Fatalf("no reading scope: %d %s %q", res.StatusCode, res.Body, res.Header.Get("WWW-Authenticate"))
		}
		for _, q := range []string{"?type=pet.sold", "?type=", "?limit=0", "?cursor=xyz", "?type=pet.created&type=pet.updated"} {
			if res := s.Invalid().Get(t, "/v1/events"+q); res.StatusCode != 400 {
				t.Errorf("%s: %d, want 400", q, res.StatusCode)
			}
		}
	})
}

func TestARefusedChangeLeavesNoEvent(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store))
		p := createPetNamed(t, s, "Rex")
		placeOrderFor(t, s, p.ID)
		before := settledEvents(t, s, "", 3)
		refused := []*apptest.Response{
			s.PostJSON(t, "/v1/pets", map[string]any{"name": "Tom", "categoryId": 999}),        // no such category
			s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": p.ID}),                   // the pet is pending
			s.Do(t, s.NewRequest(t, http.MethodDelete, fmt.Sprintf("/v1/pets/%d", p.ID), nil)), // a live order holds it
		}
		for _, res := range refused {
			if res.StatusCode < 400 {
				t.Fatalf("%s %s: %d, want a refusal", res.Request.Method, res.Request.URL, res.StatusCode)
			}
		}
		// The list has no gaps: once a later change's event is listed, any event of the refused
		// ones would be too.
		createPetNamed(t, s, "Max")
		after := settledEvents(t, s, "", len(before)+1)
		if len(after) != len(before)+1 || after[len(after)-1].Type != "pet.created" {
			t.Fatalf("%d events after refused changes and a creation, %d before", len(after), len(before))
		}
	})
}

func TestMetricsCountDeliveriesByOutcomeAndReportTheQueue(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store, time.Hour), apptest.WithDeliveries())
		ok, failing := apptest.NewReceiver(t), apptest.NewReceiver(t)
		failing.Answer(func(string, int) int { return 500 })
		addEndpoint(t, s, ok.URL, "pet.created")
		addEndpoint(t, s, failing.URL, "pet.created")
		createPetNamed(t, s, "Rex")
		ok.Wait(t, 1, 20*time.Second)
		failing.Wait(t, 1, 20*time.Second)
		// A delivery is counted after its receiver answered: wait for both counts, not only the
		// receivers.
		var m apptest.Samples
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			m = s.ScrapeMetrics(t)
			if m.Value("petstore_webhook_deliveries_total", "outcome", "delivered") == 1 &&
				m.Value("petstore_webhook_deliveries_total", "outcome", "retrying") == 1 && m.Value("petstore_webhook_queue_depth") == 1 {
				break
			}
		}
		if got := m.Value("petstore_webhook_deliveries_total", "outcome", "delivered"); got != 1 {
			t.Errorf("delivered %v, want 1", got)
		}
		if got := m.Value("petstore_webhook_deliveries_total", "outcome", "retrying"); got != 1 {
			t.Errorf("retrying %v, want 1", got)
		}
		if !m.Has("petstore_webhook_deliveries_total", "outcome", "failed") {
			t.Error("no failed series from the start")
		}
		// The failed delivery waits an hour for its retry: one pending, as old as the event.
		if got := m.Value("petstore_webhook_queue_depth"); got != 1 {
			t.Errorf("queue depth %v, want 1", got)
		}
		if age := m.Value("petstore_webhook_oldest_pending_seconds"); age <= 0 || age > 60 {
			t.Errorf("oldest pending %v s, want the age of the failed delivery", age)
		}
	})
}

func TestBadWebhookSettingsNameTheVariable(t *testing.T) {
	t.Parallel() // its own servers and receivers
	for _, tc := range []struct{ name, value string }{
		{"PETSTORE_WEBHOOK_ALLOW_PRIVATE", "yes"},
		{"PETSTORE_WEBHOOK_ALLOW_HTTP", "1"},
		{"PETSTORE_WEBHOOK_RETRY_DELAYS", "5s,soon"},
		{"PETSTORE_WEBHOOK_RETRY_DELAYS", "5s,-1m"},
		{"PETSTORE_WEBHOOK_RETRY_DELAYS", ","},
		{"PETSTORE_WEBHOOK_RETRY_DELAYS", strings.Repeat("1s,", 21)},
	} {
		_, err := app.LoadConfig(func(k string) string { return map[string]string{tc.name: tc.value}[k] })
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s=%q: error %v, want one naming %s", tc.name, tc.value, err, tc.name)
		}
	}
	cfg, err := app.LoadConfig(func(k string) string {
		return map[string]string{"PETSTORE_WEBHOOK_RETRY_DELAYS": "1s, 2m", "PETSTORE_WEBHOOK_ALLOW_HTTP": "true"}[k]
	})
	if err != nil || !slices.Equal(cfg.WebhookRetryDelays, []time.Duration{time.Second, 2 * time.Minute}) || !cfg.WebhookAllowHTTP || cfg.WebhookAllowPrivate {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	if cfg, _ := app.LoadConfig(func(string) string { return "" }); len(cfg.WebhookRetryDelays) != 7 || cfg.WebhookRetryDelays[6] != 10*time.Hour {
		t.Fatalf("default retry delays %v", cfg.WebhookRetryDelays)
	}
}

package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// keyFor issues a Pro key of client (a new client of the key's name when 0) with the given
// scopes (every scope when none) and returns the key and its plain text.
func keyFor(t *testing.T, s *apptest.Server, name string, client int64, scopes ...models.Scope) (*models.APIKey, string) {
	t.Helper()
	n := models.NewAPIKey{Name: name, Plan: "pro", ClientID: client}
	for _, sc := range scopes {
		n.Scopes = append(n.Scopes, string(sc))
	}
	return s.CreateKey(t, n)
}

// cancelOrder is the client's cancel of order id.
func cancelOrder(t *testing.T, s *apptest.Server, id int64) *apptest.Response {
	t.Helper()
	return s.Do(t, s.NewRequest(t, http.MethodPost, fmt.Sprintf("/v1/store/orders/%d/cancel", id), nil))
}

func listOrderIDs(t *testing.T, s *apptest.Server) []int64 {
	t.Helper()
	res := s.Get(t, "/v1/store/orders")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/store/orders: %d %s", res.StatusCode, res.Body)
	}
	var list []order
	res.JSON(t, &list)
	ids := []int64{}
	for _, o := range list {
		ids = append(ids, o.ID)
	}
	return ids
}

func TestAKeyWithoutTheOperationsScopeIsRefused403AndCounted(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		_, reader := keyFor(t, s, "Dashboard", 0, models.ScopePetsRead, models.ScopeOrdersRead)
		c := s.As(reader)

		if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/pets with pets:read: %d %s", res.StatusCode, res.Body)
		}
		before := c.Get(t, "/v1/categories")
		res := c.PostJSON(t, "/v1/pets", map[string]any{"name": "Rex", "categoryId": 1})
		msg := wantError(t, res, http.StatusForbidden, "insufficient_scope", "")
		if want := `Bearer realm="petstore", error="insufficient_scope", scope="pets:write"`; res.Header.Get("WWW-Authenticate") != want {
			t.Fatalf("WWW-Authenticate %q, want %q", res.Header.Get("WWW-Authenticate"), want)
		}
		if msg != "this operation needs the scope pets:write, which the API key does not have" {
			t.Fatalf("message %q", msg)
		}
		remaining := func(r *apptest.Response) int {
			n, _ := strconv.Atoi(r.Header.Get("X-RateLimit-Remaining"))
			return n
		}
		if remaining(res) != remaining(before)-1 {
			t.Fatalf("X-RateLimit-Remaining %d after %d: the 403 was not counted against the key", remaining(res), remaining(before))
		}
		if countPets(t, s) != 0 {
			t.Fatal("the refused request added a pet")
		}
		res = c.PostJSON(t, "/v1/store/orders", map[string]any{"petId": 1})
		wantError(t, res, http.StatusForbidden, "insufficient_scope", "")
		if res.Header.Get("WWW-Authenticate") != `Bearer realm="petstore", error="insufficient_scope", scope="orders:write"` {
			t.Fatalf("WWW-Authenticate %q", res.Header.Get("WWW-Authenticate"))
		}
	})
}

func TestOrdersBelongToTheClientWhoseKeyPlacedThem(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		a, acme := keyFor(t, s, "Acme", 0)
		_, acmeRotated := keyFor(t, s, "Acme, new key", a.ClientID)
		_, globex := keyFor(t, s, "Globex", 0)
		_, acmeNoRead := keyFor(t, s, "Acme writer", a.ClientID, models.ScopeOrdersWrite)

		p1 := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		p2 := createPet(t, s, map[string]any{"name": "Tom", "categoryId": 2})
		p3 := createPet(t, s, map[string]any{"name": "Polly", "categoryId": 3})
		ofAcme := placeOrder(t, s.As(acme), map[string]any{"petId": p1.ID})
		ofGlobex := placeOrder(t, s.As(globex), map[string]any{"petId": p2.ID})
		staffOrder, err := models.NewOrderStore(s.DB).Place(context.Background(), models.NewOrder{PetID: &p3.ID}, models.StaffOwner, "staff:sam", nil)
		if err != nil {
			t.Fatal(err)
		}

		for name, c := range map[string]*apptest.Server{"Acme": s.As(acme), "Acme's second key": s.As(acmeRotated)} {
			if got := listOrderIDs(t, c); len(got) != 1 || got[0] != ofAcme.ID {
				t.Fatalf("%s lists orders %v, want only its own %d", name, got, ofAcme.ID)
			}
			if res := c.Get(t, fmt.Sprintf("/v1/store/orders/%d", ofAcme.ID)); res.StatusCode != http.StatusOK {
				t.Fatalf("%s GET its own order: %d %s", name, res.StatusCode, res.Body)
			}
		}
		if got := listOrderIDs(t, s.As(globex)); len(got) != 1 || got[0] != ofGlobex.ID {
			t.Fatalf("Globex lists orders %v, want only %d", got, ofGlobex.ID)
		}
		for _, id := range []int64{ofGlobex.ID, staffOrder.ID} {
			res := s.As(acme).Get(t, fmt.Sprintf("/v1/store/orders/%d", id))
			wantError(t, res, http.StatusNotFound, "not_found", "")
			res = cancelOrder(t, s.As(acme), id)
			wantError(t, res, http.StatusNotFound, "not_found", "")
		}
		if getPetStatus(t, s, p2.ID) != "pending" {
			t.Fatal("another client's cancel changed Globex's order")
		}
		// The scope comes first: the owner's key without orders:read gets 403, another client's 404.
		wantError(t, s.As(acmeNoRead).Get(t, fmt.Sprintf("/v1/store/orders/%d", ofAcme.ID)), http.StatusForbidden, "insufficient_scope", "")
		wantError(t, s.As(globex).Get(t, fmt.Sprintf("/v1/store/orders/%d", ofAcme.ID)), http.StatusNotFound, "not_found", "")

		// Staff see every order.
		var n int64
		if err := s.DB.Model(&models.Order{}).Count(&n).Error; err != nil || n != 3 {
			t.Fatalf("%d orders in the store (%v), want 3", n, err)
		}
		all, err := models.NewOrderStore(s.DB).List(context.Background(), models.StaffOwner, models.OrderFilter{}, models.Page{Limit: 10})
		if err != nil || len(all.Items) != 3 {
			t.Fatalf("staff list %d orders (%v), want 3", len(all.Items), err)
		}
	})
}

func TestAClientCancelsItsOwnOrderWhilePlacedAndOnlyThen(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		k, plain := keyFor(t, s, "Acme", 0)
		c := s.As(plain)
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		o := placeOrder(t, c, map[string]any{"petId": p.ID})

		res := cancelOrder(t, c, o.ID)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("cancel: %d %s", res.StatusCode, res.Body)
		}
		var got order
		res.JSON(t, &got)
		if got.ID != o.ID || got.Status != "cancelled" || got.Complete {
			t.Fatalf("cancel answered %+v, want the order cancelled", got)
		}
		if st := getPetStatus(t, s, p.ID); st != "available" {
			t.Fatalf("pet %s after the cancel, want available", st)
		}
		history, err := models.NewOrderStore(s.DB).History(context.Background(), o.ID)
		if err != nil || len(history) != 2 || history[1].Action != models.ActionCancel || history[1].Actor != models.APIKeyActor(k.ID) ||
			history[1].OrderFrom != models.OrderPlaced || history[1].PetTo != models.PetAvailable {
			t.Fatalf("history %+v (%v), want the place and then a cancel by api-key:%d", history, err, k.ID)
		}
		msg := wantError(t, cancelOrder(t, c, o.ID), http.StatusConflict, "conflict", "")
		if msg != fmt.Sprintf("order %d is cancelled; a client can cancel an order only while it is placed", o.ID) {
			t.Fatalf("second cancel: %q", msg)
		}

		// Approved by staff: the client can no longer cancel it.
		o2 := placeOrder(t, c, map[string]any{"petId": p.ID})
		if _, err := models.NewOrderStore(s.DB).Approve(context.Background(), o2.ID, "staff:sam"); err != nil {
			t.Fatal(err)
		}
		wantError(t, cancelOrder(t, c, o2.ID), http.StatusConflict, "conflict", "")
		if st := getPetStatus(t, s, p.ID); st != "pending" {
			t.Fatalf("pet %s after a refused cancel, want still pending", st)
		}
		wantError(t, s.Invalid().As(plain).Do(t, s.NewRequest(t, http.MethodPost, "/v1/store/orders/x/cancel", nil)), http.StatusBadRequest, "invalid_request", "")
	})
}

func TestAnIdempotencyKeyReplaysOnlyToTheClientThatUsedIt(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		_, acme := keyFor(t, s, "Acme", 0)
		_, globex := keyFor(t, s, "Globex", 0)
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		body := fmt.Sprintf(`{"petId":%d}`, p.ID)

		first := postWithKey(t, s.As(acme), "/v1/store/orders", "order-1", body)
		if first.StatusCode != http.StatusCreated {
			t.Fatalf("Acme: %d %s", first.StatusCode, first.Body)
		}
		other := postWithKey(t, s.As(globex), "/v1/store/orders", "order-1", body)
		if other.StatusCode != http.StatusConflict || other.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("Globex with Acme's Idempotency-Key: %d (Idempotent-Replayed %q) %s, want its own 409: the pet is taken",
				other.StatusCode, other.Header.Get("Idempotent-Replayed"), other.Body)
		}
		replay := postWithKey(t, s.As(acme), "/v1/store/orders", "order-1", body)
		if replay.StatusCode != http.StatusCreated || string(replay.Body) != string(first.Body) || replay.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("Acme's retry: %d %s, want its first answer replayed", replay.StatusCode, replay.Body)
		}
	})
}

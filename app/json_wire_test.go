package app_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// The API's JSON is not HTML: a client reading the 401's message on the wire sees the header to
// send, not \u003ckey\u003e.
func TestThe401MessageReadsBearerKeyOnTheWire(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	res := s.As("").Get(t, "/v1/pets")
	if res.StatusCode != http.StatusUnauthorized || !bytes.Contains(res.Body, []byte("send it as Authorization: Bearer <key>")) {
		t.Fatalf("GET /v1/pets without a key: %d %s, want 401 saying Authorization: Bearer <key>", res.StatusCode, res.Body)
	}
}

// A pet is one JSON object wherever a client meets it: the answer to its creation, a page of the
// list, the events list and the webhook delivery carry the same bytes, the name as it was typed.
func TestAPetReadsTheSameInItsAnswerTheListItsEventAndItsDelivery(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store), apptest.WithDeliveries())
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL+"/hook", "pet.created")

		created := s.PostJSON(t, "/v1/pets", map[string]any{"name": "Tom & <Jerry>", "categoryId": 1})
		if created.StatusCode != http.StatusCreated || !bytes.Contains(created.Body, []byte(`"name":"Tom & <Jerry>"`)) {
			t.Fatalf("POST /v1/pets: %d %s, want 201 with the name as typed", created.StatusCode, created.Body)
		}
		var p pet
		created.JSON(t, &p)

		listed := s.Get(t, fmt.Sprintf("/v1/pets?id=%d", p.ID))
		if want := "[" + string(created.Body) + "]"; string(listed.Body) != want {
			t.Fatalf("the list shows %s, want %s", listed.Body, want)
		}
		events := settledEvents(t, s, "?type=pet.created", 1)
		if len(events) != 1 || !bytes.Equal(events[0].Data.Object, created.Body) {
			t.Fatalf("pet.created events %+v, want one whose object is %s", events, created.Body)
		}
		d := r.Wait(t, 1, 20*time.Second)[0]
		if e := verified(t, d, ep.Secret); e.ID != events[0].ID || !bytes.Equal(e.Data.Object, created.Body) {
			t.Fatalf("delivery %s, want event %s whose object is %s", d.Body, events[0].ID, created.Body)
		}
	})
}

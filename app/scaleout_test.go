package app_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/petstore/petstore/app/apptest"
)

// twoInstances starts two instances of the service on different ports sharing one PostgreSQL
// database (and one Redis, as a deployment behind a load balancer does).
func twoInstances(t *testing.T) (*apptest.Server, *apptest.Server) {
	t.Helper()
	cfg := apptest.Config(t, apptest.Postgres)
	a, b := apptest.NewWithConfig(t, cfg), apptest.NewWithConfig(t, cfg)
	if a.URL == b.URL {
		t.Fatalf("both instances listen on %s", a.URL)
	}
	return a, b
}

func TestScaleOutAPetCreatedOnOneInstanceIsReadOnTheOther(t *testing.T) {
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

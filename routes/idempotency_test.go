package routes

import (
	"strings"
	"testing"

	"github.com/petstore/petstore/models"
)

// The fingerprint is taken of the request as decoded, with its defaults: a retry that spells
// out a default is the same request; another value, or another operation, is not.
func TestFingerprintIsTakenAfterDefaults(t *testing.T) {
	fp := func(route string, n NewOrder) string {
		t.Helper()
		s, err := fingerprint("POST", route, n.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pet := ptrTo[int64](42)
	base := fp("/v1/store/orders", NewOrder{PetID: pet})
	for name, tc := range map[string]struct {
		route string
		order NewOrder
		same  bool
	}{
		"quantity 1 spelled out": {"/v1/store/orders", NewOrder{PetID: pet, Quantity: ptrTo[int32](1)}, true},
		"another pet":            {"/v1/store/orders", NewOrder{PetID: ptrTo[int64](43)}, false},
		"a ship date":            {"/v1/store/orders", NewOrder{PetID: pet, ShipDate: ptrTo("2026-12-01T10:00:00Z")}, false},
		"another operation":      {"/v1/pets", NewOrder{PetID: pet}, false},
	} {
		if got := fp(tc.route, tc.order) == base; got != tc.same {
			t.Errorf("%s: same fingerprint %v, want %v", name, got, tc.same)
		}
	}
	a, _ := fingerprint("POST", "/v1/pets", NewPet{Name: ptrTo("Rex"), CategoryID: ptrTo[int64](1)}.withDefaults())
	b, _ := fingerprint("POST", "/v1/pets", NewPet{Name: ptrTo("Rex"), CategoryID: ptrTo[int64](1), Status: ptrTo(models.PetAvailable)}.withDefaults())
	if a != b {
		t.Error(`a pet with "status": "available" spelled out is another request than one without`)
	}
}

func TestParseIdempotencyKey(t *testing.T) {
	for raw, want := range map[string]string{
		"abc": "abc", ` "abc" `: "abc", strings.Repeat("k", 255): strings.Repeat("k", 255),
		`""`: "", "a b": "", strings.Repeat("k", 256): "", "ключ": "", "a\x7f": "",
		`"`: `"`, `"k`: `"k`, `"` + strings.Repeat("k", 255) + `"`: strings.Repeat("k", 255), `"` + strings.Repeat("k", 256) + `"`: "",
	} {
		got, err := parseIdempotencyKey(raw)
		if (want == "") != (err != nil) || got != want {
			t.Fatalf("parseIdempotencyKey(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

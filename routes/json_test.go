package routes

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/petstore/petstore/models"
	"pgregory.net/rapid"
)

// The service's encoder must write exactly what encoding/json writes, so that swapping it is
// invisible to clients: HTML-sensitive characters, non-ASCII, escapes and times included.
func TestEncodeJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	values := map[string]any{
		"page of pets": petPage("Rex", `<b>"Tom" & Jerry</b>`, "Ça va \u2028 ok", "tab\there", "日本の犬", "emoji 🐕", `back\slash`),
		"empty page":   []Pet{},
		"nil page":     []Pet(nil),
		"one pet":      petPage()[0],
		"zero time":    Pet{ID: 1, Name: "x", CreatedAt: time.Time{}},
		"other zone":   Pet{ID: 2, Name: "y", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("", 5*3600+1800))},
		"error":        Error{Code: "validation_failed", Message: `name: must not contain "<script>"`, Status: 400},
		"categories":   []Category{{ID: 1, Name: "Dogs"}, {ID: 6, Name: "Small animals"}},
		"map":          map[string]any{"status": "ready", "checks": map[string]string{"database": "ok", "redis": "degraded: down"}},
	}
	for name, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeJSON(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// Pets are encoded by hand (json_pets.go): on any pet, whatever its name's bytes, its status or
// its times' zones and years, the bytes must be encoding/json's, and so must a failure.
func TestEncodePetsByHand(t *testing.T) {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("UTC", 0), time.FixedZone("", -7*3600), time.FixedZone("", 5*3600+1800)}
	genTime := rapid.Custom(func(rt *rapid.T) time.Time {
		var secs int64
		switch rapid.IntRange(0, 2).Draw(rt, "range") {
		case 0: // the store's times
			secs = rapid.Int64Range(0, 4102444800).Draw(rt, "secs")
		case 1: // around the edges of what appendTime writes itself
			edge := rapid.SampledFrom([]int64{minJSONTime, maxJSONTime, -62167219200, 0, 951782400, 4107542400}).Draw(rt, "edge")
			secs = edge + rapid.Int64Range(-100000, 100000).Draw(rt, "offset")
		default:
			secs = rapid.Int64Range(-1<<40, 1<<40).Draw(rt, "secs")
		}
		ns := rapid.SampledFrom([]int64{0, 1, 1000, 123456000, 999999999, rapid.Int64Range(0, 999999999).Draw(rt, "ns")}).Draw(rt, "ns")
		return time.Unix(secs, ns).In(rapid.SampledFrom(zones).Draw(rt, "zone"))
	})
	genText := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ -~]{0,40}`),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		rapid.SampledFrom([]string{"Rex", "available", "a\u2028b", "<&>", "\x7f", "é", "\xff", "\"\\"}))
	genPet := rapid.Custom(func(rt *rapid.T) Pet {
		return Pet{ID: rapid.Int64().Draw(rt, "id"), Name: genText.Draw(rt, "name"), CategoryID: rapid.Int64().Draw(rt, "category"),
			Status: models.PetStatus(genText.Draw(rt, "status")), CreatedAt: genTime.Draw(rt, "created"), UpdatedAt: genTime.Draw(rt, "updated")}
	})
	same := func(rt *rapid.T, v any) {
		want, wantErr := json.Marshal(v)
		got, err := EncodeJSON(v)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			rt.Fatalf("got %s (error %v)\nwant %s (error %v)", got, err, want, wantErr)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		same(rt, genPet.Draw(rt, "pet"))
		page := rapid.SliceOfN(genPet, 0, 5).Draw(rt, "page")
		same(rt, page)
		// A list answer is written straight from the stored pets.
		items := make([]models.Pet, len(page))
		for i, p := range page {
			items[i] = models.Pet{ID: p.ID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		}
		want, wantErr := json.Marshal(page)
		got, err := appendPetList([]byte("x"), items)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != "x"+string(want) {
			rt.Fatalf("list: got %s (error %v)\nwant x%s (error %v)", got, err, want, wantErr)
		}
	})
}

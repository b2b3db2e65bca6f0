package routes

import (
	"encoding/json"
	"testing"
	"time"
)

// The service's encoder must write exactly what encoding/json writes, so that swapping it is
// invisible to clients: HTML-sensitive characters, non-ASCII, escapes and times included.
func TestEncodeJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	values := map[string]any{
		"page of pets": petPage("Rex", `<b>"Tom" & Jerry</b>`, "Ça va \u2028 ok", "tab\there", "日本の犬", "emoji 🐕", `back\slash`),
		"empty page":   []Pet{},
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

package routes

import (
	"strings"
	"testing"
)

func TestFingerprintIgnoresJSONFormattingButNotValues(t *testing.T) {
	base := fingerprint("POST", "/v1/pets", []byte(`{"name":"Rex","categoryId":1}`))
	for body, same := range map[string]bool{
		"{ \"categoryId\": 1,\n \"name\": \"Rex\" }": true,
		`{"name":"Rex","categoryId":1.0}`:            false,
		`{"name":"Rex","categoryId":2}`:              false,
		`{"name":"Rex","categoryId":1} x`:            false,
		`not json`:                                   false,
	} {
		if got := fingerprint("POST", "/v1/pets", []byte(body)) == base; got != same {
			t.Fatalf("%q: same fingerprint %v, want %v", body, got, same)
		}
	}
	if fingerprint("POST", "/v1/store/orders", []byte(`{"name":"Rex","categoryId":1}`)) == base {
		t.Fatal("the same body on another path has the same fingerprint")
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

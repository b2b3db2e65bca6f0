package routes

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/petstore/petstore/docs"
	"github.com/petstore/petstore/models"
)

// The document's Error.code enum is generated from this package's source; this holds it to the
// tables themselves, so a code the generator failed to read cannot go unlisted.
func TestTheDocumentListsEveryErrorCodeOfTheTables(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	want := slices.Collect(maps.Keys(statusOfCode))
	for _, code := range codeOfStatus {
		if !slices.Contains(want, code) {
			want = append(want, code)
		}
	}
	slices.Sort(want)
	if got := doc.Components.Schemas["Error"].Properties["code"].Enum; !slices.Equal(got, want) {
		t.Fatalf("Error.code enum %v, want %v: run make generate", got, want)
	}
}

func TestAnErrorMessageQuotingLongInputIsCutShort(t *testing.T) {
	long := strings.Repeat("é", 5000)
	body := errorBody(nil, models.FieldError("shipDate", "must be an RFC 3339 date-time, got %q", long))
	if n := utf8.RuneCountInString(body.Message); n != maxMessage || !strings.HasSuffix(body.Message, "…") || !strings.HasPrefix(body.Message, "shipDate: must be") {
		t.Fatalf("message of %d characters: %.60q…; want %d, cut with an ellipsis", n, body.Message, maxMessage)
	}
}

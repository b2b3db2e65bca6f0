package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// taggedPet is a pet as 1.2.0 answers it, with its description and tags.
type taggedPet struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	CategoryID  int64     `json:"categoryId"`
	Status      string    `json:"status"`
	Description *string   `json:"description"`
	Tags        *[]string `json:"tags"`
}

func createTagged(t *testing.T, s *apptest.Server, body map[string]any) taggedPet {
	t.Helper()
	if body["categoryId"] == nil {
		body["categoryId"] = 1
	}
	res := s.PostJSON(t, "/v1/pets", body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/pets %v: status %d, want 201: %s", body, res.StatusCode, res.Body)
	}
	var p taggedPet
	res.JSON(t, &p)
	return p
}

// listNames lists the names of the pets GET /v1/pets answers for query, every page of them,
// following the Link header.
func listNames(t *testing.T, s *apptest.Server, query string) []string {
	t.Helper()
	var names []string
	target := "/v1/pets?" + query
	for target != "" {
		res := s.Get(t, target)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d: %s\n%s", target, res.StatusCode, res.Body, s.Logs)
		}
		var page []taggedPet
		res.JSON(t, &page)
		for _, p := range page {
			names = append(names, p.Name)
		}
		target = ""
		if link := res.Header.Get("Link"); link != "" {
			target = strings.TrimSuffix(strings.TrimPrefix(strings.Split(link, ";")[0], "<"), ">")
		}
	}
	return names
}

func TestPetDescriptionAndTags(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))

		plain := createTagged(t, s, map[string]any{"name": "Plain"})
		if plain.Description == nil || *plain.Description != "" || plain.Tags == nil || len(*plain.Tags) != 0 {
			t.Fatalf("a pet created without description and tags answers %+v, want \"\" and []", plain)
		}
		p := createTagged(t, s, map[string]any{"name": "Rex", "description": "  A calm dog.\r\nLoves walks.  ", "tags": []string{" Puppy ", "calm", "house-trained", "CALM"}})
		if *p.Description != "A calm dog.\nLoves walks." || !slices.Equal(*p.Tags, []string{"calm", "house-trained", "puppy"}) {
			t.Fatalf("created %q %v: want the description trimmed (line break kept) and the tags lower-cased and sorted", *p.Description, *p.Tags)
		}

		for _, tc := range []struct{ name, body, field string }{
			{"description too long", `{"name":"A","categoryId":1,"description":"` + strings.Repeat("x", 2001) + `"}`, "description"},
			{"control character in description", `{"name":"A","categoryId":1,"description":"a\tb"}`, "description"},
			{"format character in description", `{"name":"A","categoryId":1,"description":"a\u202eb"}`, "description"},
			{"eleven tags", `{"name":"A","categoryId":1,"tags":["a","b","c","d","e","f","g","h","i","j","k"]}`, "tags"},
			{"tag with a space", `{"name":"A","categoryId":1,"tags":["good dog"]}`, "tags"},
			{"tag too long", `{"name":"A","categoryId":1,"tags":["` + strings.Repeat("a", 33) + `"]}`, "tags"},
			{"empty tag", `{"name":"A","categoryId":1,"tags":[" "]}`, "tags"},
			{"accented tag", `{"name":"A","categoryId":1,"tags":["café"]}`, "tags"},
		} {
			res := s.Invalid().PostJSON(t, "/v1/pets", tc.body)
			code, msg := res.ErrorBody(t)
			if res.StatusCode != http.StatusBadRequest || code != "validation_failed" || !strings.HasPrefix(msg, tc.field+":") {
				t.Errorf("%s: %d %s %q, want 400 validation_failed naming %s", tc.name, res.StatusCode, code, msg, tc.field)
			}
		}

		// A merge patch: tags replace the set; a field left out stays; null clears.
		var got taggedPet
		res := patchPet(t, s, p.ID, `{"tags":["senior"]}`)
		res.JSON(t, &got)
		if res.StatusCode != http.StatusOK || *got.Description != "A calm dog.\nLoves walks." || !slices.Equal(*got.Tags, []string{"senior"}) {
			t.Fatalf("PATCH tags: %d %+v, want the tags replaced and the description kept", res.StatusCode, got)
		}
		res = patchPet(t, s, p.ID, `{"description":null,"tags":null}`)
		res.JSON(t, &got)
		if res.StatusCode != http.StatusOK || *got.Description != "" || len(*got.Tags) != 0 || got.Name != "Rex" {
			t.Fatalf("PATCH nulls: %d %s, want description \"\" and tags [] and the name kept", res.StatusCode, res.Body)
		}
		res = s.Invalid().Do(t, patchRequest(t, s, p.ID, `{"name":null}`))
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusBadRequest || code != "validation_failed" {
			t.Fatalf("PATCH name null: %d %s, want 400 validation_failed: a name cannot be removed", res.StatusCode, res.Body)
		}
		res = s.Invalid().Do(t, patchRequest(t, s, p.ID, `{"tags":["ok",null]}`))
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusBadRequest || code != "validation_failed" {
			t.Fatalf("PATCH a null tag: %d %s, want 400 validation_failed", res.StatusCode, res.Body)
		}
		patchPet(t, s, p.ID, `{"description":"Sleeps a lot.","tags":["calm"]}`)

		// Each change is a pet.updated event whose previous holds the earlier values.
		var previous []string
		for _, e := range settledEvents(t, s, "?type=pet.updated", 3) {
			var obj taggedPet
			if err := json.Unmarshal(e.Data.Object, &obj); err != nil {
				t.Fatal(err)
			}
			if obj.ID == p.ID {
				previous = append(previous, string(e.Data.Previous))
			}
		}
		want := []string{`{"tags":["calm","house-trained","puppy"]}`, `{"description":"A calm dog.\nLoves walks.","tags":["senior"]}`, `{"description":"","tags":[]}`}
		if len(previous) != 3 {
			t.Fatalf("events of pet %d: previous %v, want %v", p.ID, previous, want)
		}
		for i := range want {
			var a, b map[string]any
			_ = json.Unmarshal([]byte(previous[i]), &a)
			_ = json.Unmarshal([]byte(want[i]), &b)
			delete(a, "updatedAt")
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("event %d previous %s, want %s", i, previous[i], want[i])
			}
		}
	})
}

func patchRequest(t *testing.T, s *apptest.Server, id int64, body string) *http.Request {
	req := s.NewRequest(t, http.MethodPatch, fmt.Sprintf("/v1/pets/%d", id), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	return req
}

func TestTagFilterAndTagCounts(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		createTagged(t, s, map[string]any{"name": "A", "tags": []string{"calm", "puppy"}})
		createTagged(t, s, map[string]any{"name": "B", "tags": []string{"calm"}})
		createTagged(t, s, map[string]any{"name": "C", "tags": []string{"calm", "puppy", "senior"}, "categoryId": 2})
		gone := createTagged(t, s, map[string]any{"name": "D", "tags": []string{"puppy", "zz-gone"}})
		createTagged(t, s, map[string]any{"name": "E", "tags": []string{"calmer"}})
		if res := deletePet(t, s, gone.ID); res.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", res.StatusCode)
		}
		for query, want := range map[string][]string{
			"tag=calm":                        {"A", "B", "C"},
			"tag=calm&tag=puppy":              {"A", "C"},
			"tag=PUPPY&tag=calm&limit=1":      {"A", "C"},
			"tag=calm&tag=puppy&categoryId=2": {"C"},
			"tag=calm&tag=nothing":            nil,
			"tag=zz-gone":                     nil,
		} {
			if got := listNames(t, s, query); !slices.Equal(got, want) {
				t.Errorf("GET /v1/pets?%s = %v, want %v", query, got, want)
			}
		}
		for _, query := range []string{"tag=", "tag=a+b", "tag=" + strings.Repeat("a", 33), strings.Repeat("tag=a&", 11)} {
			res := s.Invalid().Get(t, "/v1/pets?"+query)
			code, msg := res.ErrorBody(t)
			if res.StatusCode != http.StatusBadRequest || code != "invalid_request" || !strings.HasPrefix(msg, "tag:") {
				t.Errorf("GET /v1/pets?%s: %d %s %q, want 400 invalid_request naming tag", query, res.StatusCode, code, msg)
			}
		}

		var counts []struct {
			Name  string `json:"name"`
			Count int64  `json:"count"`
		}
		s.Get(t, "/v1/tags").JSON(t, &counts)
		want := `[{calm 3} {puppy 2} {calmer 1} {senior 1}]`
		if got := fmt.Sprint(counts); got != want {
			t.Fatalf("GET /v1/tags = %s, want %s (most used first, then by name; deleted pets not counted)", got, want)
		}
	})
}

func TestWordSearch(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		createTagged(t, s, map[string]any{"name": "Labrador puppies", "description": "Two of them."})
		createTagged(t, s, map[string]any{"name": "Biscuit", "description": "Sleeps at the Café all day."})
		createTagged(t, s, map[string]any{"name": "Old lab", "tags": []string{"senior"}, "status": "pending"})
		createTagged(t, s, map[string]any{"name": "Bird", "description": "A puppy of a bird? No.", "tags": []string{"lab"}, "categoryId": 2})
		createTagged(t, s, map[string]any{"name": "Zorro", "description": "Not related at all."})
		for i := range 5 {
			createTagged(t, s, map[string]any{"name": fmt.Sprintf("Lab pup %d", i), "tags": []string{"puppy"}})
		}
		for query, want := range map[string][]string{
			"q=lab+puppy":                   {"Labrador puppies", "Bird", "Lab pup 0", "Lab pup 1", "Lab pup 2", "Lab pup 3", "Lab pup 4"},
			"q=cafe":                        {"Biscuit"},
			"q=CAFÉ":                        {"Biscuit"},
			"q=sleeping":                    {"Biscuit"},
			"q=lab&status=pending":          {"Old lab"},
			"q=lab&categoryId=2":            {"Bird"},
			"q=lab&tag=senior":              {"Old lab"},
			"q=lab+puppy&limit=2":           {"Labrador puppies", "Bird", "Lab pup 0", "Lab pup 1", "Lab pup 2", "Lab pup 3", "Lab pup 4"},
			"q=" + url.QueryEscape("zebra"): nil,
			"q=pup+seni":                    nil,
			"q=old+seni":                    {"Old lab"},
		} {
			if got := listNames(t, s, query); !slices.Equal(got, want) {
				t.Errorf("GET /v1/pets?%s = %v, want %v", query, got, want)
			}
		}
		// A changed pet is found by its new words only.
		zorro := listNames(t, s, "q=zorro")
		if len(zorro) != 1 {
			t.Fatalf("q=zorro = %v", zorro)
		}
		var z []taggedPet
		s.Get(t, "/v1/pets?q=zorro").JSON(t, &z)
		patchPet(t, s, z[0].ID, `{"name":"Zeus","description":"Found a lab."}`)
		if got := listNames(t, s, "q=zorro"); len(got) != 0 {
			t.Errorf("q=zorro after the rename = %v, want none", got)
		}
		if got := listNames(t, s, "q=found+lab"); !slices.Equal(got, []string{"Zeus"}) {
			t.Errorf("q=found+lab after the change = %v, want [Zeus]", got)
		}
		// A text of signs alone holds no word: it asks for none, so it filters nothing.
		if got, all := listNames(t, s, "q=%21%21+-"), listNames(t, s, "limit=100"); !slices.Equal(got, all) {
			t.Errorf("q=!! - lists %v, want every pet, as without q: %v", got, all)
		}
		for _, query := range []string{"q=", "q=" + strings.Repeat("a", 101), "q=a&q=b"} {
			res := s.Invalid().Get(t, "/v1/pets?"+query)
			code, msg := res.ErrorBody(t)
			if res.StatusCode != http.StatusBadRequest || code != "invalid_request" || !strings.HasPrefix(msg, "q:") {
				t.Errorf("GET /v1/pets?%s: %d %s %q, want 400 invalid_request naming q", query, res.StatusCode, code, msg)
			}
		}
	})
}

// The tags in use and the inventory count every live pet (0.5 to 1 s and 250 ms at a million):
// an instance keeps them for PETSTORE_COUNTS_MAX_AGE, says their age in Age, and counts again
// once they are older. Another instance on the same database keeps its own.
func TestTagsAndInventoryAreKeptForTheirMaxAgeByEachInstance(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		counting := apptest.New(t, cfg) // the tests' setting: 0, counted on each call
		cfg.CountsMaxAge = time.Minute
		clock := testenv.NewClock(time.Now())
		keeping := apptest.New(t, cfg, apptest.WithClock(clock))
		counts := func(s *apptest.Server) (tags, inventory, age string) {
			t.Helper()
			var tc []struct {
				Name  string `json:"name"`
				Count int64  `json:"count"`
			}
			var inv map[string]int64
			res := s.Get(t, "/v1/tags")
			res.JSON(t, &tc)
			s.Get(t, "/v1/store/inventory").JSON(t, &inv)
			return fmt.Sprint(tc), fmt.Sprint(inv), res.Header.Get("Age")
		}

		createTagged(t, counting, map[string]any{"name": "A", "tags": []string{"calm"}})
		before := [2]string{"[{calm 1}]", "map[available:1 pending:0 sold:0]"}
		if tags, inv, age := counts(keeping); [2]string{tags, inv} != before || age != "0" {
			t.Fatalf("first counts: %s %s, Age %q; want %v, Age 0", tags, inv, age, before)
		}
		createTagged(t, counting, map[string]any{"name": "B", "tags": []string{"calm", "puppy"}, "status": "sold"})
		after := [2]string{"[{calm 2} {puppy 1}]", "map[available:1 pending:0 sold:1]"}
		if tags, inv, _ := counts(counting); [2]string{tags, inv} != after {
			t.Fatalf("the counting instance: %s %s, want %v", tags, inv, after)
		}
		clock.Advance(59 * time.Second)
		if tags, inv, age := counts(keeping); [2]string{tags, inv} != before || age != "59" {
			t.Fatalf("59 s later, the keeping instance: %s %s, Age %q; want what it counted, %v, Age 59", tags, inv, age, before)
		}
		clock.Advance(time.Second)
		if tags, inv, age := counts(keeping); [2]string{tags, inv} != after || age != "0" {
			t.Fatalf("a minute later, the keeping instance: %s %s, Age %q; want counted again, %v, Age 0", tags, inv, age, after)
		}
	})
}

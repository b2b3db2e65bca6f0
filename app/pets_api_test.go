package app_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

type pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status"`
	CreatedAt  string `json:"createdAt"`
	UpdatedAt  string `json:"updatedAt"`
}

func createPet(t *testing.T, s *apptest.Server, body any) pet {
	t.Helper()
	res := s.PostJSON(t, "/v1/pets", body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/pets %v: status %d, want 201: %s", body, res.StatusCode, res.Body)
	}
	var p pet
	res.JSON(t, &p)
	return p
}

func countPets(t *testing.T, s *apptest.Server) int {
	t.Helper()
	var n int64
	if err := s.DB.Model(&models.Pet{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func TestCreatedPetIsReturnedByListAndGet(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		res := s.PostJSON(t, "/v1/pets", map[string]any{"name": "  Rex  ", "categoryId": 1})
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("status %d, want 201: %s", res.StatusCode, res.Body)
		}
		var created pet
		res.JSON(t, &created)
		if created.ID < 1 || created.Name != "Rex" || created.CategoryID != 1 || created.Status != "available" || created.CreatedAt == "" {
			t.Fatalf("created pet %+v: want an id, the trimmed name, category 1 and status available", created)
		}
		if loc := res.Header.Get("Location"); loc != fmt.Sprintf("%s/v1/pets/%d", s.URL, created.ID) {
			t.Fatalf("Location %q, want %s/v1/pets/%d", loc, s.URL, created.ID)
		}

		var list []pet
		s.Get(t, "/v1/pets").JSON(t, &list)
		if len(list) != 1 || list[0] != created {
			t.Fatalf("GET /v1/pets = %+v, want just %+v", list, created)
		}
		var got pet
		s.Get(t, fmt.Sprintf("/v1/pets/%d", created.ID)).JSON(t, &got)
		if got != created {
			t.Fatalf("GET /v1/pets/%d = %+v, want %+v", created.ID, got, created)
		}
	})
}

func TestPetSurvivesARestart(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		first := apptest.New(t, cfg)
		created := createPet(t, first, map[string]any{"name": "Tom", "categoryId": 2, "status": "pending"})
		if sqlDB, err := first.DB.DB(); err == nil {
			sqlDB.Close()
		}

		second := apptest.New(t, cfg)
		var got pet
		res := second.Get(t, fmt.Sprintf("/v1/pets/%d", created.ID))
		res.JSON(t, &got)
		if res.StatusCode != http.StatusOK || got != created {
			t.Fatalf("after restart: status %d, pet %+v; want 200 and %+v", res.StatusCode, got, created)
		}
	})
}

func TestCreatePetRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 101)
	cases := []struct {
		name        string
		contentType string
		body        string
		status      int
		code        string
		mentions    string
	}{
		{"missing name", "", `{"categoryId":1}`, 400, "validation_failed", "name"},
		{"missing categoryId", "", `{"name":"Rex"}`, 400, "validation_failed", "categoryId"},
		{"null name", "", `{"name":null,"categoryId":1}`, 400, "validation_failed", "name"},
		{"empty name", "", `{"name":"","categoryId":1}`, 400, "validation_failed", "name"},
		{"blank name", "", `{"name":"   ","categoryId":1}`, 400, "validation_failed", "name"},
		{"name of 101 characters", "", `{"name":"` + long + `","categoryId":1}`, 400, "validation_failed", "100"},
		{"control character in name", "", `{"name":"Re\u0007x","categoryId":1}`, 400, "validation_failed", "control"},
		{"name not a string", "", `{"name":5,"categoryId":1}`, 400, "validation_failed", "name"},
		{"categoryId not an integer", "", `{"name":"Rex","categoryId":1.5}`, 400, "validation_failed", "categoryId"},
		{"categoryId a string", "", `{"name":"Rex","categoryId":"1"}`, 400, "validation_failed", "categoryId"},
		{"categoryId zero", "", `{"name":"Rex","categoryId":0}`, 400, "validation_failed", "categoryId"},
		{"unknown category", "", `{"name":"Rex","categoryId":999}`, 400, "validation_failed", "categoryId"},
		{"unknown status", "", `{"name":"Rex","categoryId":1,"status":"lost"}`, 400, "validation_failed", "status"},
		{"unknown field", "", `{"name":"Rex","categoryId":1,"colour":"red"}`, 400, "invalid_request", "colour"},
		{"id given by the client", "", `{"id":7,"name":"Rex","categoryId":1}`, 400, "invalid_request", "id"},
		{"malformed JSON", "", `{"name":"Rex",`, 400, "invalid_request", "JSON"},
		{"not an object", "", `[{"name":"Rex","categoryId":1}]`, 400, "invalid_request", "object"},
		{"trailing data", "", `{"name":"Rex","categoryId":1} {}`, 400, "invalid_request", "JSON"},
		{"empty body", "", ``, 400, "invalid_request", "body"},
		{"member name in another case", "", `{"NAME":"Rex","categoryId":1}`, 400, "invalid_request", "NAME"},
		{"member given twice", "", `{"name":"Rex","name":"Max","categoryId":1}`, 400, "invalid_request", "name"},
		{"null status", "", `{"name":"Rex","categoryId":1,"status":null}`, 400, "validation_failed", "status"},
		{"null category", "", `{"name":"Rex","categoryId":null}`, 400, "validation_failed", "categoryId"},
		{"invalid UTF-8", "", "{\"name\":\"R\xffx\",\"categoryId\":1}", 400, "invalid_request", "UTF-8"},
		{"lone surrogate escape", "", `{"name":"\ud800","categoryId":1}`, 400, "invalid_request", "surrogate"},
		{"right-to-left override", "", `{"name":"Rex\u202E","categoryId":1}`, 400, "validation_failed", "U+202E"},
		{"zero-width space", "", `{"name":"Re\u200Bx","categoryId":1}`, 400, "validation_failed", "U+200B"},
		{"byte-order mark in the name", "", `{"name":"\uFEFFRex","categoryId":1}`, 400, "validation_failed", "U+FEFF"},
		{"merge patch media type", "application/merge-patch+json", `{"name":"Rex","categoryId":1}`, 415, "unsupported_media_type", "application/json"},
		{"other +json media type", "application/problem+json", `{"name":"Rex","categoryId":1}`, 415, "unsupported_media_type", "application/json"},
		{"charset other than UTF-8", "application/json; charset=iso-8859-1", `{"name":"Rex","categoryId":1}`, 415, "unsupported_media_type", "charset"},
		{"form content type", "application/x-www-form-urlencoded", `name=Rex&categoryId=1`, 415, "unsupported_media_type", "application/json"},
		{"no content type", "none", `{"name":"Rex","categoryId":1}`, 415, "unsupported_media_type", "application/json"},
		{"body over 64 KiB", "", `{"name":"` + strings.Repeat("x", 65*1024) + `","categoryId":1}`, 413, "payload_too_large", "64 KiB"},
	}
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store)).Invalid()
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				req := s.NewRequest(t, http.MethodPost, "/v1/pets", strings.NewReader(tc.body))
				switch tc.contentType {
				case "":
					req.Header.Set("Content-Type", "application/json; charset=utf-8")
				case "none":
				default:
					req.Header.Set("Content-Type", tc.contentType)
				}
				res := s.Do(t, req)
				if res.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, res.Body)
				}
				code, msg := res.ErrorBody(t)
				if code != tc.code || !strings.Contains(msg, tc.mentions) {
					t.Fatalf("error %q %q, want code %q and a message naming %q", code, msg, tc.code, tc.mentions)
				}
			})
		}
		if n := countPets(t, s); n != 0 {
			t.Fatalf("refused requests stored %d pets", n)
		}
	})
}

func TestCreatePetAcceptsEdgeNames(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		for _, name := range []string{"R", strings.Repeat("🐕", 100), "Zoë the <b>brave</b>"} {
			if p := createPet(t, s, map[string]any{"name": name, "categoryId": 3, "status": "sold"}); p.Name != name || p.Status != "sold" {
				t.Fatalf("created %+v, want name %q status sold", p, name)
			}
		}
	})
}

func TestListPetsRefusesBadParameters(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		for _, q := range []string{"limit=0", "limit=101", "limit=abc", "limit=1.5", "limit=-1", "status=lost", "cursor=%%%", "cursor=bm90LWEtY3Vyc29y"} {
			res := s.Invalid().Get(t, "/v1/pets?"+q)
			if res.StatusCode != http.StatusBadRequest {
				t.Fatalf("GET /v1/pets?%s: status %d, want 400: %s", q, res.StatusCode, res.Body)
			}
			code, msg := res.ErrorBody(t)
			param := strings.SplitN(q, "=", 2)[0]
			if code != "invalid_request" || !strings.Contains(msg, param) {
				t.Fatalf("GET /v1/pets?%s: %s %q, want invalid_request naming %s", q, code, msg, param)
			}
		}
	})
}

var nextLink = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

func TestWalkingTheListThroughLinkHeadersReturnsEachPetOnce(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		pets := make([]models.Pet, 250)
		for i := range pets {
			pets[i] = models.Pet{Name: fmt.Sprintf("Pet %d", i), CategoryID: int64(i%6 + 1), Status: models.PetStatuses[i%3]}
		}
		if err := s.DB.Create(&pets).Error; err != nil {
			t.Fatal(err)
		}

		walk := func(first string) (ids []int64, pages int) {
			for target := first; target != ""; pages++ {
				res := s.Get(t, target)
				if res.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %d %s", target, res.StatusCode, res.Body)
				}
				var page []pet
				res.JSON(t, &page)
				for _, p := range page {
					ids = append(ids, p.ID)
				}
				target = ""
				if link := res.Header.Get("Link"); link != "" {
					m := nextLink.FindStringSubmatch(link)
					if m == nil {
						t.Fatalf("Link %q is not <url>; rel=\"next\"", link)
					}
					target = m[1]
				}
			}
			return ids, pages
		}

		ids, pages := walk("/v1/pets?limit=100")
		if len(ids) != 250 || pages != 3 {
			t.Fatalf("walked %d pets in %d pages, want 250 in 3", len(ids), pages)
		}
		for i, id := range ids {
			if id != pets[i].ID {
				t.Fatalf("item %d has id %d, want %d (each pet once, ascending)", i, id, pets[i].ID)
			}
		}

		sold, _ := walk("/v1/pets?status=sold&limit=7")
		want := 0
		for _, p := range pets {
			if p.Status == models.PetSold {
				if sold[want] != p.ID {
					t.Fatalf("sold item %d: id %d, want %d", want, sold[want], p.ID)
				}
				want++
			}
		}
		if len(sold) != want {
			t.Fatalf("walked %d sold pets, want %d", len(sold), want)
		}

		var def []pet
		s.Get(t, "/v1/pets").JSON(t, &def)
		if len(def) != models.DefaultLimit {
			t.Fatalf("default page has %d pets, want %d", len(def), models.DefaultLimit)
		}
	})
}

func TestGetPetIsDeprecatedOnEveryResponse(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		for _, tc := range []struct {
			path    string
			status  int
			code    string
			invalid bool
		}{
			{fmt.Sprintf("/v1/pets/%d", p.ID), 200, "", false},
			{"/v1/pets/987654", 404, "not_found", false},
			{"/v1/pets/abc", 400, "invalid_request", true},
			{"/v1/pets/99999999999999999999", 400, "invalid_request", true},
		} {
			client := s
			if tc.invalid {
				client = s.Invalid()
			}
			res := client.Get(t, tc.path)
			if res.StatusCode != tc.status {
				t.Fatalf("GET %s: %d, want %d: %s", tc.path, res.StatusCode, tc.status, res.Body)
			}
			if tc.code != "" {
				if code, _ := res.ErrorBody(t); code != tc.code {
					t.Fatalf("GET %s: code %q, want %q", tc.path, code, tc.code)
				}
			}
			for h, want := range map[string]string{
				"Deprecation": "@1795219200",
				"Sunset":      "Thu, 05 Dec 2030 00:00:00 GMT",
				"Link":        `</v1/pets>; rel="successor-version"`,
			} {
				if got := res.Header.Get(h); got != want {
					t.Fatalf("GET %s: %s %q, want %q", tc.path, h, got, want)
				}
			}
		}
	})
}

func TestCategoriesAreSeeded(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		if err := models.Migrate(context.Background(), s.DB); err != nil {
			t.Fatalf("second migration: %v", err)
		}
		var cats []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		s.Get(t, "/v1/categories").JSON(t, &cats)
		var names []string
		for _, c := range cats {
			names = append(names, c.Name)
		}
		if got, want := strings.Join(names, ","), strings.Join(models.SeedCategories, ","); got != want {
			t.Fatalf("categories %s, want %s (seeded once, in order)", got, want)
		}
	})
}

func TestUnknownRoutesAndMethodsAnswerWithAnErrorBody(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	for _, tc := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/v1/nothing-here", 404, "not_found", ""},
		{"GET", "/nothing-here", 404, "not_found", ""},
		{"DELETE", "/v1/pets", 405, "method_not_allowed", "POST"},
		{"PUT", "/v1/pets/1", 405, "method_not_allowed", "GET"},
	} {
		res := s.Invalid().Do(t, s.NewRequest(t, tc.method, tc.path, nil))
		if res.StatusCode != tc.status {
			t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, res.StatusCode, tc.status)
		}
		if code, _ := res.ErrorBody(t); code != tc.code {
			t.Fatalf("%s %s: code %q, want %q", tc.method, tc.path, code, tc.code)
		}
		if !strings.Contains(res.Header.Get("Allow"), tc.allow) {
			t.Fatalf("%s %s: Allow %q, want it to list %s", tc.method, tc.path, res.Header.Get("Allow"), tc.allow)
		}
	}
}

func TestPanicAnswersInternalErrorWithoutInternals(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite), apptest.WithRoutes(func(a *fiber.App) {
		a.Get("/v1/explode", func(*fiber.Ctx) error { panic("secret database password") })
	}))
	res := s.Invalid().Get(t, "/v1/explode")
	code, msg := res.ErrorBody(t)
	if res.StatusCode != 500 || code != "internal_error" || strings.Contains(msg, "secret") {
		t.Fatalf("panic answered %d %q %q; want 500 internal_error with no internals", res.StatusCode, code, msg)
	}
}

func TestRequestIDIsEchoedWhenWellFormedAndMadeOtherwise(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	req := s.NewRequest(t, "GET", "/healthz", nil)
	req.Header.Set("X-Request-ID", "abc-123")
	if got := s.Do(t, req).Header.Get("X-Request-ID"); got != "abc-123" {
		t.Fatalf("X-Request-ID %q, want the client's abc-123", got)
	}
	req = s.NewRequest(t, "GET", "/healthz", nil)
	req.Header.Set("X-Request-ID", "bad id\twith spaces")
	if got := s.Do(t, req).Header.Get("X-Request-ID"); len(got) != 36 {
		t.Fatalf("X-Request-ID %q, want a fresh UUID in place of a malformed one", got)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		if res := s.Get(t, "/healthz"); res.StatusCode != 200 {
			t.Fatalf("/healthz: %d", res.StatusCode)
		}
		if res := s.Get(t, "/readyz"); res.StatusCode != 200 || !strings.Contains(string(res.Body), `"database":"ok"`) {
			t.Fatalf("/readyz: %d %s", res.StatusCode, res.Body)
		}
		if sqlDB, err := s.DB.DB(); err == nil {
			sqlDB.Close()
		}
		res := s.Get(t, "/readyz")
		if code, _ := res.ErrorBody(t); res.StatusCode != 503 || code != "unavailable" {
			t.Fatalf("/readyz with the database closed: %d %s, want 503 unavailable", res.StatusCode, res.Body)
		}
	})
}

func TestCompressedBodiesAreRefusedAndChangeNothing(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	req := s.NewRequest(t, http.MethodPost, "/v1/pets", strings.NewReader(`{"name":"Rex","categoryId":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	res := s.Invalid().Do(t, req)
	if code, msg := res.ErrorBody(t); res.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(msg, "Content-Encoding") {
		t.Fatalf("a gzip-labelled body: %d %s %q, want 415 naming Content-Encoding", res.StatusCode, code, msg)
	}
	if n := countPets(t, s); n != 0 {
		t.Fatalf("a refused body stored %d pets", n)
	}
}

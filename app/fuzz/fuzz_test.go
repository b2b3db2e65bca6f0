// Package fuzz holds the fuzz targets: hostile input through the real server on a loopback port,
// on both stores. Each answer must be a success of the documented shape or a complete Error body,
// never a 5xx, and a refused request must change nothing. `make fuzz` runs each briefly; the
// testing guide (docs/testing.md) says how to run one for hours.
//
// They live apart from the app package's tests so that go test -fuzz, which instruments every
// package of the test binary, builds only what they need: not the browser, terminal and other
// libraries the rest of those tests use.
package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/apiclient"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// fuzzServers starts the service on both stores, once per fuzzing process. Fuzzed requests
// break the API document on purpose; their answers are still held to it.
func fuzzServers(f *testing.F) []*apptest.Server {
	return []*apptest.Server{apptest.New(f, apptest.Config(f, testenv.SQLite)).Invalid(), apptest.New(f, apptest.Config(f, testenv.Postgres)).Invalid()}
}

// checkRefusal fails unless res is a 4xx with a complete Error body whose code is one of codes.
func checkRefusal(t *testing.T, what string, res *apptest.Response, codes ...string) {
	t.Helper()
	if res.StatusCode < 400 || res.StatusCode >= 500 {
		t.Fatalf("%s: status %d, want a 4xx refusal: %s", what, res.StatusCode, res.Body)
	}
	// A request line over the server's cap (8 KiB by default; a fuzzer grows a path or a query
	// past it) is refused before any route runs, whatever the operation.
	if res.StatusCode == http.StatusRequestHeaderFieldsTooLarge && len(res.Request.URL.RequestURI()) > 4<<10 {
		codes = append(codes, "request_header_fields_too_large")
	}
	if code, _ := res.ErrorBody(t); len(codes) > 0 && !slices.Contains(codes, code) {
		t.Fatalf("%s: code %q, want one of %v: %s", what, code, codes, res.Body)
	}
}

// send sends req, or reports false when the server reset the connection of a request past its
// cap on the request line and headers (see apptest.Server.Send): there is no answer to check.
func send(t *testing.T, s *apptest.Server, req *http.Request) (*apptest.Response, bool) {
	t.Helper()
	res, err := s.Send(t, req)
	if err != nil {
		if s.OverHeaderCap(req) && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
			return nil, false
		}
		t.Fatalf("%s %.200s: %v", req.Method, req.URL, err)
	}
	return res, true
}

// checkPet fails unless body is a Pet the rules allow, and returns it.
func checkPet(t *testing.T, what string, body []byte) apiclient.Pet {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatalf("%s: not a JSON object: %v: %s", what, err, body)
	}
	for _, k := range []string{"id", "name", "categoryId", "status"} {
		if _, ok := fields[k]; !ok {
			t.Fatalf("%s: Pet without %q: %s", what, k, body)
		}
	}
	var p apiclient.Pet
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%s: not a Pet: %v: %s", what, err, body)
	}
	n := utf8.RuneCountInString(p.Name)
	if p.Id < 1 || n < 1 || n > models.MaxNameLength || p.Name != strings.TrimSpace(p.Name) ||
		strings.IndexFunc(p.Name, unicode.IsControl) >= 0 || !utf8.ValidString(p.Name) ||
		p.CategoryId < 1 || !slices.Contains(models.PetStatuses, models.PetStatus(p.Status)) {
		t.Fatalf("%s: a Pet the rules forbid: %+v", what, p)
	}
	return p
}

func FuzzCreatePet(f *testing.F) {
	for _, body := range apptest.PetBodySeeds {
		f.Add([]byte(body), "application/json")
	}
	for _, ct := range apptest.ContentTypeSeeds {
		f.Add([]byte(`{"name":"Rex","categoryId":1}`), ct)
	}
	servers := fuzzServers(f)

	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, s := range servers {
			what := fmt.Sprintf("%s: POST /v1/pets %q (Content-Type %q)", s.DB.Dialector.Name(), body, contentType)
			if !apptest.ValidHeaderValue(contentType) {
				return // net/http refuses to send it
			}
			before := countPets(t, s)
			req := s.NewRequest(t, http.MethodPost, "/v1/pets", bytes.NewReader(body))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			res, ok := send(t, s, req)
			if !ok {
				continue
			}
			added := countPets(t, s) - before
			if res.StatusCode != http.StatusCreated {
				checkRefusal(t, what, res, models.EInvalid, models.EValidation, "unsupported_media_type", "payload_too_large")
				if added != 0 {
					t.Fatalf("%s: refused with %d but stored %d pets", what, res.StatusCode, added)
				}
				continue
			}
			p := checkPet(t, what, res.Body)
			if added != 1 || res.Header.Get("Location") != fmt.Sprintf("%s/v1/pets/%d", s.URL, p.Id) {
				t.Fatalf("%s: 201 stored %d pets, Location %q", what, added, res.Header.Get("Location"))
			}
			if got := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.Id)); got.StatusCode != 200 || !bytes.Equal(got.Body, res.Body) {
				t.Fatalf("%s: created %s, but GET answers %d %s", what, res.Body, got.StatusCode, got.Body)
			}
		}
	})
}

var patchBodySeeds = []string{
	`{}`, `{"name":"Max"}`, `{"name":"  Max  ","categoryId":2}`, `{"status":"sold"}`, `{"status":"available"}`,
	`{"name":null}`, `{"categoryId":null}`, `{"status":null}`, `{"name":""}`, `{"name":"Max\u202E"}`, `{"name":"\ud800"}`,
	`{"categoryId":999}`, `{"categoryId":0}`, `{"categoryId":1.5}`, `{"status":"lost"}`, `{"id":1}`, `{"createdAt":"2026-01-01T00:00:00Z"}`,
	`{"Name":"Max"}`, `{"name":"Max","name":"Tom"}`, `[{"op":"replace","path":"/name","value":"Max"}]`, `null`, `"Max"`, ``,
}

var ifMatchSeeds = []string{"", "*", `"abc"`, `W/"abc"`, `"a", "b"`, "garbage", `"`, `W/`, `"abc`, `*, "x"`}

// FuzzPatchPet changes one pet with fuzzed bodies, media types and If-Match headers: a 200 is the
// pet as it is now; a refusal changes nothing, the pet and its history alike.
func FuzzPatchPet(f *testing.F) {
	for i, body := range patchBodySeeds {
		f.Add([]byte(body), []string{"application/merge-patch+json", "application/json"}[i%2], ifMatchSeeds[i%len(ifMatchSeeds)])
	}
	for _, ct := range append(apptest.ContentTypeSeeds, "application/json-patch+json", "application/merge-patch+json; charset=UTF-8") {
		f.Add([]byte(`{"name":"Max"}`), ct, "")
	}
	servers := fuzzServers(f)
	ids := make([]int64, len(servers))
	for i, s := range servers {
		ids[i] = addPets(f, s, 1)[0].ID
	}

	f.Fuzz(func(t *testing.T, body []byte, contentType, ifMatch string) {
		if !apptest.ValidHeaderValue(contentType) || !apptest.ValidHeaderValue(ifMatch) {
			return // net/http refuses to send it
		}
		for i, s := range servers {
			path := fmt.Sprintf("/v1/pets/%d", ids[i])
			what := fmt.Sprintf("%s: PATCH %s %q (Content-Type %q, If-Match %q)", s.DB.Dialector.Name(), path, body, contentType, ifMatch)
			before, history := s.Get(t, path).Body, historyLength(t, s, ids[i])
			req := s.NewRequest(t, http.MethodPatch, path, bytes.NewReader(body))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			if ifMatch != "" {
				req.Header.Set("If-Match", ifMatch)
			}
			res, ok := send(t, s, req)
			if !ok {
				continue
			}
			after := s.Get(t, path)
			if res.StatusCode != http.StatusOK {
				checkRefusal(t, what, res, models.EInvalid, models.EValidation, models.EPrecondition, "unsupported_media_type", "payload_too_large")
				if !bytes.Equal(after.Body, before) || historyLength(t, s, ids[i]) != history {
					t.Fatalf("%s: refused with %d but changed the pet: %s, was %s", what, res.StatusCode, after.Body, before)
				}
				continue
			}
			if checkPet(t, what, res.Body); !bytes.Equal(res.Body, after.Body) || res.Header.Get("ETag") != after.Header.Get("ETag") {
				t.Fatalf("%s: answered %s, but GET answers %s", what, res.Body, after.Body)
			}
		}
	})
}

// FuzzDeletePet deletes by fuzzed ids and If-Match headers: a 204 only for the one pet that
// exists (then restored, as staff would), a refusal that changes nothing otherwise.
func FuzzDeletePet(f *testing.F) {
	for i, id := range apptest.PetIDSeeds {
		f.Add(id, ifMatchSeeds[i%len(ifMatchSeeds)])
	}
	servers := fuzzServers(f)
	ids := make([]int64, len(servers))
	for i, s := range servers {
		ids[i] = addPets(f, s, 1)[0].ID
		f.Add(fmt.Sprint(ids[i]), "")
		f.Add(fmt.Sprint(ids[i]), "*")
	}

	f.Fuzz(func(t *testing.T, id, ifMatch string) {
		if !apptest.ValidHeaderValue(ifMatch) {
			return
		}
		for i, s := range servers {
			target := "/v1/pets/" + url.PathEscape(id)
			what := fmt.Sprintf("%s: DELETE %s (If-Match %q)", s.DB.Dialector.Name(), target, ifMatch)
			req := s.NewRequest(t, http.MethodDelete, target, nil)
			if ifMatch != "" {
				req.Header.Set("If-Match", ifMatch)
			}
			res, ok := send(t, s, req)
			if !ok {
				continue
			}
			live := countPets(t, s)
			if res.StatusCode != http.StatusNoContent {
				// The path may normalise to the list, which takes no DELETE (405).
				checkRefusal(t, what, res, models.EInvalid, models.ENotFound, models.EPrecondition, "method_not_allowed")
				if live != 1 {
					t.Fatalf("%s: refused with %d, but %d pets are left", what, res.StatusCode, live)
				}
				continue
			}
			if n, err := strconv.ParseInt(id, 10, 64); live != 0 || err != nil || n != ids[i] {
				t.Fatalf("%s: 204 for id %q, and %d pets are left (the pet is %d)", what, id, live, ids[i])
			}
			if _, err := models.NewPetStore(s.DB).Restore(context.Background(), ids[i], "fuzz"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func historyLength(t *testing.T, s *apptest.Server, petID int64) int {
	t.Helper()
	h, err := models.NewPetStore(s.DB).History(context.Background(), petID)
	if err != nil {
		t.Fatal(err)
	}
	return len(h)
}

var idempotencyKeySeeds = []string{"", "2f1c7a52-5b8e-4a59-a4f5-0c1d7c1f3e11", "retry-1", " ", "a b", strings.Repeat("k", 255),
	strings.Repeat("k", 256), "é", "key\twith\ttabs"}

func FuzzCreateOrder(f *testing.F) {
	for i, body := range apptest.OrderBodySeeds {
		f.Add([]byte(body), idempotencyKeySeeds[i%len(idempotencyKeySeeds)])
	}
	servers := fuzzServers(f)
	for _, s := range servers {
		stock := make([]models.Pet, 20)
		for i := range stock {
			stock[i] = models.Pet{Name: fmt.Sprint("Stock ", i), CategoryID: 1, Status: models.PetAvailable}
		}
		if err := s.DB.Create(&stock).Error; err != nil {
			f.Fatal(err)
		}
	}

	f.Fuzz(func(t *testing.T, body []byte, idemKey string) {
		if !apptest.ValidHeaderValue(idemKey) {
			return // net/http refuses to send it
		}
		for _, s := range servers {
			what := fmt.Sprintf("%s: POST /v1/store/orders %q (Idempotency-Key %q)", s.DB.Dialector.Name(), body, idemKey)
			before := storeState(t, s)
			req := s.NewRequest(t, http.MethodPost, "/v1/store/orders", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if idemKey != "" {
				req.Header.Set("Idempotency-Key", idemKey)
			}
			res, ok := send(t, s, req)
			if !ok {
				continue
			}
			after := storeState(t, s)
			if res.StatusCode != http.StatusCreated || res.Header.Get("Idempotent-Replayed") == "true" {
				if res.StatusCode != http.StatusCreated {
					checkRefusal(t, what, res, models.EInvalid, models.EValidation, models.ENotFound, models.EConflict,
						models.EIdemReused, "unsupported_media_type", "payload_too_large")
				}
				if after != before {
					t.Fatalf("%s: answered %d but changed the store: %s, then %s", what, res.StatusCode, before, after)
				}
				continue
			}
			o := checkOrder(t, what, res.Body)
			if o.Status != "placed" || after.orders != before.orders+1 || res.Header.Get("Location") != fmt.Sprintf("%s/v1/store/orders/%d", s.URL, o.Id) {
				t.Fatalf("%s: 201 %s: orders %d then %d, Location %q", what, res.Body, before.orders, after.orders, res.Header.Get("Location"))
			}
			var p apiclient.Pet
			if s.Get(t, fmt.Sprintf("/v1/pets/%d", o.PetId)).JSON(t, &p); p.Status != "pending" {
				t.Fatalf("%s: the ordered pet is %q, want pending", what, p.Status)
			}
			// Put the pet back on sale, so that fuzzing for hours does not run out of pets.
			if _, err := models.NewOrderStore(s.DB).Cancel(context.Background(), o.Id, "fuzz"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// state counts what a refused request must not change: orders, and pets by status.
type state struct{ orders, available, pending, sold int64 }

func (st state) String() string {
	return fmt.Sprintf("%d orders, pets %d available, %d pending, %d sold", st.orders, st.available, st.pending, st.sold)
}

func storeState(t *testing.T, s *apptest.Server) state {
	t.Helper()
	return state{
		orders:    count(t, s.DB.Model(&models.Order{})),
		available: count(t, s.DB.Model(&models.Pet{}).Where("status = ?", models.PetAvailable)),
		pending:   count(t, s.DB.Model(&models.Pet{}).Where("status = ?", models.PetPending)),
		sold:      count(t, s.DB.Model(&models.Pet{}).Where("status = ?", models.PetSold)),
	}
}

// countPets counts the pets in s's database (not the deleted ones).
func countPets(t *testing.T, s *apptest.Server) int64 {
	t.Helper()
	return count(t, s.DB.Model(&models.Pet{}))
}

func count(t *testing.T, q *gorm.DB) int64 {
	t.Helper()
	var n int64
	if err := q.Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// checkOrder fails unless body is an Order the rules allow, and returns it.
func checkOrder(t *testing.T, what string, body []byte) apiclient.Order {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatalf("%s: not a JSON object: %v: %s", what, err, body)
	}
	for _, k := range []string{"id", "petId", "quantity", "status", "complete", "createdAt"} {
		if _, ok := fields[k]; !ok {
			t.Fatalf("%s: Order without %q: %s", what, k, body)
		}
	}
	var o apiclient.Order
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatalf("%s: not an Order: %v: %s", what, err, body)
	}
	if o.Id < 1 || o.PetId < 1 || o.Quantity != 1 || !slices.Contains(models.OrderStatuses, models.OrderStatus(o.Status)) ||
		o.Complete != (o.Status == apiclient.OrderStatus(models.OrderDelivered)) || o.CreatedAt == nil {
		t.Fatalf("%s: an Order the rules forbid: %+v", what, o)
	}
	return o
}

func FuzzListPets(f *testing.F) {
	fuzzList(f, "/v1/pets", func(f *testing.F, s *apptest.Server) {
		addPets(f, s, 30)
	}, func(t *testing.T, what string, item []byte) int64 { return checkPet(t, what, item).Id })
}

func FuzzListOrders(f *testing.F) {
	fuzzList(f, "/v1/store/orders", func(f *testing.F, s *apptest.Server) {
		addOrders(f, s, 30)
	}, func(t *testing.T, what string, item []byte) int64 { return checkOrder(t, what, item).Id })
}

func FuzzGetPet(f *testing.F) {
	fuzzGet(f, "/v1/pets/", func(f *testing.F, s *apptest.Server) int64 { return addPets(f, s, 1)[0].ID },
		func(t *testing.T, what string, body []byte) int64 { return checkPet(t, what, body).Id })
}

func FuzzGetOrder(f *testing.F) {
	fuzzGet(f, "/v1/store/orders/", func(f *testing.F, s *apptest.Server) int64 { return addOrders(f, s, 1)[0].ID },
		func(t *testing.T, what string, body []byte) int64 { return checkOrder(t, what, body).Id })
}

// addPets stores n pets straight in s's database, in every status.
func addPets(f *testing.F, s *apptest.Server, n int) []models.Pet {
	pets := make([]models.Pet, n)
	for i := range pets {
		pets[i] = models.Pet{Name: fmt.Sprint("Pet ", i), CategoryID: int64(i%6 + 1), Status: models.PetStatuses[i%3]}
	}
	if err := s.DB.Create(&pets).Error; err != nil {
		f.Fatal(err)
	}
	return pets
}

// addOrders places n orders through the order store, and moves them into every status.
func addOrders(f *testing.F, s *apptest.Server, n int) []*models.Order {
	ctx, orders := context.Background(), models.NewOrderStore(s.DB)
	out := make([]*models.Order, n)
	for i := range out {
		p := models.Pet{Name: fmt.Sprint("Ordered ", i), CategoryID: 1, Status: models.PetAvailable}
		if err := s.DB.Create(&p).Error; err != nil {
			f.Fatal(err)
		}
		o, err := orders.Place(ctx, models.NewOrder{PetID: &p.ID}, models.ClientOwner(s.ClientID), "fuzz", nil)
		for _, a := range [][]models.Action{nil, {models.ActionApprove}, {models.ActionApprove, models.ActionDeliver}, {models.ActionCancel}}[i%4] {
			if err == nil {
				o, err = orders.Apply(ctx, o.ID, a, "fuzz")
			}
		}
		if err != nil {
			f.Fatal(err)
		}
		out[i] = o
	}
	return out
}

// nextLink is the Link header of a page that has a next one.
var nextLink = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// fuzzList fuzzes the query string of a list: every answer is a page of valid items in
// ascending id order, whose next page (when announced) answers too, or a 400 invalid_request.
func fuzzList(f *testing.F, path string, fill func(*testing.F, *apptest.Server), check func(t *testing.T, what string, item []byte) int64) {
	for _, q := range apptest.ListQuerySeeds {
		f.Add(q)
	}
	for _, st := range models.OrderStatuses {
		f.Add("status=" + string(st))
	}
	servers := fuzzServers(f)
	for _, s := range servers {
		fill(f, s)
	}

	f.Fuzz(func(t *testing.T, rawQuery string) {
		for _, s := range servers {
			target := path + "?" + apptest.RequestLineSafe(rawQuery)
			what := s.DB.Dialector.Name() + ": GET " + target
			res, ok := send(t, s, s.NewRequest(t, http.MethodGet, target, nil))
			if !ok {
				continue
			}
			if res.StatusCode != http.StatusOK {
				checkRefusal(t, what, res, models.EInvalid)
				continue
			}
			var items []json.RawMessage
			if err := json.Unmarshal(res.Body, &items); err != nil || len(items) > models.MaxLimit {
				t.Fatalf("%s: want an array of at most %d items: %v %s", what, models.MaxLimit, err, res.Body)
			}
			var last int64
			for _, item := range items {
				id := check(t, what, item)
				if id <= last {
					t.Fatalf("%s: ids not ascending: %s", what, res.Body)
				}
				last = id
			}
			if link := res.Header.Get("Link"); link != "" {
				m := nextLink.FindStringSubmatch(link)
				if m == nil {
					t.Fatalf("%s: Link %q is not <url>; rel=\"next\"", what, link)
				}
				if next := s.Get(t, m[1]); next.StatusCode != http.StatusOK {
					t.Fatalf("%s: the next page %s answers %d %s", what, m[1], next.StatusCode, next.Body)
				}
			}
		}
	})
}

// fuzzGet fuzzes the id in prefix<id>: the one item that exists, a 404 or a 400.
func fuzzGet(f *testing.F, prefix string, make1 func(*testing.F, *apptest.Server) int64, check func(t *testing.T, what string, body []byte) int64) {
	for _, id := range apptest.PetIDSeeds {
		f.Add(id)
	}
	// A path far past the cap on the request line, which the server may answer by resetting
	// the connection (FuzzGetOrder found one in CI).
	f.Add(strings.Repeat("{", 100_000))
	servers := fuzzServers(f)
	ids := make([]int64, len(servers))
	for i, s := range servers {
		ids[i] = make1(f, s)
	}

	f.Fuzz(func(t *testing.T, id string) {
		for i, s := range servers {
			target := prefix + url.PathEscape(id)
			what := s.DB.Dialector.Name() + ": GET " + target
			res, ok := send(t, s, s.NewRequest(t, http.MethodGet, target, nil))
			if !ok {
				continue
			}
			switch {
			case res.StatusCode != http.StatusOK:
				checkRefusal(t, what, res, models.EInvalid, models.ENotFound)
			case bytes.HasPrefix(res.Body, []byte("[")):
				// The path normalised to the list (an empty id, "..", "./"); the list fuzzers cover it.
			default:
				if got := check(t, what, res.Body); got != ids[i] {
					t.Fatalf("%s: answered item %d, and only %d exists", what, got, ids[i])
				}
			}
		}
	})
}

func FuzzAuthorizationHeader(f *testing.F) {
	servers := fuzzServers(f)
	for i, s := range servers {
		anonymous := *s
		anonymous.Headers = http.Header{} // only the fuzzed Authorization header goes out
		servers[i] = &anonymous
	}
	key := servers[0].APIKey
	for _, h := range []string{"", "Bearer", "Bearer ", "Bearer  ", "Bearer " + key, "bearer " + key, "BEARER " + key,
		"Bearer " + key + " ", "Bearer " + key + "x", "Bearer " + key[:len(key)-1], "Bearer " + strings.ToUpper(key),
		"Basic dXNlcjpwYXNz", "Token " + key, key, "Bearer " + strings.Repeat("a", 4000), "Bearer é", "Bearer \t" + key} {
		f.Add(h)
	}

	f.Fuzz(func(t *testing.T, header string) {
		if !apptest.ValidHeaderValue(header) {
			return // net/http refuses to send it; FuzzRawRequest sends such bytes
		}
		for _, s := range servers {
			req := s.NewRequest(t, http.MethodGet, "/v1/categories", nil)
			req.Header.Set("Authorization", header)
			res, ok := send(t, s, req)
			if !ok {
				continue
			}
			what := fmt.Sprintf("%s: GET /v1/categories with Authorization %q", s.DB.Dialector.Name(), header)
			valid := len(header) > 7 && strings.EqualFold(header[:7], "bearer ") && strings.TrimSpace(header[7:]) == s.APIKey
			switch {
			case res.StatusCode == http.StatusOK && !valid:
				t.Fatalf("%s: 200 without the key", what)
			case res.StatusCode == http.StatusOK:
			case res.StatusCode == http.StatusUnauthorized:
				checkRefusal(t, what, res, models.EMissingAPIKey, models.EInvalidAPIKey)
				if valid || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("%s: 401 with WWW-Authenticate %q", what, res.Header.Get("WWW-Authenticate"))
				}
			default:
				// The requests without a valid key count against this client's address.
				checkRefusal(t, what, res, models.ERateLimited)
			}
		}
	})
}

func FuzzRawRequest(f *testing.F) {
	for _, raw := range apptest.RawRequestSeeds {
		f.Add([]byte(raw))
	}
	cfg := apptest.Config(f, testenv.SQLite)
	cfg.ReadTimeout = 2 * time.Second
	s := apptest.New(f, cfg)

	f.Fuzz(func(t *testing.T, raw []byte) {
		if problem := apptest.RawExchange(strings.TrimPrefix(s.URL, "http://"), apptest.WithKey(raw, s.APIKey)); problem != "" {
			t.Fatalf("%q: %s", raw, problem)
		}
	})
}

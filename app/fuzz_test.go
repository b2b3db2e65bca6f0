package app_test

// Fuzz targets: hostile input through the real server on a loopback port, on both stores. Each
// answer must be a success of the documented shape or a complete Error body, never a 5xx, and a
// refused request must change nothing. `make fuzz` runs each briefly; the README says how to run
// one for hours.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// Seeds: real requests, good and bad, that the fuzzers start from and the hostile run replays.
var petBodySeeds = []string{
	`{"name":"Rex","categoryId":1}`,
	`{"name":"  Tom  ","categoryId":2,"status":"pending"}`,
	`{"name":"Zoë the <b>brave</b>","categoryId":3,"status":"sold"}`,
	`{"name":"` + strings.Repeat("🐕", 100) + `","categoryId":6}`,
	`{"categoryId":1}`, `{"name":"Rex"}`, `{"name":null,"categoryId":1}`, `{"name":"","categoryId":1}`,
	`{"name":"Re\u0007x","categoryId":1}`, `{"name":"Re\u0000x","categoryId":1}`, `{"name":"\ud800","categoryId":1}`,
	`{"name":5,"categoryId":1}`, `{"name":"Rex","categoryId":1.5}`, `{"name":"Rex","categoryId":"1"}`,
	`{"name":"Rex","categoryId":0}`, `{"name":"Rex","categoryId":-1}`, `{"name":"Rex","categoryId":999}`,
	`{"name":"Rex","categoryId":9223372036854775807}`, `{"name":"Rex","categoryId":9223372036854775808}`,
	`{"name":"Rex","categoryId":1e2}`, `{"name":"Rex","categoryId":1,"status":"lost"}`,
	`{"name":"Rex","categoryId":1,"status":null}`, `{"name":"Rex","categoryId":1,"colour":"red"}`,
	`{"id":7,"name":"Rex","categoryId":1}`, `{"name":"Rex","name":"Max","categoryId":1}`,
	`{"NAME":"Rex","categoryId":1}`, `{"name":"Rex",`, `[{"name":"Rex","categoryId":1}]`,
	`{"name":"Rex","categoryId":1} {}`, ``, `null`, `"Rex"`, `{}`, `{"name":{"a":1},"categoryId":[1]}`,
	strings.Repeat("[", 5000), `{"name":"'; DROP TABLE pets; --","categoryId":1}`,
	`{"name":"Rex","categoryId":1}` + "\x00", "\xef\xbb\xbf" + `{"name":"Rex","categoryId":1}`,
}

var contentTypeSeeds = []string{"application/json; charset=utf-8", "application/problem+json", "text/plain", "",
	"application/x-www-form-urlencoded", "application/json; charset", "multipart/form-data; boundary=x"}

var listQuerySeeds = []string{
	"", "limit=10", "status=sold", "limit=100&status=pending", "limit=1", "cursor=" + models.Cursor{ID: 3}.Encode(),
	"limit=2&cursor=" + models.Cursor{ID: 10}.Encode() + "&status=available", "cursor=" + models.Cursor{ID: -1}.Encode(),
	"cursor=" + models.Cursor{ID: 10, Before: true}.Encode(), "cursor=" + models.Cursor{Sort: models.Sort{Key: "name"}, ID: 3, Value: "Pet"}.Encode(),
	"cursor=djE6MTA", "id=1&id=2", "id=0", "id=", "id=abc", "categoryId=1", "categoryId=0", "categoryId=", "categoryId=1&categoryId=2",
	"status=sold&categoryId=2&id=3&id=5", "LIMIT=5", "Status=sold",
	"limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5", "limit=1e2", "limit=%20", "limit=",
	"limit=99999999999999999999", "status=lost", "status=SOLD", "status=", "cursor=%%%", "cursor=bm90LWEtY3Vyc29y",
	"limit=1&limit=2", "status=sold&status=pending", "limit[]=1", "limit=%00", "status=sold%00",
	"cursor=" + strings.Repeat("A", 4000), "&&&=&=", "a=b", "?", "limit=10#frag", "status=' OR 1=1 --",
}

var petIDSeeds = []string{"1", "0", "-1", "abc", "99999999999999999999", "9223372036854775807",
	"-9223372036854775808", "1.5", "1e3", " 1", "1 ", "+1", "0x10", "\x00", "%00", "..", "../categories",
	"1/2", "１", "", "' OR 1=1 --", strings.Repeat("9", 1000)}

var rawRequestSeeds = []string{
	"GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets?limit=5&status=sold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{\"name\":\"Rex\",\"categoryId\":1}",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1d\r\n{\"name\":\"Rex\",\"categoryId\":1}\r\n0\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
	"GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/categories HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET //v1//pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets%00 HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET http://evil.example/v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
	"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n",
	"TRACE /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets HTTP/1.0\r\n\r\n",
	"GET /v1/pets HTTP/2.0\r\nHost: x\r\n\r\n",
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"GET /v1/pets\r\n\r\n",
	"get /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-ID: ../../\x1b[31m\r\n\r\n",
	"GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x00\r\n\r\n",
	"GET /v1/pets HTTP/1.1\nHost: x\n\n",
	"\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
	"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
}

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
	if code, _ := res.ErrorBody(t); len(codes) > 0 && !slices.Contains(codes, code) {
		t.Fatalf("%s: code %q, want one of %v: %s", what, code, codes, res.Body)
	}
}

// checkPet fails unless body is a Pet the rules allow, and returns it.
func checkPet(t *testing.T, what string, body []byte) pet {
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
	var p pet
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%s: not a Pet: %v: %s", what, err, body)
	}
	n := utf8.RuneCountInString(p.Name)
	if p.ID < 1 || n < 1 || n > models.MaxNameLength || p.Name != strings.TrimSpace(p.Name) ||
		strings.IndexFunc(p.Name, unicode.IsControl) >= 0 || !utf8.ValidString(p.Name) ||
		p.CategoryID < 1 || !slices.Contains(models.PetStatuses, models.PetStatus(p.Status)) {
		t.Fatalf("%s: a Pet the rules forbid: %+v", what, p)
	}
	return p
}

func FuzzCreatePet(f *testing.F) {
	for _, body := range petBodySeeds {
		f.Add([]byte(body), "application/json")
	}
	for _, ct := range contentTypeSeeds {
		f.Add([]byte(`{"name":"Rex","categoryId":1}`), ct)
	}
	servers := fuzzServers(f)

	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, s := range servers {
			what := fmt.Sprintf("%s: POST /v1/pets %q (Content-Type %q)", s.DB.Dialector.Name(), body, contentType)
			if !validHeaderValue(contentType) {
				return // net/http refuses to send it
			}
			before := countPets(t, s)
			req := s.NewRequest(t, http.MethodPost, "/v1/pets", bytes.NewReader(body))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			res := s.Do(t, req)
			added := countPets(t, s) - before
			if res.StatusCode != http.StatusCreated {
				checkRefusal(t, what, res, models.EInvalid, models.EValidation, "unsupported_media_type", "payload_too_large")
				if added != 0 {
					t.Fatalf("%s: refused with %d but stored %d pets", what, res.StatusCode, added)
				}
				continue
			}
			p := checkPet(t, what, res.Body)
			if added != 1 || res.Header.Get("Location") != fmt.Sprintf("%s/v1/pets/%d", s.URL, p.ID) {
				t.Fatalf("%s: 201 stored %d pets, Location %q", what, added, res.Header.Get("Location"))
			}
			if got := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)); got.StatusCode != 200 || !bytes.Equal(got.Body, res.Body) {
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
	for _, ct := range append(contentTypeSeeds, "application/json-patch+json", "application/merge-patch+json; charset=UTF-8") {
		f.Add([]byte(`{"name":"Max"}`), ct, "")
	}
	servers := fuzzServers(f)
	ids := make([]int64, len(servers))
	for i, s := range servers {
		ids[i] = addPets(f, s, 1)[0].ID
	}

	f.Fuzz(func(t *testing.T, body []byte, contentType, ifMatch string) {
		if !validHeaderValue(contentType) || !validHeaderValue(ifMatch) {
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
			res := s.Do(t, req)
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
	for i, id := range petIDSeeds {
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
		if !validHeaderValue(ifMatch) {
			return
		}
		for i, s := range servers {
			target := "/v1/pets/" + url.PathEscape(id)
			what := fmt.Sprintf("%s: DELETE %s (If-Match %q)", s.DB.Dialector.Name(), target, ifMatch)
			req := s.NewRequest(t, http.MethodDelete, target, nil)
			if ifMatch != "" {
				req.Header.Set("If-Match", ifMatch)
			}
			res := s.Do(t, req)
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

var orderBodySeeds = []string{
	`{"petId":1}`, `{"petId":2,"quantity":1}`, `{"petId":3,"shipDate":"2030-12-01T10:00:00Z"}`,
	`{"petId":4,"quantity":1,"shipDate":"2030-12-01T10:00:00+02:00"}`, `{"petId":5,"shipDate":"2026-12-01"}`,
	`{"petId":6,"shipDate":"2026-13-01T00:00:00Z"}`, `{"petId":7,"shipDate":"tomorrow"}`, `{"petId":8,"shipDate":123}`,
	`{"petId":9,"shipDate":null}`, `{"petId":10,"shipDate":"9999-12-31T23:59:59Z"}`, `{"petId":11,"shipDate":"0001-01-01T00:00:00Z"}`,
	`{"petId":1,"quantity":2}`, `{"petId":1,"quantity":0}`, `{"petId":1,"quantity":-1}`, `{"petId":1,"quantity":1.5}`,
	`{"petId":1,"quantity":"1"}`, `{"petId":1,"quantity":2147483648}`, `{"petId":0}`, `{"petId":-1}`, `{"petId":999999}`,
	`{"petId":9223372036854775807}`, `{"petId":"1"}`, `{"petId":null}`, `{}`, `{"quantity":1}`, `{"petId":1,"status":"delivered"}`,
	`{"petId":1,"complete":true}`, `{"id":5,"petId":1}`, `{"petId":1`, `[{"petId":1}]`, `null`, ``,
}

var idempotencyKeySeeds = []string{"", "2f1c7a52-5b8e-4a59-a4f5-0c1d7c1f3e11", "retry-1", " ", "a b", strings.Repeat("k", 255),
	strings.Repeat("k", 256), "é", "key\twith\ttabs"}

func FuzzCreateOrder(f *testing.F) {
	for i, body := range orderBodySeeds {
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
		if !validHeaderValue(idemKey) {
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
			res := s.Do(t, req)
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
			if o.Status != "placed" || after.orders != before.orders+1 || res.Header.Get("Location") != fmt.Sprintf("%s/v1/store/orders/%d", s.URL, o.ID) {
				t.Fatalf("%s: 201 %s: orders %d then %d, Location %q", what, res.Body, before.orders, after.orders, res.Header.Get("Location"))
			}
			var p pet
			if s.Get(t, fmt.Sprintf("/v1/pets/%d", o.PetID)).JSON(t, &p); p.Status != "pending" {
				t.Fatalf("%s: the ordered pet is %q, want pending", what, p.Status)
			}
			// Put the pet back on sale, so that fuzzing for hours does not run out of pets.
			if _, err := models.NewOrderStore(s.DB).Cancel(context.Background(), o.ID, "fuzz"); err != nil {
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
	var st state
	count := func(n *int64, q *gorm.DB) {
		if err := q.Count(n).Error; err != nil {
			t.Fatal(err)
		}
	}
	count(&st.orders, s.DB.Model(&models.Order{}))
	count(&st.available, s.DB.Model(&models.Pet{}).Where("status = ?", models.PetAvailable))
	count(&st.pending, s.DB.Model(&models.Pet{}).Where("status = ?", models.PetPending))
	count(&st.sold, s.DB.Model(&models.Pet{}).Where("status = ?", models.PetSold))
	return st
}

// checkOrder fails unless body is an Order the rules allow, and returns it.
func checkOrder(t *testing.T, what string, body []byte) order {
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
	var o order
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatalf("%s: not an Order: %v: %s", what, err, body)
	}
	if o.ID < 1 || o.PetID < 1 || o.Quantity != 1 || !slices.Contains(models.OrderStatuses, models.OrderStatus(o.Status)) ||
		o.Complete != (o.Status == string(models.OrderDelivered)) || o.CreatedAt == "" {
		t.Fatalf("%s: an Order the rules forbid: %+v", what, o)
	}
	return o
}

func FuzzListPets(f *testing.F) {
	fuzzList(f, "/v1/pets", func(f *testing.F, s *apptest.Server) {
		addPets(f, s, 30)
	}, func(t *testing.T, what string, item []byte) int64 { return checkPet(t, what, item).ID })
}

func FuzzListOrders(f *testing.F) {
	fuzzList(f, "/v1/store/orders", func(f *testing.F, s *apptest.Server) {
		addOrders(f, s, 30)
	}, func(t *testing.T, what string, item []byte) int64 { return checkOrder(t, what, item).ID })
}

func FuzzGetPet(f *testing.F) {
	fuzzGet(f, "/v1/pets/", func(f *testing.F, s *apptest.Server) int64 { return addPets(f, s, 1)[0].ID },
		func(t *testing.T, what string, body []byte) int64 { return checkPet(t, what, body).ID })
}

func FuzzGetOrder(f *testing.F) {
	fuzzGet(f, "/v1/store/orders/", func(f *testing.F, s *apptest.Server) int64 { return addOrders(f, s, 1)[0].ID },
		func(t *testing.T, what string, body []byte) int64 { return checkOrder(t, what, body).ID })
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

// fuzzList fuzzes the query string of a list: every answer is a page of valid items in
// ascending id order, whose next page (when announced) answers too, or a 400 invalid_request.
func fuzzList(f *testing.F, path string, fill func(*testing.F, *apptest.Server), check func(t *testing.T, what string, item []byte) int64) {
	for _, q := range listQuerySeeds {
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
			target := path + "?" + requestLineSafe(rawQuery)
			what := s.DB.Dialector.Name() + ": GET " + target
			res := s.Get(t, target)
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
	for _, id := range petIDSeeds {
		f.Add(id)
	}
	servers := fuzzServers(f)
	ids := make([]int64, len(servers))
	for i, s := range servers {
		ids[i] = make1(f, s)
	}

	f.Fuzz(func(t *testing.T, id string) {
		for i, s := range servers {
			target := prefix + url.PathEscape(id)
			what := s.DB.Dialector.Name() + ": GET " + target
			res := s.Get(t, target)
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
		if !validHeaderValue(header) {
			return // net/http refuses to send it; FuzzRawRequest sends such bytes
		}
		for _, s := range servers {
			req := s.NewRequest(t, http.MethodGet, "/v1/categories", nil)
			req.Header.Set("Authorization", header)
			res := s.Do(t, req)
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
	for _, raw := range rawRequestSeeds {
		f.Add([]byte(raw))
	}
	cfg := apptest.Config(f, testenv.SQLite)
	cfg.ReadTimeout = 2 * time.Second
	s := apptest.New(f, cfg)

	f.Fuzz(func(t *testing.T, raw []byte) {
		if problem := rawExchange(strings.TrimPrefix(s.URL, "http://"), withKey(raw, s.APIKey)); problem != "" {
			t.Fatalf("%q: %s", raw, problem)
		}
	})
}

// withKey adds an Authorization header with key after the request line of raw, when it has
// one, so that hostile bytes reach the handlers rather than stop at authentication.
func withKey(raw []byte, key string) []byte {
	line, rest, ok := bytes.Cut(raw, []byte("\r\n"))
	if !ok {
		return raw
	}
	return slices.Concat(line, []byte("\r\nAuthorization: Bearer "+key+"\r\n"), rest)
}

// rawExchange sends raw as it is on a fresh connection to addr (host:port) and checks every
// answer the server gives; it returns what was wrong, or "".
func rawExchange(addr string, raw []byte) string {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(raw); err != nil {
		return "" // the server already closed the connection: nothing was answered wrongly
	}
	// Half-close, so the server sees the end of an incomplete request at once.
	_ = conn.(*net.TCPConn).CloseWrite()
	r := bufio.NewReader(conn)
	for {
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			// The end of the answers, or bytes this reader cannot frame (the answer to a HEAD, a
			// connection cut after a parse error): what was read so far was checked.
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				return "the server neither answered nor closed the connection"
			}
			return ""
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if problem := answerProblem(res.StatusCode, res.Header, body); problem != "" {
			return problem
		}
	}
}

// answerProblem says what is wrong with an answer to a hostile request: a 5xx, a refusal
// without a complete Error body, missing security headers or a Server banner. "" means nothing.
func answerProblem(status int, header http.Header, body []byte) string {
	if status >= 500 {
		return fmt.Sprintf("status %d: %s", status, body)
	}
	if status >= 400 {
		var e struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Status  int    `json:"status"`
		}
		if json.Unmarshal(body, &e) != nil || e.Status != status || e.Code == "" || e.Message == "" ||
			header.Get("Content-Type") != "application/json" {
			return fmt.Sprintf("status %d without a complete Error body: %q", status, body)
		}
	}
	if header.Get("X-Content-Type-Options") != "nosniff" || header.Get("Server") != "" {
		return fmt.Sprintf("status %d without the security headers, or with a Server banner: %v", status, header)
	}
	return ""
}

// requestLineSafe percent-encodes the bytes a request line cannot carry (controls, space, '#',
// non-ASCII) and leaves everything else, malformed escapes included, for the server to parse.
func requestLineSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validHeaderValue reports whether net/http's client will send v as a header value.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

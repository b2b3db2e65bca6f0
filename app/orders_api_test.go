package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

type order struct {
	ID        int64  `json:"id"`
	PetID     int64  `json:"petId"`
	Quantity  int32  `json:"quantity"`
	ShipDate  string `json:"shipDate"`
	Status    string `json:"status"`
	Complete  bool   `json:"complete"`
	CreatedAt string `json:"createdAt"`
}

func placeOrder(t *testing.T, s *apptest.Server, body any) order {
	t.Helper()
	res := s.PostJSON(t, "/v1/store/orders", body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/store/orders %v: status %d, want 201: %s", body, res.StatusCode, res.Body)
	}
	var o order
	res.JSON(t, &o)
	return o
}

func getPetStatus(t *testing.T, s *apptest.Server, id int64) string {
	t.Helper()
	var p models.Pet
	if err := s.DB.Take(&p, id).Error; err != nil {
		t.Fatal(err)
	}
	return string(p.Status)
}

func liveOrders(t *testing.T, s *apptest.Server, petID int64) int64 {
	t.Helper()
	var n int64
	err := s.DB.Model(&models.Order{}).Where("pet_id = ? AND status IN ?", petID, models.LiveOrderStatuses).Count(&n).Error
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAShipDateMayBeAnyTimeOfTheCurrentUTCDayOrLater(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	today := time.Now().UTC().Format(time.DateOnly)
	for _, ship := range []string{today + "T00:00:00Z", today + "T00:00:00-05:00"} {
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		if res := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": p.ID, "shipDate": ship}); res.StatusCode != http.StatusCreated {
			t.Fatalf("shipDate %s: %d %s", ship, res.StatusCode, res.Body)
		}
	}
}

func TestPlacedOrderMovesItsPetToPendingAndIsListed(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})

		day := time.Now().UTC().AddDate(0, 0, 30).Format(time.DateOnly)
		res := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": p.ID, "shipDate": day + "T10:00:00+01:00"})
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("status %d, want 201: %s", res.StatusCode, res.Body)
		}
		var o order
		res.JSON(t, &o)
		if o.ID < 1 || o.PetID != p.ID || o.Quantity != 1 || o.Status != "placed" || o.Complete || o.CreatedAt == "" ||
			o.ShipDate != day+"T09:00:00Z" {
			t.Fatalf("order %+v: want an id, pet %d, quantity 1, placed, not complete, shipDate %sT09:00:00Z", o, p.ID, day)
		}
		loc := strings.TrimPrefix(res.Header.Get("Location"), s.URL)
		if loc != fmt.Sprintf("/v1/store/orders/%d", o.ID) {
			t.Fatalf("Location %q, want %s/v1/store/orders/%d", res.Header.Get("Location"), s.URL, o.ID)
		}

		var got pet
		s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)).JSON(t, &got)
		if got.Status != "pending" {
			t.Fatalf("pet after the order: %s, want pending", got.Status)
		}
		var byLocation order
		if res := s.Get(t, loc); res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", loc, res.StatusCode, res.Body)
		} else {
			res.JSON(t, &byLocation)
		}
		var list, placed, delivered []order
		s.Get(t, "/v1/store/orders").JSON(t, &list)
		s.Get(t, "/v1/store/orders?status=placed").JSON(t, &placed)
		s.Get(t, "/v1/store/orders?status=delivered").JSON(t, &delivered)
		if byLocation != o || len(list) != 1 || list[0] != o || len(placed) != 1 || len(delivered) != 0 {
			t.Fatalf("GET Location %+v, list %+v, placed %+v, delivered %+v; want the order in the first three only", byLocation, list, placed, delivered)
		}

		noShip := placeOrder(t, s, map[string]any{"petId": createPet(t, s, map[string]any{"name": "Tom", "categoryId": 2}).ID, "quantity": 1})
		if noShip.ShipDate != "" || noShip.Quantity != 1 {
			t.Fatalf("order without shipDate: %+v, want no shipDate and quantity 1", noShip)
		}
	})
}

func TestPlaceOrderRefusesAndChangesNothing(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		avail := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		pending := createPet(t, s, map[string]any{"name": "Tom", "categoryId": 2, "status": "pending"})
		sold := createPet(t, s, map[string]any{"name": "Kiwi", "categoryId": 3, "status": "sold"})
		cases := []struct {
			name     string
			body     string
			status   int
			code     string
			mentions string
		}{
			{"missing petId", `{}`, 400, "validation_failed", "petId"},
			{"null petId", `{"petId":null}`, 400, "validation_failed", "petId"},
			{"petId zero", `{"petId":0}`, 400, "validation_failed", "petId"},
			{"petId a string", fmt.Sprintf(`{"petId":"%d"}`, avail.ID), 400, "validation_failed", "petId"},
			{"quantity 2", fmt.Sprintf(`{"petId":%d,"quantity":2}`, avail.ID), 400, "validation_failed", "quantity"},
			{"quantity 0", fmt.Sprintf(`{"petId":%d,"quantity":0}`, avail.ID), 400, "validation_failed", "quantity"},
			{"quantity over int32", fmt.Sprintf(`{"petId":%d,"quantity":3000000000}`, avail.ID), 400, "validation_failed", "quantity"},
			{"shipDate not a date", fmt.Sprintf(`{"petId":%d,"shipDate":"next tuesday"}`, avail.ID), 400, "validation_failed", "shipDate"},
			{"shipDate without a zone", fmt.Sprintf(`{"petId":%d,"shipDate":"2026-12-01T10:00:00"}`, avail.ID), 400, "validation_failed", "shipDate"},
			{"shipDate in the past", fmt.Sprintf(`{"petId":%d,"shipDate":"2020-01-01T00:00:00Z"}`, avail.ID), 400, "validation_failed", "shipDate: must not be before today"},
			{"shipDate the day before today", fmt.Sprintf(`{"petId":%d,"shipDate":"%sT23:59:59Z"}`, avail.ID, time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)), 400, "validation_failed", "shipDate"},
			{"null shipDate", fmt.Sprintf(`{"petId":%d,"shipDate":null}`, avail.ID), 400, "validation_failed", "shipDate"},
			{"null quantity", fmt.Sprintf(`{"petId":%d,"quantity":null}`, avail.ID), 400, "validation_failed", "quantity"},
			{"petId given twice", fmt.Sprintf(`{"petId":%d,"petId":%d}`, avail.ID, avail.ID), 400, "invalid_request", "petId"},
			{"petId in another case", fmt.Sprintf(`{"PetId":%d}`, avail.ID), 400, "invalid_request", "PetId"},
			{"unknown field", fmt.Sprintf(`{"petId":%d,"status":"delivered"}`, avail.ID), 400, "invalid_request", "status"},
			{"malformed JSON", `{"petId":`, 400, "invalid_request", "JSON"},
			{"no such pet", `{"petId":987654}`, 404, "not_found", "987654"},
			{"pending pet", fmt.Sprintf(`{"petId":%d}`, pending.ID), 409, "conflict", "pending"},
			{"sold pet", fmt.Sprintf(`{"petId":%d}`, sold.ID), 409, "conflict", "sold"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := s.Invalid().PostJSON(t, "/v1/store/orders", tc.body) // bodies off the API document on purpose
				if res.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, res.Body)
				}
				code, msg := res.ErrorBody(t)
				if code != tc.code || !strings.Contains(msg, tc.mentions) {
					t.Fatalf("%s %q, want %s mentioning %q", code, msg, tc.code, tc.mentions)
				}
			})
		}
		var n int64
		s.DB.Model(&models.Order{}).Count(&n)
		if n != 0 {
			t.Fatalf("%d orders stored after refusals, want none", n)
		}
		for id, want := range map[int64]string{avail.ID: "available", pending.ID: "pending", sold.ID: "sold"} {
			if got := getPetStatus(t, s, id); got != want {
				t.Fatalf("pet %d is %s after refusals, want %s", id, got, want)
			}
		}
	})
}

func TestListOrdersPagesAndFilters(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		orders := models.NewOrderStore(s.DB)
		var placed []int64
		for i := range 25 {
			p := createPet(t, s, map[string]any{"name": fmt.Sprintf("Pet %d", i), "categoryId": i%6 + 1})
			o := placeOrder(t, s, map[string]any{"petId": p.ID})
			if i%5 == 0 {
				if _, err := orders.Cancel(t.Context(), o.ID, "test"); err != nil {
					t.Fatal(err)
				}
				continue
			}
			placed = append(placed, o.ID)
		}

		var ids []int64
		pages := 0
		for target := "/v1/store/orders?status=placed&limit=7"; target != ""; pages++ {
			res := s.Get(t, target)
			var page []order
			res.JSON(t, &page)
			for _, o := range page {
				if o.Status != "placed" {
					t.Fatalf("GET %s returned a %s order", target, o.Status)
				}
				ids = append(ids, o.ID)
			}
			target = ""
			if m := nextLink.FindStringSubmatch(res.Header.Get("Link")); m != nil {
				target = m[1]
			}
		}
		if fmt.Sprint(ids) != fmt.Sprint(placed) || pages != 3 {
			t.Fatalf("walked placed orders %v in %d pages, want %v in 3", ids, pages, placed)
		}
		var all []order
		res := s.Get(t, "/v1/store/orders")
		res.JSON(t, &all)
		if len(all) != models.DefaultLimit || res.Header.Get("Link") == "" {
			t.Fatalf("default page: %d orders, Link %q; want %d and a next link", len(all), res.Header.Get("Link"), models.DefaultLimit)
		}

		for _, q := range []string{"limit=0", "limit=101", "limit=x", "status=available", "status=lost", "cursor=%%%"} {
			res := s.Invalid().Get(t, "/v1/store/orders?"+q)
			code, msg := res.ErrorBody(t)
			if res.StatusCode != 400 || code != "invalid_request" || !strings.Contains(msg, strings.SplitN(q, "=", 2)[0]) {
				t.Fatalf("GET /v1/store/orders?%s: %d %s %q, want 400 invalid_request naming the parameter", q, res.StatusCode, code, msg)
			}
		}
		for path, want := range map[string]int{"/v1/store/orders/987654": 404, "/v1/store/orders/abc": 400} {
			if res := s.Invalid().Get(t, path); res.StatusCode != want {
				t.Fatalf("GET %s: %d, want %d", path, res.StatusCode, want)
			}
		}
	})
}

// The acceptance test: however many clients race for one pet, it is sold once.
func TestTwentyConcurrentOrdersForOnePetPlaceExactlyOne(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		const n = 20
		statuses := make([]int, n)
		codes := make([]string, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				res := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": p.ID})
				statuses[i] = res.StatusCode
				if res.StatusCode != http.StatusCreated {
					codes[i], _ = res.ErrorBody(t)
				}
			})
		}
		close(start)
		wg.Wait()
		created, conflicts := 0, 0
		for i, st := range statuses {
			switch {
			case st == http.StatusCreated:
				created++
			case st == http.StatusConflict && codes[i] == "conflict":
				conflicts++
			}
		}
		if created != 1 || conflicts != n-1 {
			t.Fatalf("statuses %v: want exactly one 201 and %d 409 conflict", statuses, n-1)
		}
		if got := getPetStatus(t, s, p.ID); got != "pending" {
			t.Fatalf("pet is %s, want pending", got)
		}
		if live := liveOrders(t, s, p.ID); live != 1 {
			t.Fatalf("pet has %d live orders, want exactly 1", live)
		}
	})
}

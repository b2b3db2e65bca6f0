package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// send makes a request with a body of contentType and the headers given in pairs.
func send(t *testing.T, s *apptest.Server, method, path, contentType, body string, header ...string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return s.Do(t, req)
}

func patchPet(t *testing.T, s *apptest.Server, id int64, body string, header ...string) *apptest.Response {
	t.Helper()
	return send(t, s, http.MethodPatch, fmt.Sprintf("/v1/pets/%d", id), "application/merge-patch+json", body, header...)
}

func deletePet(t *testing.T, s *apptest.Server, id int64, header ...string) *apptest.Response {
	t.Helper()
	return send(t, s, http.MethodDelete, fmt.Sprintf("/v1/pets/%d", id), "", "", header...)
}

func wantStatusCode(t *testing.T, what string, res *apptest.Response, status int, code string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s: %d, want %d: %s", what, res.StatusCode, status, res.Body)
	}
	if code != "" {
		if got, _ := res.ErrorBody(t); got != code {
			t.Fatalf("%s: code %q, want %q", what, got, code)
		}
	}
}

func TestPatchChangesOnlyTheFieldsGivenWithTheRulesOfCreation(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})

		res := patchPet(t, s, p.ID, `{"name":"  Max  "}`)
		wantStatusCode(t, "rename", res, http.StatusOK, "")
		var got pet
		res.JSON(t, &got)
		if got.Name != "Max" || got.CategoryID != 1 || got.Status != "available" || got.CreatedAt != p.CreatedAt || got.UpdatedAt <= p.UpdatedAt {
			t.Fatalf("after renaming: %+v (was %+v)", got, p)
		}
		// The answer is what GET says from now on, its ETag included.
		after := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID))
		if string(after.Body) != string(res.Body) || after.Header.Get("ETag") != res.Header.Get("ETag") || res.Header.Get("ETag") == "" {
			t.Fatalf("PATCH answered %s (ETag %s); GET answers %s (ETag %s)", res.Body, res.Header.Get("ETag"), after.Body, after.Header.Get("ETag"))
		}

		res = send(t, s, http.MethodPatch, fmt.Sprintf("/v1/pets/%d", p.ID), "application/json; charset=utf-8", `{"categoryId":2,"status":"sold"}`)
		wantStatusCode(t, "category and status, as application/json", res, http.StatusOK, "")
		res.JSON(t, &got)
		if got.Name != "Max" || got.CategoryID != 2 || got.Status != "sold" {
			t.Fatalf("after the second patch: %+v", got)
		}
		history, err := models.NewPetStore(s.DB).History(context.Background(), p.ID)
		if err != nil || len(history) != 1 || history[0].Actor != models.APIKeyActor(s.KeyID) || history[0].PetFrom != models.PetAvailable ||
			history[0].PetTo != models.PetSold || history[0].Action != models.ActionSetStatus {
			t.Fatalf("the status change is recorded as %+v, %v; want set_status by %s", history, err, models.APIKeyActor(s.KeyID))
		}

		before := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)).Body
		res = patchPet(t, s, p.ID, `{}`)
		if wantStatusCode(t, "an empty patch", res, http.StatusOK, ""); string(res.Body) != string(before) {
			t.Fatalf("an empty patch changed the pet: %s, was %s", res.Body, before)
		}
	})
}

func TestPatchRefusalsNameTheFieldAndChangeNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, contentType, body string
		status                  int
		code, mentions          string
	}{
		{"null name", "", `{"name":null}`, 400, "validation_failed", "name"},
		{"null category", "", `{"categoryId":null}`, 400, "validation_failed", "categoryId"},
		{"null status", "", `{"status":null}`, 400, "validation_failed", "status"},
		{"empty name", "", `{"name":"  "}`, 400, "validation_failed", "name"},
		{"name of 101 characters", "", `{"name":"` + strings.Repeat("é", 101) + `"}`, 400, "validation_failed", "100"},
		{"right-to-left override in the name", "", `{"name":"Rex\u202Exe"}`, 400, "validation_failed", "U+202E"},
		{"zero-width space in the name", "", `{"name":"Re\u200Bx"}`, 400, "validation_failed", "U+200B"},
		{"no such category", "", `{"categoryId":999}`, 400, "validation_failed", "categoryId"},
		{"category zero", "", `{"categoryId":0}`, 400, "validation_failed", "categoryId"},
		{"category not an integer", "", `{"categoryId":1.5}`, 400, "validation_failed", "categoryId"},
		{"unknown status", "", `{"status":"lost"}`, 400, "validation_failed", "status"},
		{"member name in another case", "", `{"NAME":"Max"}`, 400, "invalid_request", "NAME"},
		{"member given twice", "", `{"name":"Max","name":"Tom"}`, 400, "invalid_request", "name"},
		{"read-only member", "", `{"id":9}`, 400, "invalid_request", "id"},
		{"not an object", "", `"Max"`, 400, "invalid_request", "object"},
		{"null body", "", `null`, 400, "invalid_request", "object"},
		{"invalid UTF-8", "", "{\"name\":\"M\xffx\"}", 400, "invalid_request", "UTF-8"},
		{"lone surrogate escape", "", `{"name":"\ud800"}`, 400, "invalid_request", "surrogate"},
		{"JSON Patch media type", "application/json-patch+json", `[{"op":"replace","path":"/name","value":"Max"}]`, 415, "unsupported_media_type", "merge-patch"},
		{"other +json type", "application/vnd.api+json", `{"name":"Max"}`, 415, "unsupported_media_type", "merge-patch"},
		{"charset other than UTF-8", "application/json; charset=iso-8859-1", `{"name":"Max"}`, 415, "unsupported_media_type", "charset"},
	}
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		before := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)).Body
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ct := tc.contentType
				if ct == "" {
					ct = "application/merge-patch+json"
				}
				res := send(t, s.Invalid(), http.MethodPatch, fmt.Sprintf("/v1/pets/%d", p.ID), ct, tc.body)
				wantStatusCode(t, tc.name, res, tc.status, tc.code)
				if _, msg := res.ErrorBody(t); !strings.Contains(msg, tc.mentions) {
					t.Fatalf("message %q does not name %q", msg, tc.mentions)
				}
			})
		}
		wantStatusCode(t, "a petId that is not an integer", send(t, s.Invalid(), http.MethodPatch, "/v1/pets/abc", "application/json", `{}`), 400, "invalid_request")
		wantStatusCode(t, "a pet that does not exist", patchPet(t, s, 987654, `{"name":"Max"}`), 404, "not_found")
		if after := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)).Body; string(after) != string(before) {
			t.Fatalf("refused patches changed the pet: %s, was %s", after, before)
		}
	})
}

func TestPatchedStatusFollowsTheRuleOfAStatusSetByHand(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		orders := models.NewOrderStore(s.DB)
		held := createPet(t, s, map[string]any{"name": "Held", "categoryId": 1})
		o := placeOrder(t, s, map[string]any{"petId": held.ID})

		res := patchPet(t, s, held.ID, `{"status":"available"}`)
		wantStatusCode(t, "a pet a placed order holds", res, http.StatusConflict, "conflict")
		if _, msg := res.ErrorBody(t); !strings.Contains(msg, fmt.Sprint("order ", o.ID)) {
			t.Fatalf("the refusal %q does not name the order", msg)
		}
		for _, a := range []models.Action{models.ActionApprove, models.ActionDeliver} {
			if _, err := orders.Apply(context.Background(), o.ID, a, "staff:sam"); err != nil {
				t.Fatal(err)
			}
		}
		res = patchPet(t, s, held.ID, `{"status":"available"}`)
		wantStatusCode(t, "a pet sold through an order", res, http.StatusConflict, "conflict")
		if _, msg := res.ErrorBody(t); !strings.Contains(msg, "stays sold") {
			t.Fatalf("the refusal %q does not say why", msg)
		}

		// Without an order, any status may be set: a sale at the counter, and its undoing.
		free := createPet(t, s, map[string]any{"name": "Free", "categoryId": 1})
		for _, st := range []string{"sold", "pending", "available"} {
			wantStatusCode(t, "set "+st, patchPet(t, s, free.ID, `{"status":"`+st+`"}`), http.StatusOK, "")
		}
	})
}

func TestDeletedPetLeavesEveryAnswerWhileItsOrdersStay(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		other := createPet(t, s, map[string]any{"name": "Other", "categoryId": 1})
		o := placeOrder(t, s, map[string]any{"petId": p.ID})

		res := deletePet(t, s, p.ID)
		wantStatusCode(t, "deleting a pet a live order holds", res, http.StatusConflict, "conflict")
		if _, msg := res.ErrorBody(t); !strings.Contains(msg, fmt.Sprint("order ", o.ID)) {
			t.Fatalf("the refusal %q does not name the order", msg)
		}
		if _, err := models.NewOrderStore(s.DB).Cancel(context.Background(), o.ID, "staff:sam"); err != nil {
			t.Fatal(err)
		}
		res = deletePet(t, s, p.ID)
		if wantStatusCode(t, "delete", res, http.StatusNoContent, ""); len(res.Body) != 0 {
			t.Fatalf("204 with a body: %q", res.Body)
		}

		path := fmt.Sprintf("/v1/pets/%d", p.ID)
		wantStatusCode(t, "GET after the delete", s.Get(t, path), http.StatusNotFound, "not_found")
		wantStatusCode(t, "PATCH after the delete", patchPet(t, s, p.ID, `{"name":"Max"}`), http.StatusNotFound, "not_found")
		wantStatusCode(t, "DELETE again", deletePet(t, s, p.ID), http.StatusNotFound, "not_found")
		wantStatusCode(t, "an order for it", s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": p.ID}), http.StatusNotFound, "not_found")
		var list []pet
		s.Get(t, "/v1/pets").JSON(t, &list)
		if len(list) != 1 || list[0].ID != other.ID {
			t.Fatalf("the list after the delete: %+v, want only pet %d", list, other.ID)
		}
		s.Get(t, fmt.Sprintf("/v1/pets?id=%d&id=%d", p.ID, other.ID)).JSON(t, &list)
		if len(list) != 1 || list[0].ID != other.ID {
			t.Fatalf("the look-up by id after the delete: %+v, want only pet %d", list, other.ID)
		}
		var inv map[string]int
		if s.Get(t, "/v1/store/inventory").JSON(t, &inv); inv["available"] != 1 || inv["pending"] != 0 || inv["sold"] != 0 {
			t.Fatalf("inventory after the delete: %v, want the other pet alone", inv)
		}
		var got order
		if res := s.Get(t, fmt.Sprintf("/v1/store/orders/%d", o.ID)); res.StatusCode != 200 {
			t.Fatalf("the deleted pet's order: %d %s", res.StatusCode, res.Body)
		} else if res.JSON(t, &got); got.PetID != p.ID || got.Status != "cancelled" {
			t.Fatalf("the deleted pet's order: %+v", got)
		}

		// Staff restore it (the admin pages): it is back as it was.
		if _, err := models.NewPetStore(s.DB).Restore(context.Background(), p.ID, "staff:sam"); err != nil {
			t.Fatal(err)
		}
		var back pet
		if s.Get(t, path).JSON(t, &back); back.ID != p.ID || back.Name != "Rex" || back.Status != "available" {
			t.Fatalf("after the restore: %+v", back)
		}
	})
}

func TestListPetsFiltersCombineAndLookUpById(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		var all []pet
		for i := range 12 {
			all = append(all, createPet(t, s, map[string]any{"name": fmt.Sprint("Pet ", i), "categoryId": i%3 + 1,
				"status": []string{"available", "sold"}[i%2]}))
		}
		ids := func(target string) []int64 {
			t.Helper()
			var out []int64
			for target != "" {
				res := s.Get(t, target)
				if res.StatusCode != 200 {
					t.Fatalf("GET %s: %d %s", target, res.StatusCode, res.Body)
				}
				var page []pet
				res.JSON(t, &page)
				for _, p := range page {
					out = append(out, p.ID)
				}
				target = ""
				if m := nextLink.FindStringSubmatch(res.Header.Get("Link")); m != nil {
					target = m[1]
				}
			}
			return out
		}
		want := func(keep func(i int, p pet) bool) []int64 {
			var out []int64
			for i, p := range all {
				if keep(i, p) {
					out = append(out, p.ID)
				}
			}
			return out
		}
		for _, tc := range []struct {
			query string
			want  []int64
		}{
			{"categoryId=2", want(func(i int, _ pet) bool { return i%3 == 1 })},
			{fmt.Sprintf("id=%d&id=%d&id=987654", all[4].ID, all[1].ID), []int64{all[1].ID, all[4].ID}},
			{"categoryId=1&status=sold", want(func(i int, _ pet) bool { return i%3 == 0 && i%2 == 1 })},
			{fmt.Sprintf("categoryId=1&status=sold&id=%d&id=%d&id=%d", all[3].ID, all[9].ID, all[0].ID), []int64{all[3].ID, all[9].ID}},
			// Filters stay on every page the Link header leads to.
			{"categoryId=3&limit=1", want(func(i int, _ pet) bool { return i%3 == 2 })},
			{fmt.Sprintf("status=available&limit=2&id=%d&id=%d&id=%d&id=%d", all[0].ID, all[1].ID, all[2].ID, all[4].ID), []int64{all[0].ID, all[2].ID, all[4].ID}},
		} {
			if got := ids("/v1/pets?" + tc.query); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("?%s: %v, want %v", tc.query, got, tc.want)
			}
		}

		hundredAndOne := strings.Repeat("id=1&", 100) + "id=1"
		for _, q := range []string{"id=0", "id=abc", "id=", "id=1&id=x", hundredAndOne, "categoryId=0", "categoryId=x", "categoryId="} {
			res := s.Invalid().Get(t, "/v1/pets?"+q)
			wantStatusCode(t, "?"+q, res, http.StatusBadRequest, "invalid_request")
			if _, msg := res.ErrorBody(t); !strings.Contains(msg, strings.SplitN(q, "=", 2)[0]) {
				t.Fatalf("?%.40s: message %q does not name the parameter", q, msg)
			}
		}
	})
}

func TestInventoryCountsThePetsOfEachStatus(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		var inv map[string]int
		if s.Get(t, "/v1/store/inventory").JSON(t, &inv); fmt.Sprint(inv) != "map[available:0 pending:0 sold:0]" {
			t.Fatalf("inventory of an empty store: %v", inv)
		}
		for i, st := range []string{"available", "available", "sold", "pending", "available"} {
			createPet(t, s, map[string]any{"name": fmt.Sprint("Pet ", i), "categoryId": 1, "status": st})
		}
		if s.Get(t, "/v1/store/inventory").JSON(t, &inv); fmt.Sprint(inv) != "map[available:3 pending:1 sold:1]" {
			t.Fatalf("inventory: %v, want 3 available, 1 pending, 1 sold", inv)
		}
	})
}

func TestConditionalRequestsOnPetsOrdersAndLists(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		path := fmt.Sprintf("/v1/pets/%d", p.ID)
		get := func(target string, header ...string) *apptest.Response {
			t.Helper()
			return send(t, s, http.MethodGet, target, "", "", header...)
		}

		first := get(path)
		etag := first.Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 {
			t.Fatalf("a pet's ETag %q, want a strong entity tag", etag)
		}
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			res := get(path, "If-None-Match", inm)
			if res.StatusCode != http.StatusNotModified || len(res.Body) != 0 || res.Header.Get("ETag") != etag {
				t.Fatalf("If-None-Match %s: %d %q (ETag %q), want 304, no body, the same ETag", inm, res.StatusCode, res.Body, res.Header.Get("ETag"))
			}
		}
		if res := get(path, "If-None-Match", `"something-else"`); res.StatusCode != http.StatusOK {
			t.Fatalf("If-None-Match of another tag: %d, want 200", res.StatusCode)
		}

		// If-Match: a stale, weak or malformed tag changes nothing; the current one (or *) does.
		renamed := patchPet(t, s, p.ID, `{"name":"Max"}`, "If-Match", etag)
		wantStatusCode(t, "PATCH with the current ETag", renamed, http.StatusOK, "")
		current := renamed.Header.Get("ETag")
		if current == etag || current != get(path).Header.Get("ETag") {
			t.Fatalf("ETag after the change %q (before %q, GET %q): want a new one, the same as GET's", current, etag, get(path).Header.Get("ETag"))
		}
		for _, im := range []string{etag, "W/" + current, "not-a-tag"} {
			wantStatusCode(t, "PATCH with If-Match "+im, patchPet(t, s, p.ID, `{"name":"Tom"}`, "If-Match", im), http.StatusPreconditionFailed, "precondition_failed")
			wantStatusCode(t, "DELETE with If-Match "+im, deletePet(t, s, p.ID, "If-Match", im), http.StatusPreconditionFailed, "precondition_failed")
		}
		if after := get(path); after.Header.Get("ETag") != current {
			t.Fatalf("refused conditional requests changed the pet: %s", after.Body)
		}
		wantStatusCode(t, "PATCH with If-Match *", patchPet(t, s, p.ID, `{"name":"Tom"}`, "If-Match", "*"), http.StatusOK, "")
		wantStatusCode(t, "DELETE with the current ETag", deletePet(t, s, p.ID, "If-Match", `"x", `+get(path).Header.Get("ETag")), http.StatusNoContent, "")

		// Lists carry a weak ETag that changes with their content.
		createPet(t, s, map[string]any{"name": "Tom", "categoryId": 1})
		list := get("/v1/pets")
		weak := list.Header.Get("ETag")
		if !strings.HasPrefix(weak, `W/"`) {
			t.Fatalf("a list's ETag %q, want a weak one", weak)
		}
		if res := get("/v1/pets", "If-None-Match", weak); res.StatusCode != http.StatusNotModified || len(res.Body) != 0 {
			t.Fatalf("If-None-Match of the list's ETag: %d %q", res.StatusCode, res.Body)
		}
		createPet(t, s, map[string]any{"name": "Kim", "categoryId": 1})
		if res := get("/v1/pets", "If-None-Match", weak); res.StatusCode != http.StatusOK || res.Header.Get("ETag") == weak {
			t.Fatalf("the list after a new pet, with the old ETag: %d (ETag %q)", res.StatusCode, res.Header.Get("ETag"))
		}
		cats := get("/v1/categories")
		if res := get("/v1/categories", "If-None-Match", cats.Header.Get("ETag")); res.StatusCode != http.StatusNotModified {
			t.Fatalf("categories with their own ETag: %d", res.StatusCode)
		}

		// An order's ETag changes when staff move it.
		o := placeOrder(t, s, map[string]any{"petId": createPet(t, s, map[string]any{"name": "Ordered", "categoryId": 1}).ID})
		opath := fmt.Sprintf("/v1/store/orders/%d", o.ID)
		oetag := get(opath).Header.Get("ETag")
		if res := get(opath, "If-None-Match", oetag); res.StatusCode != http.StatusNotModified {
			t.Fatalf("an order with its own ETag: %d", res.StatusCode)
		}
		if _, err := models.NewOrderStore(s.DB).Approve(context.Background(), o.ID, "staff:sam"); err != nil {
			t.Fatal(err)
		}
		if res := get(opath, "If-None-Match", oetag); res.StatusCode != http.StatusOK || res.Header.Get("ETag") == oetag {
			t.Fatalf("the approved order with its old ETag: %d (ETag %q)", res.StatusCode, res.Header.Get("ETag"))
		}
		orders := get("/v1/store/orders")
		if res := get("/v1/store/orders", "If-None-Match", orders.Header.Get("ETag")); res.StatusCode != http.StatusNotModified {
			t.Fatalf("orders with their own ETag: %d", res.StatusCode)
		}
	})
}

// If-Match is compared inside the transaction that changes the pet: of many clients changing it
// at once with the same ETag, exactly one succeeds and the others get 412.
func TestConcurrentChangesWithTheSameIfMatchLetExactlyOneThrough(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		etag := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)).Header.Get("ETag")
		const n = 12
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				statuses[i] = patchPet(t, s, p.ID, fmt.Sprintf(`{"name":"Writer %d"}`, i), "If-Match", etag).StatusCode
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, st := range statuses {
			count[st]++
		}
		if count[http.StatusOK] != 1 || count[http.StatusPreconditionFailed] != n-1 {
			t.Fatalf("answers %v, want one 200 and %d 412", count, n-1)
		}
	})
}

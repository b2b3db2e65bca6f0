package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func petNames(p *apptest.Page) []string {
	var names []string
	p.TestID("pet-name").Each(func(_ int, s *goquery.Selection) { names = append(names, strings.TrimSpace(s.Text())) })
	return names
}

func TestPetsTableFiltersSearchesAndPages(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		pets := make([]models.Pet, 60)
		for i := range pets {
			pets[i] = models.Pet{Name: fmt.Sprintf("Pet %02d", i), CategoryID: int64(i%2 + 1), Status: models.PetStatuses[i%3]}
		}
		pets[7].Name, pets[8].Name = "Rexie", "Big REX"
		if err := s.DB.Create(&pets).Error; err != nil {
			t.Fatal(err)
		}
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)

		// Every pet once, 25 to a page, following the "next" links.
		var seen []string
		pages := 0
		for target := "/admin/pets"; target != ""; pages++ {
			p := b.Get(t, target)
			wantStatus(t, p, http.StatusOK)
			seen = append(seen, petNames(p)...)
			target, _ = p.TestID("next-page").Attr("href")
			if pages > 0 && p.TestID("first-page").Length() != 1 {
				t.Fatalf("page %d has no link back to the first", pages+1)
			}
		}
		if len(seen) != 60 || pages != 3 || seen[0] != "Pet 00" || seen[59] != "Pet 59" {
			t.Fatalf("walked %d pets in %d pages (first %q), want 60 in 3, in id order", len(seen), pages, seen[0])
		}
		// And back: from the last page, following the "previous" links.
		var back []string
		last, _ := b.Get(t, "/admin/pets").TestID("last-page").Attr("href")
		for target := last; target != ""; {
			p := b.Get(t, target)
			wantStatus(t, p, http.StatusOK)
			back = append(petNames(p), back...)
			target, _ = p.TestID("prev-page").Attr("href")
		}
		if strings.Join(back, ",") != strings.Join(seen, ",") {
			t.Fatalf("walking back from the last page: %d pets %q..., want the same %d in the same order", len(back), back[:min(3, len(back))], len(seen))
		}

		p := b.Get(t, "/admin/pets?q=rex")
		if got := strings.Join(petNames(p), ","); got != "Rexie,Big REX" {
			t.Fatalf("search rex: %s, want Rexie and Big REX (case-insensitive)", got)
		}
		if v, _ := p.Doc.Find("#q").Attr("value"); v != "rex" {
			t.Fatalf("the search box lost the query: %q", v)
		}

		p = b.Get(t, "/admin/pets?status=sold&category=2")
		names := petNames(p)
		want := 0
		for _, pet := range pets {
			if pet.Status == models.PetSold && pet.CategoryID == 2 {
				want++
			}
		}
		if len(names) != want || want == 0 {
			t.Fatalf("status=sold&category=2: %d pets, want %d", len(names), want)
		}
		p.TestID("status").Each(func(_ int, s *goquery.Selection) {
			if s.Text() != "sold" {
				t.Fatalf("a filtered row has status %q", s.Text())
			}
		})
		if sel := p.Doc.Find("#f-status option[selected]").AttrOr("value", ""); sel != "sold" {
			t.Fatalf("the status filter shows %q, want sold selected", sel)
		}

		p = b.Get(t, "/admin/pets?q=nobody-has-this-name")
		if p.TestID("empty").Length() != 1 || p.TestID("clear-filters").Length() != 1 {
			t.Fatalf("a search with no match shows no empty state\n%s", p.Body)
		}
	})
}

func TestEmptyPetsListSaysHowToAddOne(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	p := b.Get(t, "/admin/pets")
	if !strings.Contains(p.Text("empty"), "No pets yet") || p.TestID("empty").Find(`a[href="/admin/pets/new"]`).Length() != 1 {
		t.Fatalf("empty pets page:\n%s", p.Body)
	}
}

var petPage = regexp.MustCompile(`^/admin/pets/(\d+)$`)

func TestPetFormsUseTheAPIRulesAndKeepWhatWasTyped(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		b.Get(t, "/admin/pets/new")

		p := b.Post(t, "/admin/pets", url.Values{"name": {"   "}, "categoryId": {""}, "status": {"available"}})
		wantStatus(t, p, http.StatusBadRequest)
		if p.Text("error-name") != "Name must not be empty." || p.Text("error-categoryId") != "Category is required." {
			t.Fatalf("errors beside the fields: name %q, category %q", p.Text("error-name"), p.Text("error-categoryId"))
		}
		if p.Doc.Find("#name").AttrOr("aria-invalid", "") != "true" || p.Doc.Find("#name").AttrOr("aria-describedby", "") != "name-error" {
			t.Fatal("the invalid name field is not marked for screen readers")
		}

		long := strings.Repeat("x", 101)
		p = b.Post(t, "/admin/pets", url.Values{"name": {long}, "categoryId": {"3"}, "status": {"sold"}})
		wantStatus(t, p, http.StatusBadRequest)
		if !strings.Contains(p.Text("error-name"), "at most 100") {
			t.Fatalf("long name: %q", p.Text("error-name"))
		}
		if v := p.Doc.Find("#name").AttrOr("value", ""); v != long {
			t.Fatal("the form lost the typed name")
		}
		if v := p.Doc.Find("#categoryId").AttrOr("value", ""); v != "Birds" {
			t.Fatalf("the form lost the chosen category, category 3: %q", v)
		}
		if v := p.Doc.Find("#status option[selected]").AttrOr("value", ""); v != "sold" {
			t.Fatalf("the form lost the chosen status: %q", v)
		}
		p = b.Post(t, "/admin/pets", url.Values{"name": {"Rex"}, "categoryId": {"999"}, "status": {"available"}})
		if wantStatus(t, p, http.StatusBadRequest); p.Text("error-categoryId") != "There is no category #999." {
			t.Fatalf("unknown category: %q", p.Text("error-categoryId"))
		}
		p = b.Post(t, "/admin/pets", url.Values{"name": {"Rex"}, "categoryId": {"1"}, "status": {"lost"}})
		if wantStatus(t, p, http.StatusBadRequest); !strings.Contains(p.Text("error-status"), "must be one of") {
			t.Fatalf("unknown status: %q", p.Text("error-status"))
		}
		if n := countPets(t, s); n != 0 {
			t.Fatalf("refused forms stored %d pets", n)
		}

		p = b.Post(t, "/admin/pets", url.Values{"name": {"  Rex  "}, "categoryId": {"2"}, "status": {"pending"}})
		wantStatus(t, p, http.StatusSeeOther)
		m := petPage.FindStringSubmatch(p.Location())
		if m == nil {
			t.Fatalf("after adding: Location %q, want the pet's page", p.Location())
		}
		shown := b.Follow(t, p)
		if shown.Text("flash") != "Added Rex." || shown.Text("page-title") != "Rex" || shown.TestID("pet-fields").Find(`[data-testid="status"]`).Text() != "pending" {
			t.Fatalf("pet page: flash %q, title %q\n%s", shown.Text("flash"), shown.Text("page-title"), shown.Body)
		}
		if again := b.Get(t, p.Location()); again.TestID("flash").Length() != 0 {
			t.Fatal("the flash message showed twice")
		}

		edit := b.Get(t, "/admin/pets/"+m[1]+"/edit")
		if v := edit.Doc.Find("#name").AttrOr("value", ""); v != "Rex" {
			t.Fatalf("edit form name %q, want Rex", v)
		}
		if edit.Doc.Find("#status").Length() != 0 {
			t.Fatal("the edit form changes the status; that goes through the recorded status change")
		}
		p = b.Post(t, "/admin/pets/"+m[1], url.Values{"name": {"Re\u0007x"}, "categoryId": {"2"}})
		if wantStatus(t, p, http.StatusBadRequest); !strings.Contains(p.Text("error-name"), "control") {
			t.Fatalf("control character: %q", p.Text("error-name"))
		}
		p = b.Post(t, "/admin/pets/"+m[1], url.Values{"name": {"Rex the Second"}, "categoryId": {"4"}})
		wantStatus(t, p, http.StatusSeeOther)
		res := s.Get(t, "/v1/pets/"+m[1])
		var got pet
		res.JSON(t, &got)
		if got.Name != "Rex the Second" || got.CategoryID != 4 || got.Status != "pending" {
			t.Fatalf("after the edit the API shows %+v", got)
		}
	})
}

func TestWhatUsersTypeIsShownEscaped(t *testing.T) {
	t.Parallel()
	const evil = `<script>alert(1)</script>`
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	b.Get(t, "/admin/pets/new")
	p := b.Post(t, "/admin/pets", url.Values{"name": {evil}, "categoryId": {"1"}, "status": {"available"}})
	wantStatus(t, p, http.StatusSeeOther)
	b.Get(t, "/admin/categories")
	wantStatus(t, b.Post(t, "/admin/categories", url.Values{"name": {`"><img src=x onerror=alert(2)>`}}), http.StatusSeeOther)
	for _, target := range []string{p.Location(), "/admin/pets", "/admin/pets?q=" + url.QueryEscape(evil), "/admin/categories"} {
		page := b.Get(t, target)
		body := string(page.Body)
		if strings.Contains(body, evil) || strings.Contains(body, "<img src=x") || page.Doc.Find("img[onerror]").Length() != 0 {
			t.Fatalf("GET %s: typed markup reached the page unescaped", target)
		}
		if !strings.Contains(page.Doc.Text(), evil) && !strings.Contains(target, "categories") {
			t.Fatalf("GET %s: the name is not shown as text", target)
		}
		if page.Doc.Find("script:not([src])").Length() != 0 || page.Doc.Find("[style]").Length() != 0 {
			t.Fatalf("GET %s: an inline script or style attribute (the CSP allows neither)", target)
		}
	}
}

func TestAdminsManageCategories(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)
		list := b.Get(t, "/admin/categories")
		if n := list.TestID("category-row").Length(); n != len(models.SeedCategories) {
			t.Fatalf("%d category rows, want the %d seeded", n, len(models.SeedCategories))
		}
		p := b.Post(t, "/admin/categories", url.Values{"name": {" Horses "}})
		wantStatus(t, p, http.StatusSeeOther)
		if got := b.Follow(t, p).Text("flash"); got != "Added the category Horses." {
			t.Fatalf("flash %q", got)
		}
		p = b.Post(t, "/admin/categories", url.Values{"name": {"Horses"}})
		wantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("error-name"), "already exists") || p.Doc.Find("#new-name").AttrOr("value", "") != "Horses" {
			t.Fatalf("duplicate: error %q", p.Text("error-name"))
		}
		p = b.Post(t, "/admin/categories/1", url.Values{"name": {""}})
		wantStatus(t, p, http.StatusBadRequest)
		row := p.Doc.Find(`[data-testid="category-row"][data-id="1"]`)
		if !strings.Contains(row.Find(`[data-testid="error-rename"]`).Text(), "must not be empty") {
			t.Fatalf("rename to empty: the message is not in the row\n%s", p.Body)
		}
		wantStatus(t, b.Post(t, "/admin/categories/1", url.Values{"name": {"Puppies"}}), http.StatusSeeOther)
		var cats []struct{ Name string }
		s.Get(t, "/v1/categories").JSON(t, &cats)
		if cats[0].Name != "Puppies" || cats[len(cats)-1].Name != "Horses" {
			t.Fatalf("the API lists %+v", cats)
		}
		if p := b.Post(t, "/admin/categories/999", url.Values{"name": {"X"}}); p.StatusCode != http.StatusNotFound {
			t.Fatalf("rename of an unknown category: %d", p.StatusCode)
		}
	})
}

func TestAdminsManageStaffAccounts(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	b.Get(t, "/admin/staff")
	p := b.Post(t, "/admin/staff", url.Values{"username": {"x y"}, "password": {"short"}, "role": {"admin"}})
	wantStatus(t, p, http.StatusBadRequest)
	if p.Text("error-username") == "" || !strings.Contains(p.Text("error-password"), "at least 12") {
		t.Fatalf("errors: username %q password %q", p.Text("error-username"), p.Text("error-password"))
	}
	if p.Doc.Find("#username").AttrOr("value", "") != "x y" || p.Doc.Find("#password").AttrOr("value", "") != "" ||
		p.Doc.Find("#role option[selected]").AttrOr("value", "") != "admin" {
		t.Fatal("the form must keep the username and role, and never the password")
	}
	p = b.Post(t, "/admin/staff", url.Values{"username": {"Nia"}, "password": {"new clerk password 1"}, "role": {"staff"}})
	wantStatus(t, p, http.StatusSeeOther)
	if got := b.Follow(t, p).Text("flash"); got != "Added staff nia." {
		t.Fatalf("flash %q", got)
	}
	s.NewBrowser(t).Login(t, "nia", "new clerk password 1")
	if p := b.Post(t, "/admin/staff", url.Values{"username": {"nia"}, "password": {"another password"}, "role": {"staff"}}); p.StatusCode != http.StatusConflict || !strings.Contains(p.Text("error-username"), "taken") {
		t.Fatalf("duplicate username: %d %q", p.StatusCode, p.Text("error-username"))
	}

	// Nobody disables themselves, and the last admin stays.
	list := b.Get(t, "/admin/staff")
	adaRow := list.Doc.Find(`[data-testid="staff-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.HasPrefix(strings.TrimSpace(s.Find(`[data-testid="username"]`).Text()), "ada")
	})
	if adaRow.Find(`[data-testid="disable"]`).Length() != 0 {
		t.Fatal("the staff page offers to disable your own account")
	}
	id, _ := adaRow.Attr("data-id")
	if p := b.Post(t, "/admin/staff/"+id+"/disable", nil); p.StatusCode != http.StatusConflict {
		t.Fatalf("disabling yourself: %d, want 409", p.StatusCode)
	}
}

func TestStaffDeleteAndRestorePetsWithTheAPIsRefusals(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		rex := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		createPet(t, s, map[string]any{"name": "Tom", "categoryId": 2})
		o := placeOrder(t, s, map[string]any{"petId": rex.ID})
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		page := fmt.Sprintf("/admin/pets/%d", rex.ID)

		b.Get(t, page)
		p := b.Post(t, page+"/delete", nil)
		wantStatus(t, p, http.StatusConflict)
		if msg := p.Text("form-error"); !strings.Contains(msg, "cannot be deleted") || !strings.Contains(msg, fmt.Sprintf("order #%d (placed) holds it", o.ID)) {
			t.Fatalf("deleting a pet held by an order: %q\n%s", msg, p.Body)
		}
		if res := s.Get(t, "/v1/pets/"+fmt.Sprint(rex.ID)); res.StatusCode != http.StatusOK {
			t.Fatalf("the refused delete removed the pet: %d", res.StatusCode)
		}

		b.Get(t, fmt.Sprintf("/admin/orders/%d", o.ID))
		wantStatus(t, b.Post(t, fmt.Sprintf("/admin/orders/%d/cancel", o.ID), nil), http.StatusSeeOther)
		b.Get(t, page)
		p = b.Post(t, page+"/delete", nil)
		wantStatus(t, p, http.StatusSeeOther)
		shown := b.Follow(t, p)
		if !strings.Contains(shown.Text("flash"), "Deleted Rex") || shown.TestID("pet-deleted").Length() != 1 || shown.TestID("restore-pet").Length() != 1 ||
			shown.TestID("edit-pet").Length() != 0 || shown.TestID("set-status").Length() != 0 || shown.TestID("delete-pet").Length() != 0 {
			t.Fatalf("the deleted pet's page: flash %q\n%s", shown.Text("flash"), shown.Body)
		}
		if !strings.Contains(shown.Text("history"), "Deleted from the catalogue") || !strings.Contains(shown.Text("history"), "by sam") {
			t.Fatalf("the history does not show who deleted the pet: %q", shown.Text("history"))
		}
		if res := s.Get(t, "/v1/pets/"+fmt.Sprint(rex.ID)); res.StatusCode != http.StatusNotFound {
			t.Fatalf("the API still serves the deleted pet: %d", res.StatusCode)
		}
		if got := strings.Join(petNames(b.Get(t, "/admin/pets")), ","); got != "Tom" {
			t.Fatalf("the pets table shows %q, want Tom alone", got)
		}
		deleted := b.Get(t, "/admin/pets?show=deleted")
		if got := strings.Join(petNames(deleted), ","); got != "Rex" || deleted.TestID("deleted").Length() != 1 {
			t.Fatalf("the deleted pets: %q\n%s", got, deleted.Body)
		}
		if v := deleted.Doc.Find("#f-show option[selected]").AttrOr("value", ""); v != "deleted" {
			t.Fatalf("the filter shows %q selected", v)
		}
		if order := b.Get(t, fmt.Sprintf("/admin/orders/%d", o.ID)); order.StatusCode != http.StatusOK || order.Text("order-pet") != "Rex" {
			t.Fatalf("the deleted pet's order page: %d, pet %q", order.StatusCode, order.Text("order-pet"))
		}
		wantStatus(t, b.Get(t, "/admin/pets?show=everything"), http.StatusBadRequest)

		p = b.Post(t, page+"/restore", nil)
		wantStatus(t, p, http.StatusSeeOther)
		if shown := b.Follow(t, p); shown.Text("flash") != "Rex is back in the catalogue." || shown.TestID("pet-deleted").Length() != 0 || shown.TestID("delete-pet").Length() != 1 {
			t.Fatalf("after the restore: flash %q\n%s", shown.Text("flash"), shown.Body)
		}
		if res := s.Get(t, "/v1/pets/"+fmt.Sprint(rex.ID)); res.StatusCode != http.StatusOK {
			t.Fatalf("the API does not serve the restored pet: %d", res.StatusCode)
		}
		if p := b.Get(t, "/admin/pets?show=deleted"); p.TestID("pet-row").Length() != 0 || p.TestID("empty").Length() != 1 {
			t.Fatalf("the deleted pets after the restore:\n%s", p.Body)
		}
	})
}

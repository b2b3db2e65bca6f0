package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// pageNumbers are the page links under a table, as their text says them.
func pageNumbers(p *apptest.Page) (numbers []string, current string) {
	p.Doc.Find(`[data-testid="page-number"]`).Each(func(_ int, a *goquery.Selection) {
		numbers = append(numbers, a.Text())
		if _, ok := a.Attr("aria-current"); ok {
			current = a.Text()
		}
	})
	return numbers, current
}

// createPets adds n pets named "<prefix> 001", ... of the given status.
func createPets(t *testing.T, s *apptest.Server, n int, prefix string, status models.PetStatus) []models.Pet {
	t.Helper()
	pets := make([]models.Pet, n)
	for i := range pets {
		pets[i] = models.Pet{Name: fmt.Sprintf("%s %03d", prefix, i+1), CategoryID: 1, Status: status}
	}
	if err := s.DB.Create(&pets).Error; err != nil {
		t.Fatal(err)
	}
	return pets
}

func TestStaffJumpToAPageByItsNumberKeepingTheFiltersAndSort(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		createPets(t, s, 10, "Other", models.PetAvailable)
		sold := createPets(t, s, 180, "Sold", models.PetSold)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)

		p := b.Get(t, "/admin/pets?status=sold&sort=-name")
		if got, cur := pageNumbers(p); strings.Join(got, " ") != "1 2 3 8" || cur != "1" {
			t.Fatalf("the first of 8 pages links pages %v (this one %q), want 1 2 3 8 (this one 1)", got, cur)
		}
		// The jump form sends the list's filters and sort along with the number.
		kept := map[string]string{}
		p.TestID("page-jump").Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
			kept[in.AttrOr("name", "")] = in.AttrOr("value", "")
		})
		if len(kept) != 2 || kept["status"] != "sold" || kept["sort"] != "-name" {
			t.Fatalf("the jump form keeps %v, want status=sold and sort=-name", kept)
		}
		if max := p.TestID("page-jump").Find(`input[name="page"]`).AttrOr("max", ""); max != "8" {
			t.Fatalf("the jump form goes up to page %q, want 8", max)
		}

		p = b.Get(t, "/admin/pets?status=sold&sort=-name&page=5")
		if got := p.Text("pager-summary"); got != "101–125 of 180 pets" {
			t.Fatalf("page 5 says %q", got)
		}
		// Sorted by name, Z to A: page 5 starts at the 101st name from the end.
		if got := cells(p, "Name"); len(got) != 25 || got[0] != sold[len(sold)-101].Name {
			t.Fatalf("page 5 starts with %v, want %s", got[:1], sold[len(sold)-101].Name)
		}
		if got, cur := pageNumbers(p); strings.Join(got, " ") != "1 3 4 5 6 7 8" || cur != "5" {
			t.Fatalf("page 5 links pages %v (this one %q)", got, cur)
		}
		// Its next page, by cursor, is page 6, and knows it.
		next := b.Get(t, p.TestID("next-page").AttrOr("href", ""))
		if got := next.Text("pager-summary"); got != "126–150 of 180 pets" {
			t.Fatalf("the page after page 5 says %q", got)
		}
		if _, cur := pageNumbers(next); cur != "6" {
			t.Fatalf("the page after page 5 says it is page %q", cur)
		}
		if href := next.Doc.Find(`[data-testid="page-number"]`).First().AttrOr("href", ""); href != "/admin/pets?sort=-name&status=sold" {
			t.Fatalf("page 1 is linked as %q", href)
		}

		// A number past the last page shows the last page.
		if got := b.Get(t, "/admin/pets?status=sold&page=8").Text("pager-summary"); got != "176–180 of 180 pets" {
			t.Fatalf("page 8 says %q", got)
		}
		if got := b.Get(t, "/admin/pets?status=sold&page=20").Text("pager-summary"); got != "156–180 of 180 pets" {
			t.Fatalf("page 20 of 8 says %q", got)
		}
		// The deepest number, 401 (10,000 rows passed over), is a page too; 402 is refused.
		if got := b.Get(t, "/admin/pets?status=sold&page=401").Text("pager-summary"); got != "156–180 of 180 pets" {
			t.Fatalf("page 401 of 8 says %q", got)
		}
		for _, bad := range []string{"0", "-1", "two", "402", "99999999999999999999"} {
			res := b.Get(t, "/admin/pets?page="+bad)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(res.Body), "page") {
				t.Errorf("page=%s: status %d, want 400 naming the page", bad, res.StatusCode)
			}
		}
	})
}

func TestAPetOpenedFromAFilteredListLeadsBackToItAfterAnEdit(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		createPets(t, s, 60, "Sold", models.PetSold)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)

		list := "/admin/pets?sort=-name&status=sold&page=2"
		p := b.Get(t, list)
		open := p.Doc.Find(`[data-testid="pet-name"]`).First()
		pet := b.Get(t, open.AttrOr("href", ""))
		if href := pet.Doc.Find(".crumbs a").First().AttrOr("href", ""); href != list {
			t.Fatalf("the pet's breadcrumb leads to %q, want the list it was opened from, %q", href, list)
		}
		edit := b.Get(t, pet.TestID("edit-pet").AttrOr("href", ""))
		if href := edit.Doc.Find(".crumbs a").First().AttrOr("href", ""); href != list {
			t.Fatalf("the edit form's breadcrumb leads to %q, want %q", href, list)
		}
		form := edit.TestID("pet-form")
		fields := url.Values{}
		form.Find("input, select").Each(func(_ int, in *goquery.Selection) {
			if name := in.AttrOr("name", ""); name != "" {
				fields.Set(name, in.AttrOr("value", in.Find("option[selected]").AttrOr("value", "")))
			}
		})
		fields.Set("name", "Renamed in place")
		saved := b.Post(t, form.AttrOr("action", ""), fields)
		if saved.Location() != list {
			t.Fatalf("saving goes to %q, want back to the list %q", saved.Location(), list)
		}
		if got := b.Follow(t, saved).Text("flash"); got != "Saved Renamed in place." {
			t.Fatalf("back on the list, it says %q", got)
		}
	})
}

func TestABackLinkToAnotherPageOrSiteIsIgnored(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	pet := createPets(t, s, 1, "Rex", models.PetAvailable)[0]
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	for _, back := range []string{
		"https://evil.example/admin/pets", "//evil.example/admin/pets", "/\\evil.example/admin/pets",
		"/admin/staff", "/admin/pets/1", "/admin/petsX", "javascript:alert(1)", "/admin/pets\r\nSet-Cookie: x=1",
		"/admin/pets?q=" + strings.Repeat("a", 3000),
	} {
		page := fmt.Sprintf("/admin/pets/%d?back=%s", pet.ID, url.QueryEscape(back))
		p := b.Get(t, page)
		if href := p.Doc.Find(".crumbs a").First().AttrOr("href", ""); href != "/admin/pets" {
			t.Errorf("back=%q: the breadcrumb leads to %q, want the plain list", back, href)
		}
		saved := b.Post(t, fmt.Sprintf("/admin/pets/%d", pet.ID), url.Values{
			"_csrf": {p.Doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")},
			"name":  {"Rex"}, "categoryId": {"1"}, "back": {back},
		})
		if want := fmt.Sprintf("/admin/pets/%d", pet.ID); saved.Location() != want {
			t.Errorf("back=%q: saving goes to %q, want the pet's page %q", back, saved.Location(), want)
		}
	}
	// A list's own address is kept, with its query.
	p := b.Get(t, fmt.Sprintf("/admin/pets/%d?back=%s", pet.ID, url.QueryEscape("/admin/pets?q=Rex")))
	if href := p.Doc.Find(".crumbs a").First().AttrOr("href", ""); href != "/admin/pets?q=Rex" {
		t.Errorf("the breadcrumb leads to %q, want /admin/pets?q=Rex", href)
	}
}

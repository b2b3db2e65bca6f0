package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// At the bound on categories the page says so instead of offering the add form, and a form
// posted anyway is refused with that sentence; the API lists them all, as many as its document's
// maxItems (each exchange is checked against it).
func TestTheCategoriesPageStopsOfferingToAddAtTheBound(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	var fill []models.Category
	for i := len(models.SeedCategories); i < models.MaxCategories-1; i++ {
		fill = append(fill, models.Category{Name: fmt.Sprintf("Category %d", i)})
	}
	if err := s.DB.CreateInBatches(fill, 200).Error; err != nil {
		t.Fatal(err)
	}
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	if page := b.Get(t, "/admin/categories"); page.TestID("add-category").Length() != 1 || page.TestID("categories-full").Length() != 0 {
		t.Fatal("one place left: the page must offer the add form")
	}
	wantStatus(t, b.Post(t, "/admin/categories", url.Values{"name": {"The last one"}}), http.StatusSeeOther)

	full := "There are 1,000 categories, as many as there can be. Rename one instead of adding another."
	page := b.Get(t, "/admin/categories")
	if page.TestID("add-category").Length() != 0 || page.Text("categories-full") != full {
		t.Fatalf("at the bound: add form %d, sentence %q; want no form and %q", page.TestID("add-category").Length(), page.Text("categories-full"), full)
	}
	refused := b.Post(t, "/admin/categories", url.Values{"name": {"One too many"}})
	wantStatus(t, refused, http.StatusBadRequest)
	if refused.Text("categories-full") != full {
		t.Fatalf("a form posted at the bound: %q, want %q", refused.Text("categories-full"), full)
	}
	var cats []struct{ Name string }
	s.Get(t, "/v1/categories").JSON(t, &cats)
	if len(cats) != models.MaxCategories || cats[len(cats)-1].Name != "The last one" {
		t.Fatalf("the API lists %d categories, the last %+v", len(cats), cats[len(cats)-1])
	}
}

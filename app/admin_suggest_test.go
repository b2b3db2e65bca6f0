package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// suggestions reads a field's suggestions as the admin script asks for them.
func suggestions(t *testing.T, b *apptest.Browser, path string) []string {
	t.Helper()
	p := b.Get(t, path)
	wantStatus(t, p, http.StatusOK)
	if ct := p.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("GET %s: Content-Type %q", path, ct)
	}
	var out []string
	if err := json.Unmarshal(p.Body, &out); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, p.Body)
	}
	return out
}

func TestStaffPickACategoryByNameWithItsSuggestions(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)

		// The form suggests every category, by name.
		form := b.Get(t, "/admin/pets/new")
		field := form.Doc.Find("#categoryId")
		list := form.Doc.Find("datalist#" + field.AttrOr("list", "none") + " option").Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") })
		if want := []string{"Birds", "Cats", "Dogs", "Fish", "Reptiles", "Small animals"}; !slices.Equal(list, want) {
			t.Fatalf("the category field suggests %q, want %q", list, want)
		}

		// A name in any case is the category; a name of none is refused beside the field.
		p := b.Post(t, "/admin/pets", url.Values{"name": {"Tom"}, "categoryId": {"cats"}, "status": {"available"}})
		wantStatus(t, p, http.StatusSeeOther)
		var pet models.Pet
		if err := s.DB.Where("name = ?", "Tom").Take(&pet).Error; err != nil || pet.CategoryID != 2 {
			t.Fatalf("Tom was added in category %d (%v), want Cats (2)", pet.CategoryID, err)
		}
		p = b.Post(t, "/admin/pets", url.Values{"name": {"Rex"}, "categoryId": {"Ferrets"}, "status": {"available"}})
		wantStatus(t, p, http.StatusBadRequest)
		if got := p.Text("error-categoryId"); got != `There is no category named "Ferrets"; choose one of the suggestions.` {
			t.Fatalf("an unknown category is refused with %q", got)
		}
		if v := p.Doc.Find("#categoryId").AttrOr("value", ""); v != "Ferrets" {
			t.Fatalf("the refused form shows the category as %q, not as typed", v)
		}
		// The edit form shows the pet's category by its name.
		edit := b.Get(t, fmt.Sprintf("/admin/pets/%d/edit", pet.ID))
		if v := edit.Doc.Find("#categoryId").AttrOr("value", ""); v != "Cats" {
			t.Fatalf("the edit form shows the category as %q", v)
		}

		// The list's filter takes the name too, or the number, and shows the name.
		createPets(t, s, 2, "Dog", models.PetAvailable)
		for _, typed := range []string{"Cats", "2", "#2"} {
			list := b.Get(t, "/admin/pets?category="+url.QueryEscape(typed))
			wantStatus(t, list, http.StatusOK)
			if n, v := list.TestID("pet-row").Length(), list.Doc.Find("#f-category").AttrOr("value", ""); n != 1 || v != "Cats" {
				t.Fatalf("the pets of category %q: %d rows, the filter shows %q", typed, n, v)
			}
		}
		wantStatus(t, b.Get(t, "/admin/pets?category=Ferrets"), http.StatusBadRequest)

		// The suggestions the script asks for: names containing what is typed, in any case, by name.
		if got, want := suggestions(t, b, "/admin/suggest/categories?q=I"), []string{"Birds", "Fish", "Reptiles", "Small animals"}; !slices.Equal(got, want) {
			t.Fatalf("categories suggested for %q: %q, want %q", "I", got, want)
		}
		if got := suggestions(t, b, "/admin/suggest/categories?q=%25"); len(got) != 0 {
			t.Fatalf("a %% is a character, not a wildcard: %q", got)
		}
	})
}

func TestStaffFilterOrdersByAClientPickedByName(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		ctx := models.WithActor(t.Context(), models.ActorCLI)
		clients := models.NewClientStore(s.DB)
		var ids []int64
		for _, name := range []string{"Kennel Co", "Acme Pets", "Kennel Co"} {
			c, err := clients.Create(ctx, models.NewClient{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, c.ID)
		}
		acme, kennel := ids[1], ids[2]
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)

		// The script's suggestions carry the number, which tells two clients of one name apart.
		got := suggestions(t, b, "/admin/suggest/clients?q=kennel")
		if want := []string{fmt.Sprintf("Kennel Co (#%d)", ids[0]), fmt.Sprintf("Kennel Co (#%d)", kennel)}; !slices.Equal(got, want) {
			t.Fatalf("clients suggested for kennel: %q, want %q", got, want)
		}
		if got := suggestions(t, b, fmt.Sprintf("/admin/suggest/clients?q=%d", acme)); !slices.Contains(got, fmt.Sprintf("Acme Pets (#%d)", acme)) {
			t.Fatalf("a client's number does not suggest it: %q", got)
		}

		// The orders list takes a suggestion, a name only one client has, or a number.
		for _, typed := range []string{fmt.Sprintf("Kennel Co (#%d)", kennel), "acme pets", fmt.Sprint(acme)} {
			p := b.Get(t, "/admin/orders?client="+url.QueryEscape(typed))
			wantStatus(t, p, http.StatusOK)
			want := kennel
			if typed != fmt.Sprintf("Kennel Co (#%d)", kennel) {
				want = acme
			}
			name := map[int64]string{kennel: "Kennel Co", acme: "Acme Pets"}[want]
			if got := p.Text("client-filter"); got != fmt.Sprintf("Orders of %s (client #%d).", name, want) {
				t.Fatalf("orders of %q: %q", typed, got)
			}
			if v := p.Doc.Find("#f-client").AttrOr("value", ""); v != fmt.Sprintf("%s (#%d)", name, want) {
				t.Fatalf("the client filter shows %q", v)
			}
			if p.Doc.Find("#f-client").AttrOr("data-suggest", "") != "/admin/suggest/clients" {
				t.Fatal("the client filter does not ask for suggestions as staff type")
			}
		}
		// A name two clients share is refused, with their numbers.
		p := b.Get(t, "/admin/orders?client=Kennel+Co")
		wantStatus(t, p, http.StatusBadRequest)
		if got, want := p.Text("error-message"), fmt.Sprintf(`2 clients share the name "Kennel Co" (#%d, #%d); choose one of the suggestions`, ids[0], kennel); !strings.Contains(got, want) {
			t.Fatalf("a shared name is refused with %q, want %q", got, want)
		}
	})
}

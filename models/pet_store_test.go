package models_test

import (
	"context"
	"slices"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// List writes its statement by hand; every filter, alone and combined, and the keyset page must
// give what a reader of the table expects, on both stores.
func TestPetListFiltersAndPages(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets := models.NewPetStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		names := []string{"Rex", "rexy", "Tom", "100%_Dog", "100 Dogs", `Back\slash`}
		for i, name := range names {
			st := string(models.PetStatuses[i%3])
			cat := int64(1 + i%2)
			if _, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat, Status: &st}); err != nil {
				t.Fatal(err)
			}
		}
		list := func(f models.PetFilter, page models.Page) ([]string, bool) {
			t.Helper()
			got, more, err := pets.List(ctx, f, page)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]string, len(got))
			for i, p := range got {
				out[i] = p.Name
				if p.ID == 0 || p.CreatedAt.IsZero() || p.UpdatedAt.IsZero() || p.Status == "" || p.CategoryID == 0 {
					t.Fatalf("pet %+v: every column must be read", p)
				}
			}
			return out, more
		}
		all := models.Page{Limit: 100}
		for _, tc := range []struct {
			name   string
			filter models.PetFilter
			want   []string
		}{
			{"no filter", models.PetFilter{}, names},
			{"status", models.PetFilter{Status: models.PetPending}, []string{"rexy", "100 Dogs"}},
			{"category", models.PetFilter{CategoryID: 2}, []string{"rexy", "100%_Dog", `Back\slash`}},
			{"name, any case", models.PetFilter{NameContains: "REX"}, []string{"Rex", "rexy"}},
			{"name with LIKE wildcards taken literally", models.PetFilter{NameContains: "%_"}, []string{"100%_Dog"}},
			{"name with a backslash", models.PetFilter{NameContains: `k\s`}, []string{`Back\slash`}},
			{"all filters", models.PetFilter{Status: models.PetPending, CategoryID: 2, NameContains: "rex"}, []string{"rexy"}},
		} {
			if got, more := list(tc.filter, all); more || !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %q (more %v), want %q", tc.name, got, more, tc.want)
			}
		}

		first, more := list(models.PetFilter{}, models.Page{Limit: 4})
		if !more || !slices.Equal(first, names[:4]) {
			t.Fatalf("first page %q (more %v), want %q and more", first, more, names[:4])
		}
		page, _, _ := pets.List(ctx, models.PetFilter{}, models.Page{Limit: 4})
		rest, more := list(models.PetFilter{}, models.Page{Limit: 4, After: page[3].ID})
		if more || !slices.Equal(rest, names[4:]) {
			t.Fatalf("second page %q (more %v), want %q and no more", rest, more, names[4:])
		}
	})
}

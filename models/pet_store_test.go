package models_test

import (
	"context"
	"maps"
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
		var ids []int64
		for i, name := range names {
			st := string(models.PetStatuses[i%3])
			cat := int64(1 + i%2)
			p, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat, Status: &st}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		list := func(f models.PetFilter, page models.Page) ([]string, bool) {
			t.Helper()
			got, err := pets.List(ctx, f, page)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]string, len(got.Items))
			for i, p := range got.Items {
				out[i] = p.Name
				if p.ID == 0 || p.CreatedAt.IsZero() || p.UpdatedAt.IsZero() || p.Status == "" || p.CategoryID == 0 {
					t.Fatalf("pet %+v: every column must be read", p)
				}
			}
			return out, got.Next != nil
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
			{"ids", models.PetFilter{IDs: []int64{ids[0], ids[3], 99999}}, []string{"Rex", "100%_Dog"}},
			{"all filters", models.PetFilter{Status: models.PetPending, CategoryID: 2, NameContains: "rex", IDs: ids}, []string{"rexy"}},
		} {
			if got, more := list(tc.filter, all); more || !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %q (more %v), want %q", tc.name, got, more, tc.want)
			}
		}

		first, more := list(models.PetFilter{}, models.Page{Limit: 4})
		if !more || !slices.Equal(first, names[:4]) {
			t.Fatalf("first page %q (more %v), want %q and more", first, more, names[:4])
		}
		page, _ := pets.List(ctx, models.PetFilter{}, models.Page{Limit: 4})
		rest, more := list(models.PetFilter{}, models.Page{Limit: 4, Cursor: page.Next})
		if more || !slices.Equal(rest, names[4:]) {
			t.Fatalf("second page %q (more %v), want %q and no more", rest, more, names[4:])
		}
	})
}

// A list reads each pet's status as stored: the three statuses, and a value that is none of them
// (written by hand) kept as it is rather than lost or taken for another.
func TestPetListReadsStatuses(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets := models.NewPetStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		want := map[int64]models.PetStatus{}
		for _, st := range append(models.PetStatuses, "lost") {
			name, cat, given := "Rex "+string(st), int64(1), string(models.PetAvailable)
			p, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat, Status: &given}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Exec("UPDATE pets SET status = ? WHERE id = ?", string(st), p.ID).Error; err != nil {
				t.Fatal(err)
			}
			want[p.ID] = st
		}
		for _, page := range []models.Page{{Limit: 100}, {Limit: 2}} {
			got := map[int64]models.PetStatus{}
			for {
				list, err := pets.List(ctx, models.PetFilter{}, page)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range list.Items {
					got[p.ID] = p.Status
				}
				if list.Next == nil {
					break
				}
				page.Cursor = list.Next
			}
			if !maps.Equal(got, want) {
				t.Fatalf("pages of %d: statuses %v, want %v", page.Limit, got, want)
			}
		}
	})
}

// A list scans each column straight into its field where the field can hold whatever the column
// does; a row that a restore or an import left with NULL in a nullable column of a plain field
// (the times) must still list, with the zero time, on both stores.
func TestPetListReadsNullTimes(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets := models.NewPetStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		name, cat := "Imported", int64(1)
		p, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Exec("UPDATE pets SET created_at = NULL, updated_at = NULL WHERE id = ?", p.ID).Error; err != nil {
			t.Fatal(err)
		}
		got, err := pets.List(ctx, models.PetFilter{IDs: []int64{p.ID}}, models.Page{Limit: 10})
		if err != nil {
			t.Fatalf("listing a pet with NULL times: %v", err)
		}
		if len(got.Items) != 1 || got.Items[0].Name != name || !got.Items[0].CreatedAt.IsZero() || !got.Items[0].UpdatedAt.IsZero() {
			t.Fatalf("got %+v, want the pet %q with zero times", got.Items, name)
		}
	})
}

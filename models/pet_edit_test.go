package models_test

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func ptr[T any](v T) *T { return &v }

// samePet compares what a client sees of two pets (times by instant: drivers differ in location).
func samePet(a, b *models.Pet) bool {
	return a.ID == b.ID && a.Name == b.Name && a.CategoryID == b.CategoryID && a.Status == b.Status &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) && a.DeletedAt.Valid == b.DeletedAt.Valid
}

func mustCreate(t *testing.T, pets *models.PetStore, name string, cat int64) *models.Pet {
	t.Helper()
	p, err := pets.Create(models.WithActor(context.Background(), models.ActorCLI), models.NewPet{Name: &name, CategoryID: &cat}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// One keyset path serves every order a list may take, forwards and backwards: walking the next
// links from the first page, and the previous links from the last, each item comes exactly once,
// in its place, with ties broken by id.
func TestKeysetPagesWalkEveryOrderBothWays(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		pets := models.NewPetStore(openDB(t, store))
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		var all []models.Pet
		for i := range 11 {
			all = append(all, *mustCreate(t, pets, []string{"bee", "ant", "cat", "ant"}[i%4], 1))
		}
		for _, s := range []models.Sort{{}, {Desc: true}, {Key: "name"}, {Key: "name", Desc: true}} {
			want := slices.Clone(all)
			sort.SliceStable(want, func(i, j int) bool {
				a, b := want[i], want[j]
				if s.Key == "name" && a.Name != b.Name {
					return (a.Name < b.Name) != s.Desc
				}
				return (a.ID < b.ID) != s.Desc
			})
			var wantIDs []int64
			for _, p := range want {
				wantIDs = append(wantIDs, p.ID)
			}
			walk := func(from *models.Cursor, backwards bool) []int64 {
				var ids []int64
				for cur, pages := from, 0; ; pages++ {
					page, err := pets.List(ctx, models.PetFilter{}, models.Page{Limit: 3, Sort: s, Cursor: cur})
					if err != nil {
						t.Fatal(err)
					}
					var got []int64
					for _, p := range page.Items {
						got = append(got, p.ID)
					}
					if backwards {
						ids = append(got, ids...)
						cur = page.Prev
					} else {
						ids = append(ids, got...)
						cur = page.Next
					}
					if cur != nil {
						// A cursor travels as text, as clients carry it.
						if cur, err = models.DecodeCursor(cur.Encode(), s); err != nil {
							t.Fatal(err)
						}
					}
					if cur == nil || pages > 10 {
						return ids
					}
				}
			}
			if got := walk(nil, false); !slices.Equal(got, wantIDs) {
				t.Errorf("sort %s, forwards: %v, want %v", s, got, wantIDs)
			}
			if got := walk(&models.Cursor{Sort: s, Last: true}, true); !slices.Equal(got, wantIDs) {
				t.Errorf("sort %s, backwards from the last page: %v, want %v", s, got, wantIDs)
			}
		}
		if _, err := pets.List(ctx, models.PetFilter{}, models.Page{Limit: 3, Sort: models.Sort{Key: "colour"}}); models.ErrorCode(err) != models.EInvalid {
			t.Fatalf("a sort key the list does not have: %v, want invalid_request", err)
		}
	})
}

// A change follows the rules of creation for each field it gives, the lifecycle's rule for a
// status set by hand, and its If-Match condition; whatever it refuses, it changes nothing.
func TestPatchFollowsTheRulesOfCreationAndChangesNothingWhenRefused(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets, orders := models.NewPetStore(db), models.NewOrderStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		p := mustCreate(t, pets, "Rex", 1)

		got, err := pets.Patch(ctx, p.ID, models.PetPatch{Name: ptr("  Max  "), CategoryID: ptr[int64](2)}, "api-key:1", nil)
		if err != nil || got.Name != "Max" || got.CategoryID != 2 || got.Status != models.PetAvailable || !got.UpdatedAt.After(p.UpdatedAt) {
			t.Fatalf("patch name and category: %+v, %v", got, err)
		}
		stored, _ := pets.Get(ctx, p.ID)
		if !samePet(stored, got) {
			t.Fatalf("patch answered %+v, the store holds %+v", got, stored)
		}

		for _, tc := range []struct {
			name  string
			patch models.PetPatch
			match models.Match
			code  string
		}{
			{"empty name", models.PetPatch{Name: ptr(" ")}, nil, models.EValidation},
			{"format character", models.PetPatch{Name: ptr("Max\u202E")}, nil, models.EValidation},
			{"no such category", models.PetPatch{Name: ptr("Other"), CategoryID: ptr[int64](999)}, nil, models.EValidation},
			{"category zero", models.PetPatch{CategoryID: ptr[int64](0)}, nil, models.EValidation},
			{"unknown status", models.PetPatch{Status: ptr("lost")}, nil, models.EValidation},
			{"If-Match that does not match", models.PetPatch{Name: ptr("Other")}, func(*models.Pet) bool { return false }, models.EPrecondition},
		} {
			if _, err := pets.Patch(ctx, p.ID, tc.patch, "api-key:1", tc.match); models.ErrorCode(err) != tc.code {
				t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
			}
			if now, _ := pets.Get(ctx, p.ID); !samePet(now, stored) {
				t.Fatalf("%s changed the pet: %+v, was %+v", tc.name, now, stored)
			}
		}

		got, err = pets.Patch(ctx, p.ID, models.PetPatch{Status: ptr("sold")}, "api-key:7", func(cur *models.Pet) bool { return samePet(cur, stored) })
		if err != nil || got.Status != models.PetSold {
			t.Fatalf("set sold with a matching condition: %+v, %v", got, err)
		}
		if h, _ := pets.History(ctx, p.ID); len(h) != 1 || h[0].Action != models.ActionSetStatus || h[0].Actor != "api-key:7" || h[0].PetTo != models.PetSold {
			t.Fatalf("history after a status change: %+v", h)
		}

		// The lifecycle's rule: a pet an order holds moves only through that order.
		held := mustCreate(t, pets, "Held", 1)
		if _, err := orders.Place(ctx, models.NewOrder{PetID: &held.ID}, models.StaffOwner, "test", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := pets.Patch(ctx, held.ID, models.PetPatch{Status: ptr("available")}, "api-key:1", nil); models.ErrorCode(err) != models.EConflict {
			t.Fatalf("status of a held pet: %v, want conflict", err)
		}
		if got, err := pets.Patch(ctx, held.ID, models.PetPatch{Name: ptr("Renamed")}, "api-key:1", nil); err != nil || got.Status != models.PetPending {
			t.Fatalf("renaming a held pet: %+v, %v", got, err)
		}
		if _, err := pets.Patch(ctx, 987654, models.PetPatch{Name: ptr("x")}, "api-key:1", nil); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("patching a pet that does not exist: %v", err)
		}
	})
}

// Deleting takes a pet out of everything a client reads, keeps its orders and history, is
// refused while a live order holds it, and can be undone by staff.
func TestDeleteKeepsOrdersAndHistoryAndRestoreUndoesIt(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets, orders := models.NewPetStore(db), models.NewOrderStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		p := mustCreate(t, pets, "Rex", 1)
		mustCreate(t, pets, "Other", 1)
		o, err := orders.Place(ctx, models.NewOrder{PetID: &p.ID}, models.StaffOwner, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := pets.Delete(ctx, p.ID, "api-key:1", nil); models.ErrorCode(err) != models.EConflict {
			t.Fatalf("deleting a pet with a live order: %v, want conflict", err)
		}
		if _, err := orders.Cancel(ctx, o.ID, "staff:sam"); err != nil {
			t.Fatal(err)
		}
		if err := pets.Delete(ctx, p.ID, "api-key:1", func(*models.Pet) bool { return false }); models.ErrorCode(err) != models.EPrecondition {
			t.Fatalf("deleting with an If-Match that does not match: %v", err)
		}
		if err := pets.Delete(ctx, p.ID, "api-key:1", nil); err != nil {
			t.Fatal(err)
		}

		if _, err := pets.Get(ctx, p.ID); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("Get of a deleted pet: %v, want not_found", err)
		}
		if err := pets.Delete(ctx, p.ID, "api-key:1", nil); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("deleting twice: %v, want not_found", err)
		}
		if _, err := pets.Patch(ctx, p.ID, models.PetPatch{Name: ptr("x")}, "api-key:1", nil); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("patching a deleted pet: %v, want not_found", err)
		}
		if _, err := orders.Place(ctx, models.NewOrder{PetID: &p.ID}, models.StaffOwner, "test", nil); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("ordering a deleted pet: %v, want not_found", err)
		}
		live, _ := pets.List(ctx, models.PetFilter{IDs: []int64{p.ID}}, models.Page{Limit: 10})
		deleted, _ := pets.List(ctx, models.PetFilter{Deleted: true}, models.Page{Limit: 10})
		counts, _, _ := pets.CountByStatus(ctx)
		if len(live.Items) != 0 || len(deleted.Items) != 1 || deleted.Items[0].ID != p.ID || !deleted.Items[0].DeletedAt.Valid || counts[models.PetAvailable] != 1 {
			t.Fatalf("after the delete: list %+v, deleted %+v, counts %v", live.Items, deleted.Items, counts)
		}
		if got, err := pets.GetAny(ctx, p.ID); err != nil || !got.DeletedAt.Valid {
			t.Fatalf("staff's view of the deleted pet: %+v, %v", got, err)
		}
		if got, err := orders.Get(ctx, o.ID, models.StaffOwner); err != nil || got.PetID != p.ID {
			t.Fatalf("the deleted pet's order: %+v, %v", got, err)
		}
		if names, _ := pets.Names(ctx, []int64{p.ID}); names[p.ID] != "Rex" {
			t.Fatalf("the deleted pet's name for its orders: %v", names)
		}

		back, err := pets.Restore(ctx, p.ID, "staff:sam")
		if err != nil || back.DeletedAt.Valid || back.Name != "Rex" || back.Status != models.PetAvailable {
			t.Fatalf("restore: %+v, %v", back, err)
		}
		if got, err := pets.Get(ctx, p.ID); err != nil || got.ID != p.ID {
			t.Fatalf("Get after the restore: %+v, %v", got, err)
		}
		h, _ := pets.History(ctx, p.ID)
		var actions []models.Action
		for _, c := range h {
			actions = append(actions, c.Action)
		}
		if !slices.Equal(actions, []models.Action{models.ActionPlace, models.ActionCancel, models.ActionDelete, models.ActionRestore}) ||
			h[2].Actor != "api-key:1" || h[3].Actor != "staff:sam" {
			t.Fatalf("history: %+v", h)
		}
	})
}

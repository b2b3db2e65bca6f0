package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// List writes its statement by hand; its filters and pages, and every column (a ship date or
// none), must read back what was placed, on both stores.
func TestOrderListFiltersAndPages(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets, orders := models.NewPetStore(db), models.NewOrderStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		ship := time.Now().UTC().AddDate(0, 0, 30).Truncate(time.Hour)
		var placed []*models.Order
		for i := range 3 {
			name, cat := "Pet", int64(1)
			p, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat}, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := models.NewOrder{PetID: &p.ID}
			if i == 1 {
				n.ShipDate = &ship
			}
			o, err := orders.Place(ctx, n, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			placed = append(placed, o)
		}
		approved, err := orders.Approve(ctx, placed[2].ID, "test")
		if err != nil {
			t.Fatal(err)
		}
		want := []models.Order{*placed[0], *placed[1], *approved}

		list := func(f models.OrderFilter, page models.Page) ([]models.Order, bool) {
			t.Helper()
			got, err := orders.List(ctx, f, page)
			if err != nil {
				t.Fatal(err)
			}
			return got.Items, got.Next != nil
		}
		all, more := list(models.OrderFilter{}, models.Page{Limit: 10})
		if more || len(all) != 3 {
			t.Fatalf("all orders: %d (more %v), want 3", len(all), more)
		}
		for i := range all {
			w := want[i]
			g := all[i]
			if g.ID != w.ID || g.PetID != w.PetID || g.Quantity != 1 || g.Status != w.Status || g.Complete ||
				!g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) || (g.ShipDate == nil) != (w.ShipDate == nil) ||
				(g.ShipDate != nil && !g.ShipDate.Equal(*w.ShipDate)) {
				t.Errorf("order %d read back as %+v, want %+v", i, g, w)
			}
		}
		if got, _ := list(models.OrderFilter{Status: models.OrderApproved}, models.Page{Limit: 10}); len(got) != 1 || got[0].ID != approved.ID {
			t.Errorf("approved orders: %+v, want only order %d", got, approved.ID)
		}
		if got, _ := list(models.OrderFilter{PetID: placed[1].PetID}, models.Page{Limit: 10}); len(got) != 1 || got[0].ID != placed[1].ID {
			t.Errorf("orders of pet %d: %+v, want only order %d", placed[1].PetID, got, placed[1].ID)
		}
		first, more := list(models.OrderFilter{}, models.Page{Limit: 2})
		rest, moreAfter := list(models.OrderFilter{}, models.Page{Limit: 2, Cursor: &models.Cursor{ID: first[1].ID}})
		if !more || moreAfter || len(first) != 2 || len(rest) != 1 || rest[0].ID != approved.ID {
			t.Errorf("pages of 2: %d (more %v) then %d (more %v), want 2 and more, then the last alone", len(first), more, len(rest), moreAfter)
		}
	})
}

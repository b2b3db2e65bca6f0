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
			o, err := orders.Place(ctx, n, models.StaffOwner, "test", nil)
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
			got, err := orders.List(ctx, models.StaffOwner, f, page)
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

// Ownership is part of every query: a client's list, look-up and cancel see its own orders
// only, staff see all, and an order placed by staff belongs to no client.
func TestOrdersAreSeenOnlyByTheClientThatPlacedThemAndByStaff(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets, orders, clients := models.NewPetStore(db), models.NewOrderStore(db), models.NewClientStore(db)
		ctx := models.WithActor(context.Background(), "test")
		a, err := clients.Create(ctx, models.NewClient{Name: "A"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := clients.Create(ctx, models.NewClient{Name: "B", Email: "ops@b.example"})
		if err != nil {
			t.Fatal(err)
		}
		place := func(by models.Owner) *models.Order {
			t.Helper()
			name, cat := "Pet", int64(1)
			p, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat}, nil)
			if err != nil {
				t.Fatal(err)
			}
			o, err := orders.Place(ctx, models.NewOrder{PetID: &p.ID}, by, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		ofA, ofB, ofStaff := place(models.ClientOwner(a.ID)), place(models.ClientOwner(b.ID)), place(models.StaffOwner)
		if ofA.ClientID == nil || *ofA.ClientID != a.ID || ofStaff.ClientID != nil {
			t.Fatalf("owners: A's order %v, staff's %v; want A and none", ofA.ClientID, ofStaff.ClientID)
		}
		ids := func(by models.Owner) []int64 {
			t.Helper()
			list, err := orders.List(ctx, by, models.OrderFilter{}, models.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var out []int64
			for _, o := range list.Items {
				out = append(out, o.ID)
			}
			return out
		}
		if got := ids(models.ClientOwner(a.ID)); len(got) != 1 || got[0] != ofA.ID {
			t.Errorf("A lists %v, want only %d", got, ofA.ID)
		}
		if got := ids(models.StaffOwner); len(got) != 3 {
			t.Errorf("staff list %v, want all three", got)
		}
		if _, err := orders.Get(ctx, ofB.ID, models.ClientOwner(a.ID)); models.ErrorCode(err) != models.ENotFound {
			t.Errorf("A gets B's order: %v, want not_found", err)
		}
		if _, err := orders.Get(ctx, ofStaff.ID, models.ClientOwner(a.ID)); models.ErrorCode(err) != models.ENotFound {
			t.Errorf("A gets staff's order: %v, want not_found", err)
		}
		if _, err := orders.CancelOwn(ctx, ofB.ID, models.ClientOwner(a.ID), "api-key:1"); models.ErrorCode(err) != models.ENotFound {
			t.Errorf("A cancels B's order: %v, want not_found", err)
		}
		if o, err := orders.Get(ctx, ofB.ID, models.StaffOwner); err != nil || o.Status != models.OrderPlaced {
			t.Errorf("B's order after A's attempt: %+v %v, want still placed", o, err)
		}
		got, err := orders.CancelOwn(ctx, ofA.ID, models.ClientOwner(a.ID), "api-key:1")
		if err != nil || got.Status != models.OrderCancelled {
			t.Fatalf("A cancels its own placed order: %+v %v", got, err)
		}
		if _, err := orders.Approve(ctx, ofB.ID, "staff:sam"); err != nil {
			t.Fatal(err)
		}
		if _, err := orders.CancelOwn(ctx, ofB.ID, models.ClientOwner(b.ID), "api-key:2"); models.ErrorCode(err) != models.EConflict {
			t.Errorf("B cancels its approved order: %v, want a conflict (only placed orders)", err)
		}
		list, err := clients.List(ctx, time.Now())
		if err != nil || len(list) != 2 || list[0].Orders != 1 || list[1].Orders != 1 || list[1].Email != "ops@b.example" {
			t.Errorf("clients %+v (%v), want A and B with one order each", list, err)
		}
	})
}

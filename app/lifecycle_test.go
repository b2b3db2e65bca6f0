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

// orderIn places an order through the API and moves it to status with the staff actions.
func orderIn(t *testing.T, s *apptest.Server, status models.OrderStatus) (order, pet) {
	t.Helper()
	p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	o := placeOrder(t, s, map[string]any{"petId": p.ID})
	orders := models.NewOrderStore(s.DB)
	path := map[models.OrderStatus][]models.Action{
		models.OrderPlaced:    nil,
		models.OrderApproved:  {models.ActionApprove},
		models.OrderDelivered: {models.ActionApprove, models.ActionDeliver},
		models.OrderCancelled: {models.ActionCancel},
	}[status]
	for _, a := range path {
		if _, err := orders.Apply(t.Context(), o.ID, a, "staff:setup"); err != nil {
			t.Fatalf("setting up a %s order: %s: %v", status, a, err)
		}
	}
	return o, p
}

func TestEveryOrderTransitionAllowedAndRefused(t *testing.T) {
	t.Parallel()
	type outcome struct {
		order models.OrderStatus
		pet   models.PetStatus
	}
	// From docs/design.md, "States and transitions"; an empty outcome means refused with 409.
	table := map[models.OrderStatus]map[models.Action]outcome{
		models.OrderPlaced: {
			models.ActionApprove: {models.OrderApproved, models.PetPending},
			models.ActionDeliver: {},
			models.ActionCancel:  {models.OrderCancelled, models.PetAvailable},
		},
		models.OrderApproved: {
			models.ActionApprove: {},
			models.ActionDeliver: {models.OrderDelivered, models.PetSold},
			models.ActionCancel:  {models.OrderCancelled, models.PetAvailable},
		},
		models.OrderDelivered: {models.ActionApprove: {}, models.ActionDeliver: {}, models.ActionCancel: {}},
		models.OrderCancelled: {models.ActionApprove: {}, models.ActionDeliver: {}, models.ActionCancel: {}},
	}
	startPet := map[models.OrderStatus]models.PetStatus{
		models.OrderPlaced: models.PetPending, models.OrderApproved: models.PetPending,
		models.OrderDelivered: models.PetSold, models.OrderCancelled: models.PetAvailable,
	}
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		orders := models.NewOrderStore(s.DB)
		pets := models.NewPetStore(s.DB)
		for from, actions := range table {
			var allowed []models.Action
			for _, a := range []models.Action{models.ActionApprove, models.ActionDeliver, models.ActionCancel} {
				want := actions[a]
				if want.order != "" {
					allowed = append(allowed, a)
				}
				t.Run(fmt.Sprintf("%s %s", a, from), func(t *testing.T) {
					o, p := orderIn(t, s, from)
					before, _ := pets.History(t.Context(), p.ID)
					got, err := orders.Apply(t.Context(), o.ID, a, "staff:alice")
					after, _ := pets.History(t.Context(), p.ID)
					stored, _ := orders.Get(t.Context(), o.ID, models.StaffOwner)
					petNow := models.PetStatus(getPetStatus(t, s, p.ID))
					if want.order == "" {
						if models.ErrorCode(err) != models.EConflict || !strings.Contains(models.ErrorMessage(err), string(from)) {
							t.Fatalf("error %v, want a conflict naming the status %s", err, from)
						}
						if stored.Status != from || petNow != startPet[from] || len(after) != len(before) {
							t.Fatalf("refused %s changed something: order %s, pet %s, history %d→%d", a, stored.Status, petNow, len(before), len(after))
						}
						return
					}
					if err != nil {
						t.Fatalf("%s a %s order: %v", a, from, err)
					}
					if got.Status != want.order || stored.Status != want.order || petNow != want.pet ||
						stored.Complete != (want.order == models.OrderDelivered) {
						t.Fatalf("after %s: order %s (stored %s, complete %v), pet %s; want %s and %s", a, got.Status, stored.Status, stored.Complete, petNow, want.order, want.pet)
					}
					last := after[len(after)-1]
					if len(after) != len(before)+1 || last.Action != a || last.Actor != "staff:alice" ||
						last.PetFrom != startPet[from] || last.PetTo != want.pet || last.OrderFrom != from || last.OrderTo != want.order ||
						last.OrderID == nil || *last.OrderID != o.ID || last.CreatedAt.IsZero() {
						t.Fatalf("history after %s: %+v (from %d to %d entries), want one entry by staff:alice %s→%s", a, last, len(before), len(after), startPet[from], want.pet)
					}
				})
			}
			if got := models.AllowedActions(from); fmt.Sprint(got) != fmt.Sprint(allowed) {
				t.Fatalf("AllowedActions(%s) = %v, want %v", from, got, allowed)
			}
		}
		if _, err := orders.Approve(t.Context(), 987654, "staff:alice"); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("approving a missing order: %v, want not_found", err)
		}
	})
}

func TestPlacingRecordsTheClientInThePetsHistory(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		o, p := orderIn(t, s, models.OrderDelivered)
		h, err := models.NewPetStore(s.DB).History(t.Context(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var steps []string
		for _, c := range h {
			steps = append(steps, fmt.Sprintf("%s by %s: %s→%s", c.Action, c.Actor, c.PetFrom, c.PetTo))
		}
		want := "place by " + models.APIKeyActor(s.KeyID) + ": available→pending|approve by staff:setup: pending→pending|deliver by staff:setup: pending→sold"
		if strings.Join(steps, "|") != want {
			t.Fatalf("history %q, want %q", strings.Join(steps, "|"), want)
		}
		oh, _ := models.NewOrderStore(s.DB).History(t.Context(), o.ID)
		forPet, _ := models.NewOrderStore(s.DB).ListForPet(t.Context(), p.ID)
		if len(oh) != 3 || len(forPet) != 1 || forPet[0].ID != o.ID {
			t.Fatalf("order history %d entries, orders for the pet %+v; want 3 and the one order", len(oh), forPet)
		}
	})
}

func TestStaffSetStatusByHandOnlyForPetsNoOrderHolds(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		pets := models.NewPetStore(s.DB)
		ctx := t.Context()

		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		got, err := pets.SetStatus(ctx, p.ID, models.PetSold, "staff:bob")
		if err != nil || got.Status != models.PetSold || getPetStatus(t, s, p.ID) != "sold" {
			t.Fatalf("setting an available pet sold: %+v %v", got, err)
		}
		if _, err := pets.SetStatus(ctx, p.ID, models.PetSold, "staff:bob"); err != nil {
			t.Fatalf("setting the status it has: %v, want a no-op", err)
		}
		if _, err := pets.SetStatus(ctx, p.ID, models.PetAvailable, "staff:carol"); err != nil {
			t.Fatal(err)
		}
		h, _ := pets.History(ctx, p.ID)
		if len(h) != 2 || h[0].Actor != "staff:bob" || h[0].PetFrom != "available" || h[0].PetTo != "sold" || h[0].OrderID != nil ||
			h[0].Action != models.ActionSetStatus || h[1].Actor != "staff:carol" || h[1].PetTo != "available" {
			t.Fatalf("history %+v, want bob's available→sold then carol's sold→available, and no entry for the no-op", h)
		}

		o, held := orderIn(t, s, models.OrderApproved)
		for _, to := range []models.PetStatus{models.PetAvailable, models.PetSold} {
			_, err := pets.SetStatus(ctx, held.ID, to, "staff:bob")
			if models.ErrorCode(err) != models.EConflict || !strings.Contains(models.ErrorMessage(err), fmt.Sprint(o.ID)) {
				t.Fatalf("setting a pet with a live order %s: %v, want a conflict naming order %d", to, err, o.ID)
			}
		}
		if getPetStatus(t, s, held.ID) != "pending" {
			t.Fatal("a refused hand change changed the pet")
		}
		delivered, sold := orderIn(t, s, models.OrderDelivered)
		if _, err := pets.SetStatus(ctx, sold.ID, models.PetAvailable, "staff:bob"); models.ErrorCode(err) != models.EConflict ||
			!strings.Contains(models.ErrorMessage(err), fmt.Sprint(delivered.ID)) || getPetStatus(t, s, sold.ID) != "sold" {
			t.Fatalf("setting a pet sold through order %d available: %v, want a conflict and the pet still sold", delivered.ID, err)
		}
		if _, err := pets.SetStatus(ctx, held.ID, "lost", "staff:bob"); models.ErrorCode(err) != models.EValidation {
			t.Fatalf("unknown status: %v, want validation_failed", err)
		}
		if _, err := pets.SetStatus(ctx, 987654, models.PetSold, "staff:bob"); models.ErrorCode(err) != models.ENotFound {
			t.Fatalf("missing pet: %v, want not_found", err)
		}

		// After the order is cancelled the pet is free again, and may be ordered again.
		if _, err := models.NewOrderStore(s.DB).Cancel(ctx, o.ID, "staff:bob"); err != nil {
			t.Fatal(err)
		}
		placeOrder(t, s, map[string]any{"petId": held.ID})
	})
}

// Staff clicking deliver and cancel at once, many times over: each order ends in exactly one of
// the two, and its pet agrees with it.
func TestConcurrentStaffActionsLeaveOrderAndPetInAgreement(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		orders := models.NewOrderStore(s.DB)
		pets := models.NewPetStore(s.DB)
		for range 5 {
			o, p := orderIn(t, s, models.OrderApproved)
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for i, a := range []models.Action{models.ActionDeliver, models.ActionCancel, models.ActionDeliver, models.ActionCancel} {
				wg.Go(func() { _, errs[i] = orders.Apply(context.Background(), o.ID, a, "staff:x") })
			}
			wg.Go(func() { _, _ = pets.SetStatus(context.Background(), p.ID, models.PetAvailable, "staff:y") })
			wg.Wait()
			ok := 0
			for _, err := range errs {
				if err == nil {
					ok++
				} else if models.ErrorCode(err) != models.EConflict {
					t.Fatalf("unexpected error %v", err)
				}
			}
			final, _ := orders.Get(t.Context(), o.ID, models.StaffOwner)
			petNow := getPetStatus(t, s, p.ID)
			agree := (final.Status == models.OrderDelivered && petNow == "sold") ||
				(final.Status == models.OrderCancelled && petNow == "available")
			if ok != 1 || !agree {
				t.Fatalf("%d actions succeeded, order %s, pet %s; want exactly one, and the pet agreeing", ok, final.Status, petNow)
			}
		}
	})
}

func TestMixedConcurrentOrdersAndCancelsNeverGiveAPetTwoLiveOrders(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		orders := models.NewOrderStore(s.DB)
		var ids []int64
		for i := range 3 {
			ids = append(ids, createPet(t, s, map[string]any{"name": fmt.Sprint("Pet ", i), "categoryId": 1}).ID)
		}
		// Clients order the three pets while staff cancel whatever is live: however it
		// interleaves, no pet ends with two live orders, and a pending pet has exactly one.
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				res := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": ids[i%3]})
				if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusConflict {
					t.Errorf("order: %d %s", res.StatusCode, res.Body)
				}
				if res.StatusCode == http.StatusCreated && i%2 == 0 {
					var o order
					res.JSON(t, &o)
					if _, err := orders.Cancel(context.Background(), o.ID, "staff:z"); err != nil {
						t.Errorf("cancel: %v", err)
					}
				}
			})
		}
		wg.Wait()
		for _, id := range ids {
			live, status := liveOrders(t, s, id), getPetStatus(t, s, id)
			if live > 1 || (status == "pending") != (live == 1) || status == "sold" {
				t.Fatalf("pet %d is %s with %d live orders", id, status, live)
			}
		}
	})
}

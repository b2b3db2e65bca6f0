package app_test

import (
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func TestSeedFillsEveryCategoryAndStatusConsistentlyAndIsSafeToRunTwice(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		env := map[string]string{"PETSTORE_LOG_LEVEL": "warn", "PETSTORE_DB_PATH": cfg.DBPath, "DATABASE_URL": cfg.DatabaseURL}
		for i := range 2 {
			out, stderr, err := run(t, env, "seed", "--pets", "300", "--orders", "120")
			if err != nil {
				t.Fatalf("seed run %d: %v\n%s", i+1, err, stderr)
			}
			if !strings.Contains(out, "holds 300 pets and 120 orders") {
				t.Fatalf("seed run %d said %q", i+1, out)
			}
		}
		db := apptest.OpenDB(t, cfg)

		var pets []models.Pet
		var orders []models.Order
		var changes []models.StatusChange
		db.Find(&pets)
		db.Find(&orders)
		db.Order("id").Find(&changes)
		if len(pets) != 300 || len(orders) != 120 {
			t.Fatalf("%d pets and %d orders after two runs, want 300 and 120", len(pets), len(orders))
		}
		byID := map[int64]*models.Pet{}
		cats := map[int64]bool{}
		petStatuses := map[models.PetStatus]int{}
		for i, p := range pets {
			byID[p.ID] = &pets[i]
			cats[p.CategoryID] = true
			petStatuses[p.Status]++
			if strings.TrimSpace(p.Name) == "" || p.Name == "Pet" {
				t.Fatalf("pet %d has name %q", p.ID, p.Name)
			}
		}
		if len(cats) != len(models.SeedCategories) || len(petStatuses) != 3 {
			t.Fatalf("pets in %d categories and statuses %v; want all %d categories and all 3 statuses", len(cats), petStatuses, len(models.SeedCategories))
		}

		orderStatuses := map[models.OrderStatus]int{}
		ordersOf := map[int64]int{}
		wantPet := map[models.OrderStatus]models.PetStatus{
			models.OrderPlaced: models.PetPending, models.OrderApproved: models.PetPending,
			models.OrderDelivered: models.PetSold, models.OrderCancelled: models.PetAvailable,
		}
		for _, o := range orders {
			orderStatuses[o.Status]++
			ordersOf[o.PetID]++
			if p := byID[o.PetID]; p == nil || p.Status != wantPet[o.Status] || o.Complete != (o.Status == models.OrderDelivered) || o.Quantity != 1 {
				t.Fatalf("order %+v disagrees with its pet %+v", o, p)
			}
		}
		if len(orderStatuses) != 4 {
			t.Fatalf("order statuses %v, want all four", orderStatuses)
		}
		for _, p := range pets {
			if p.Status == models.PetPending && ordersOf[p.ID] != 1 {
				t.Fatalf("pending pet %d has %d orders, want its one live order", p.ID, ordersOf[p.ID])
			}
		}
		// Each pet's history replays to its status.
		last := map[int64]models.PetStatus{}
		for _, c := range changes {
			if from, seen := last[c.PetID]; seen && from != c.PetFrom {
				t.Fatalf("change %+v starts from %s, but the pet was %s", c, c.PetFrom, from)
			}
			last[c.PetID] = c.PetTo
		}
		for id, st := range last {
			if byID[id].Status != st {
				t.Fatalf("pet %d is %s, its history ends at %s", id, byID[id].Status, st)
			}
		}

		if out, stderr, err := run(t, env, "seed", "--pets", "350"); err != nil || !strings.Contains(out, "added 50 pets") {
			t.Fatalf("topping up to 350: %q %v\n%s", out, err, stderr)
		}
	})
}

func TestSeedRefusesMoreOrdersThanPets(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	if _, _, err := run(t, env, "seed", "--pets", "10", "--orders", "11"); err == nil || !strings.Contains(err.Error(), "--orders") {
		t.Fatalf("seed --pets 10 --orders 11: %v, want an error naming --orders", err)
	}
}

package models_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

func allEvents(t *testing.T, db *gorm.DB) []models.Event {
	t.Helper()
	var out []models.Event
	if err := db.Order("seq, id").Find(&out).Error; err != nil {
		t.Fatal(err)
	}
	return out
}

func eventTypes(evs []models.Event) []models.EventType {
	out := make([]models.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func TestEveryChangeOfAPetOrAnOrderRecordsItsEventsAndARefusedOneNone(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		pets, orders := models.NewPetStore(db), models.NewOrderStore(db)
		name, cat := "Rex", int64(1)
		p, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Refused changes leave no event: an unknown category, ordering a pet twice.
		bad := int64(999)
		if _, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &bad}, nil); err == nil {
			t.Fatal("created a pet in no category")
		}
		client, err := models.NewClientStore(db).Create(ctx, models.NewClient{Name: "Shop"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := orders.Place(ctx, models.NewOrder{PetID: &p.ID}, models.ClientOwner(client.ID), "api-key:1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := orders.Place(ctx, models.NewOrder{PetID: &p.ID}, models.ClientOwner(client.ID), "api-key:1", nil); err == nil {
			t.Fatal("placed a second order for a pending pet")
		}
		for _, a := range []models.Action{models.ActionApprove, models.ActionDeliver} {
			if _, err := orders.Apply(ctx, o.ID, a, "staff:ann"); err != nil {
				t.Fatal(err)
			}
		}
		newName := "Rexy"
		if _, err := pets.Patch(ctx, p.ID, models.PetPatch{Name: &newName}, "api-key:1", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := pets.Patch(ctx, p.ID, models.PetPatch{Name: &newName}, "api-key:1", nil); err != nil { // no change
			t.Fatal(err)
		}
		if err := pets.Delete(ctx, p.ID, "api-key:1", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := pets.Restore(ctx, p.ID, "staff:ann"); err != nil {
			t.Fatal(err)
		}

		evs := allEvents(t, db)
		want := []models.EventType{models.EventPetCreated, models.EventOrderPlaced, models.EventPetUpdated,
			models.EventOrderApproved, models.EventOrderDelivered, models.EventPetUpdated,
			models.EventPetUpdated, models.EventPetDeleted, models.EventPetUpdated}
		if got := eventTypes(evs); !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		ids := make([]string, len(evs))
		for i := range evs {
			ids[i] = evs[i].PublicID()
			if seq, id, ok := models.ParseEventID(ids[i]); !ok || seq != evs[i].Seq || id != evs[i].ID {
				t.Fatalf("id %s reads back as %d, %d, %v", ids[i], seq, id, ok)
			}
		}
		if !sort.StringsAreSorted(ids) {
			t.Fatalf("ids do not sort as recorded: %v", ids)
		}
		// The delivery's event says what changed: the order's status and complete, before.
		r, err := evs[4].Response()
		if err != nil {
			t.Fatal(err)
		}
		var prev map[string]any
		if err := json.Unmarshal(r.Data.Previous, &prev); err != nil || len(prev) != 2 || prev["status"] != "approved" || prev["complete"] != false {
			t.Fatalf("order.delivered previous %s, want status approved and complete false", r.Data.Previous)
		}
		if evs[4].ClientID == nil || *evs[4].ClientID != client.ID {
			t.Fatalf("order event of client %v, want %d", evs[4].ClientID, client.ID)
		}
		r, _ = evs[5].Response()
		prev = nil
		if err := json.Unmarshal(r.Data.Previous, &prev); err != nil || len(prev) != 2 || prev["status"] != "pending" || prev["updatedAt"] == nil {
			t.Fatalf("pet.updated of the delivery: previous %s, want its status pending and its time", r.Data.Previous)
		}
	})
}

func TestTheSeedRecordsTheEventsOfItsDemoData(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		res, err := models.Seed(context.Background(), db, models.SeedOptions{Pets: 1200, Orders: 5})
		if err != nil {
			t.Fatal(err)
		}
		evs := allEvents(t, db)
		counts := map[models.EventType]int{}
		for _, e := range evs {
			counts[e.Type]++
		}
		if counts[models.EventPetCreated] != res.PetsAdded || counts[models.EventOrderPlaced] != res.OrdersAdded {
			t.Fatalf("events %v for %d pets and %d orders", counts, res.PetsAdded, res.OrdersAdded)
		}
	})
}

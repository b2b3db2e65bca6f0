package models_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// auditLog reads every entry of the log, oldest first.
func auditLog(t *testing.T, db *gorm.DB) []models.AuditEntry {
	t.Helper()
	var entries []models.AuditEntry
	if err := db.Order("id").Find(&entries).Error; err != nil {
		t.Fatal(err)
	}
	return entries
}

func TestEveryStoreChangeIsInTheAuditLogWithWhoWhatBeforeAndAfter(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		ann := models.WithActor(context.Background(), models.StaffActor("ann"))
		cli := models.WithActor(context.Background(), models.ActorCLI)
		pets, orders, cats := models.NewPetStore(db), models.NewOrderStore(db), models.NewCategoryStore(db)
		keys := models.NewAPIKeyStore(db, models.KeyStoreOptions{})
		staff := models.NewStaffStore(db).WithHashCost(bcrypt.MinCost)
		start := time.Now().UTC().Add(-time.Second)

		name, cat := "Rex", int64(1)
		desc, tags := "Calm.", []string{"Puppy", "calm"}
		p, err := pets.Create(ann, models.NewPet{Name: &name, CategoryID: &cat, Description: &desc, Tags: &tags}, nil)
		must(t, err)
		two := int64(2)
		_, err = pets.Update(ann, p.ID, models.PetPatch{Name: &name, CategoryID: &two, Description: &desc, Tags: &tags}, models.StaffActor("ann"))
		must(t, err)
		// Saving a form that changes nothing records nothing.
		_, err = pets.Update(ann, p.ID, models.PetPatch{Name: &name, CategoryID: &two, Description: &desc, Tags: &tags}, models.StaffActor("ann"))
		must(t, err)
		o, err := orders.Place(models.WithActor(context.Background(), models.APIKeyActor(7)), models.NewOrder{PetID: &p.ID}, models.ClientOwner(7), models.APIKeyActor(7), nil)
		must(t, err)
		_, err = orders.Cancel(ann, o.ID, models.StaffActor("ann"))
		must(t, err)
		_, err = pets.SetStatus(ann, p.ID, models.PetSold, models.StaffActor("ann"))
		must(t, err)
		c, err := cats.Create(ann, "Horses")
		must(t, err)
		_, err = cats.Rename(ann, c.ID, "Ponies")
		must(t, err)
		k, _, err := keys.Create(cli, models.NewAPIKey{Name: "shop", Plan: "free"})
		must(t, err)
		_, err = keys.Revoke(ann, k.ID)
		must(t, err)
		// Revoking twice changes nothing, so it is recorded once.
		_, err = keys.Revoke(ann, k.ID)
		must(t, err)
		st, err := staff.Create(cli, models.NewStaff{Username: "bob", Password: "the clerk password 1"})
		must(t, err)
		_, pw, err := staff.ResetPassword(ann, st.ID, 999)
		must(t, err)
		_, err = staff.ChangePassword(models.WithActor(context.Background(), models.StaffActor("bob")), st.ID, pw, "the clerk's new password")
		must(t, err)

		type row struct{ actor, object, action, before, after string }
		want := []row{
			{"staff:ann", "pet", "create", "", `{"categoryId":1,"description":"Calm.","name":"Rex","status":"available","tags":["calm","puppy"]}`},
			{"staff:ann", "pet", "update", `{"categoryId":1}`, `{"categoryId":2}`},
			{"api-key:7", "order", "place", "", `{"petId":` + itoa(p.ID) + `,"shipDate":null,"status":"placed"}`},
			{"api-key:7", "pet", "update", `{"status":"available"}`, `{"status":"pending"}`},
			{"staff:ann", "order", "cancel", `{"status":"placed"}`, `{"status":"cancelled"}`},
			{"staff:ann", "pet", "update", `{"status":"pending"}`, `{"status":"available"}`},
			{"staff:ann", "pet", "set_status", `{"status":"available"}`, `{"status":"sold"}`},
			{"staff:ann", "category", "create", "", `{"name":"Horses"}`},
			{"staff:ann", "category", "update", `{"name":"Horses"}`, `{"name":"Ponies"}`},
			{"cli", "client", "create", "", `{"email":"","name":"shop"}`}, // a key issued without a client gets one
			{"cli", "api_key", "create", "", ""},
			{"staff:ann", "api_key", "revoke", `{"revokedAt":null}`, ""},
			{"cli", "staff", "create", "", `{"disabled":false,"mustChangePassword":false,"passwordChangedAt":null,"role":"staff","username":"bob"}`},
			{"staff:ann", "staff", "reset_password", "", ""},
			{"staff:bob", "staff", "change_password", "", ""},
		}
		got := auditLog(t, db)
		if len(got) != len(want) {
			for _, e := range got {
				t.Logf("%s %s %d %s %s -> %s", e.Actor, e.ObjectType, e.ObjectID, e.Action, e.Before, e.After)
			}
			t.Fatalf("%d audit entries, want %d", len(got), len(want))
		}
		for i, w := range want {
			e := got[i]
			if e.Actor != w.actor || e.ObjectType != w.object || e.Action != w.action || e.CreatedAt.Before(start) ||
				(w.before != "" && e.Before != w.before) || (w.after != "" && e.After != w.after) {
				t.Errorf("entry %d: %s %s %s %s -> %s at %s, want %+v", i, e.Actor, e.ObjectType, e.Action, e.Before, e.After, e.CreatedAt, w)
			}
		}
		if e := got[11]; e.ObjectID != k.ID || e.ObjectName != "shop" || e.AfterFields()["revokedAt"] == nil {
			t.Errorf("revocation entry %+v: want key %d named shop, revokedAt set", e, k.ID)
		}
		// A password change shows as such, never with the password or its hash.
		for _, e := range got[13:] {
			if e.BeforeFields()["passwordChangedAt"] == e.AfterFields()["passwordChangedAt"] || len(e.Before+e.After) > 200 {
				t.Errorf("password entry %s: %s -> %s", e.Action, e.Before, e.After)
			}
		}
		if m := got[13].AfterFields()["mustChangePassword"]; m != true {
			t.Errorf("a reset leaves mustChangePassword %v, want true", m)
		}

		// The log's own reads: filters, newest first, pages.
		audit := models.NewAuditStore(db)
		first, err := audit.List(context.Background(), models.AuditFilter{Object: models.ObjectPet, ObjectID: p.ID}, models.Page{Limit: 3})
		must(t, err)
		list := first.Items
		if len(list) != 3 || first.Next == nil || first.Prev != nil || list[0].Action != "set_status" || list[0].ID < list[1].ID {
			t.Fatalf("the pet's entries: %d (next %v), want the 3 newest first", len(list), first.Next)
		}
		second, err := audit.List(context.Background(), models.AuditFilter{Object: models.ObjectPet, ObjectID: p.ID}, models.Page{Limit: 3, Cursor: first.Next})
		must(t, err)
		if rest := second.Items; len(rest) != 2 || second.Next != nil || second.Prev == nil || rest[1].Action != "create" {
			t.Fatalf("the pet's next entries: %d (next %v)", len(rest), second.Next)
		}
		for f, n := range map[models.AuditFilter]int{
			{Actor: "cli"}:                     3,
			{Action: "update", Object: "pet"}:  3,
			{Day: time.Now()}:                  len(want),
			{Day: time.Now().AddDate(0, 0, 1)}: 0,
		} {
			if page, err := audit.List(context.Background(), f, models.Page{Limit: 100}); err != nil || len(page.Items) != n {
				t.Errorf("filter %+v: %d entries (%v), want %d", f, len(page.Items), err, n)
			}
		}
		actors, err := audit.Actors(context.Background(), []string{"staff:bob", "api-key:" + itoa(k.ID), "api-key:999", "cli"})
		must(t, err)
		if a := actors["staff:bob"]; a.ID != st.ID || a.Name != "bob" || a.Kind != models.ObjectStaff {
			t.Errorf("staff:bob resolved to %+v", a)
		}
		if a := actors["api-key:"+itoa(k.ID)]; a.ID != k.ID || a.Name != "shop" {
			t.Errorf("the key resolved to %+v", a)
		}
		if a := actors["api-key:999"]; a.ID != 0 || a.Name != "api-key:999" {
			t.Errorf("a key that does not exist resolved to %+v", a)
		}
		if a := actors["cli"]; a.Kind != "cli" || a.Name != "cli" {
			t.Errorf("cli resolved to %+v", a)
		}
	})
}

func TestAChangeWithoutAnActorIsRefusedAndLeavesNothing(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		name, cat := "Rex", int64(1)
		if _, err := models.NewPetStore(db).Create(context.Background(), models.NewPet{Name: &name, CategoryID: &cat}, nil); err == nil {
			t.Fatal("a pet was created without an actor")
		}
		// A change that fails takes its entry with it: both are in one transaction.
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		if _, err := models.NewCategoryStore(db).Create(ctx, "Dogs"); models.ErrorCode(err) != models.EConflict {
			t.Fatalf("a second category Dogs: %v, want a conflict", err)
		}
		var pets int64
		must(t, db.Model(&models.Pet{}).Count(&pets).Error)
		if entries := auditLog(t, db); pets != 0 || len(entries) != 0 {
			t.Fatalf("%d pets and %d audit entries after refused changes, want none", pets, len(entries))
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		var e *models.Error
		if errors.As(err, &e) {
			t.Fatalf("%s: %s", e.Code, e.Message)
		}
		t.Fatal(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

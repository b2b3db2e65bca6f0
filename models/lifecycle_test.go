package models

import (
	"fmt"
	"testing"
	"time"
)

// The table of docs/design.md, "States and transitions", written out independently of lifecycle:
// for each action and each starting order status, the statuses after, or "" when refused.
func TestApplyFollowsTheDecisionsTable(t *testing.T) {
	type after struct {
		order OrderStatus
		pet   PetStatus
	}
	want := map[Action]map[OrderStatus]after{
		ActionApprove: {OrderPlaced: {OrderApproved, PetPending}},
		ActionDeliver: {OrderApproved: {OrderDelivered, PetSold}},
		ActionCancel:  {OrderPlaced: {OrderCancelled, PetAvailable}, OrderApproved: {OrderCancelled, PetAvailable}},
	}
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for action, allowed := range want {
		for _, from := range OrderStatuses {
			t.Run(fmt.Sprintf("%s %s", action, from), func(t *testing.T) {
				o := &Order{ID: 7, PetID: 3, Status: from}
				p := &Pet{ID: 3, Status: PetPending}
				change, err := apply(action, o, p, "staff:alice", at)
				exp, ok := allowed[from]
				if !ok {
					if ErrorCode(err) != EConflict || o.Status != from || p.Status != PetPending {
						t.Fatalf("want a conflict and nothing changed; got %v, order %s, pet %s", err, o.Status, p.Status)
					}
					return
				}
				if err != nil || o.Status != exp.order || p.Status != exp.pet || o.Complete != (exp.order == OrderDelivered) {
					t.Fatalf("got %v, order %s (complete %v), pet %s; want %s, %s", err, o.Status, o.Complete, p.Status, exp.order, exp.pet)
				}
				if change != (StatusChange{PetID: 3, Action: action, PetFrom: PetPending, PetTo: exp.pet, OrderFrom: from,
					OrderTo: exp.order, Actor: "staff:alice", CreatedAt: at}) {
					t.Fatalf("change %+v", change)
				}
			})
		}
	}
}

func TestPlacingNeedsAnAvailablePet(t *testing.T) {
	for _, st := range PetStatuses {
		o, p := &Order{Quantity: 1}, &Pet{ID: 3, Status: st}
		change, err := apply(ActionPlace, o, p, "api-key:1", time.Now())
		if st != PetAvailable {
			if ErrorCode(err) != EConflict || p.Status != st {
				t.Fatalf("placing for a %s pet: %v, pet %s; want a conflict", st, err, p.Status)
			}
			continue
		}
		if err != nil || o.Status != OrderPlaced || p.Status != PetPending || change.OrderFrom != "" || change.PetFrom != PetAvailable {
			t.Fatalf("placing for an available pet: %v, order %s, pet %s, change %+v", err, o.Status, p.Status, change)
		}
	}
}

func TestAllowedActions(t *testing.T) {
	for st, want := range map[OrderStatus]string{
		OrderPlaced: "[approve cancel]", OrderApproved: "[deliver cancel]", OrderDelivered: "[]", OrderCancelled: "[]",
	} {
		if got := fmt.Sprint(AllowedActions(st)); got != want {
			t.Fatalf("AllowedActions(%s) = %s, want %s", st, got, want)
		}
	}
}

func TestSetByHandRefusesAPetAnOrderHolds(t *testing.T) {
	for _, holder := range []OrderStatus{OrderPlaced, OrderApproved, OrderDelivered} {
		p := &Pet{ID: 1, Status: PetPending}
		if _, err := setByHand(p, PetAvailable, &Order{ID: 9, Status: holder}, "staff:bob", time.Now()); ErrorCode(err) != EConflict || p.Status != PetPending {
			t.Fatalf("pet held by a %s order: %v, want a conflict", holder, err)
		}
	}
	p := &Pet{ID: 1, Status: PetAvailable}
	change, err := setByHand(p, PetPending, nil, "staff:bob", time.Now())
	if err != nil || p.Status != PetPending || change.Action != ActionSetStatus || change.OrderID != nil || change.PetFrom != PetAvailable {
		t.Fatalf("free pet: %v, pet %s, change %+v", err, p.Status, change)
	}
}

func TestNewOrderValidate(t *testing.T) {
	now := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	ship := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	o, err := NewOrder{PetID: ptr[int64](4), ShipDate: &ship}.Validate(now)
	if err != nil || o.PetID != 4 || o.Quantity != 1 || !o.ShipDate.Equal(ship.Truncate(time.Microsecond)) || o.ShipDate.Location() != time.UTC {
		t.Fatalf("valid order: %+v %v", o, err)
	}
	_, err = NewOrder{PetID: ptr[int64](0), Quantity: ptr[int32](2)}.Validate(now)
	if e, ok := err.(*Error); !ok || e.Code != EValidation || e.Field != "petId" || ErrorMessage(err) != "petId: must be a positive integer; quantity: must be 1 (an order is for one animal), got 2" {
		t.Fatalf("bad order: %v", err)
	}
	// A ship date is refused before the current UTC day, and accepted from its first instant.
	for ship, ok := range map[time.Time]bool{
		time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC):                        true,
		time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC):                     false,
		time.Date(2026, 11, 23, 1, 0, 0, 0, time.FixedZone("EET", 2*3600)):   false,
		time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC):                          false,
		time.Date(2026, 11, 22, 20, 0, 0, 0, time.FixedZone("EST", -5*3600)): true,
	} {
		_, err := NewOrder{PetID: ptr[int64](4), ShipDate: &ship}.Validate(now)
		if ok != (err == nil) || (!ok && (ErrorCode(err) != EValidation || FieldMessages(err)["shipDate"] == "")) {
			t.Errorf("ship date %s on 2026-11-23: %v, want accepted %v", ship, err, ok)
		}
	}
	if _, err := ParseOrderStatus("status", "sold"); ErrorCode(err) != EValidation {
		t.Fatalf("ParseOrderStatus(sold): %v", err)
	}
	if a, err := ParseAction("action", "deliver"); a != ActionDeliver || err != nil {
		t.Fatalf("ParseAction(deliver) = %s, %v", a, err)
	}
	for _, bad := range []string{"place", "set_status", "ship"} {
		if _, err := ParseAction("action", bad); ErrorCode(err) != EValidation {
			t.Fatalf("ParseAction(%s): %v, want validation_failed (not a staff action on an order)", bad, err)
		}
	}
}

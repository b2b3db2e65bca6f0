package models

import (
	"strconv"
	"strings"
	"time"
)

// OrderStatus is where an order is in its lifecycle.
type OrderStatus string

// The order statuses of docs/design.md, "States and transitions".
const (
	OrderPlaced    OrderStatus = "placed"
	OrderApproved  OrderStatus = "approved"
	OrderDelivered OrderStatus = "delivered"
	OrderCancelled OrderStatus = "cancelled"
)

// OrderStatuses lists every order status, in lifecycle order.
var OrderStatuses = []OrderStatus{OrderPlaced, OrderApproved, OrderDelivered, OrderCancelled}

// LiveOrderStatuses are the statuses of an order that still holds its pet: a pet has at most
// one order in one of them, and while it has one its status is pending.
var LiveOrderStatuses = []OrderStatus{OrderPlaced, OrderApproved}

// ParseOrderStatus checks an order status given by a user; field names the parameter in the message.
func ParseOrderStatus(field, s string) (OrderStatus, error) {
	for _, st := range OrderStatuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", &Error{Code: EValidation, Field: field,
		Message: field + ": must be one of placed, approved, delivered, cancelled; got " + strconv.Quote(s)}
}

// Action is an event of the lifecycle: something that changes an order's or a pet's status.
type Action string

// The actions. Place comes from API clients; approve, deliver and cancel are staff actions;
// set_status is a status set by hand (by staff, or by a client's PATCH). Delete and restore
// take a pet out of the catalogue and put it back; its status stays.
const (
	ActionPlace     Action = "place"
	ActionApprove   Action = "approve"
	ActionDeliver   Action = "deliver"
	ActionCancel    Action = "cancel"
	ActionSetStatus Action = "set_status"
	ActionDelete    Action = "delete"
	ActionRestore   Action = "restore"
)

// ParseAction checks an action named by a user (an admin form, for instance).
func ParseAction(field, s string) (Action, error) {
	switch a := Action(s); a {
	case ActionApprove, ActionDeliver, ActionCancel:
		return a, nil
	}
	return "", &Error{Code: EValidation, Field: field,
		Message: field + ": must be one of approve, deliver, cancel; got " + strconv.Quote(s)}
}

// rule is one row of the lifecycle table: the order statuses an action starts from (none for
// placing a new order), the pet status it requires, and what both become.
type rule struct {
	orderFrom []OrderStatus
	petFrom   PetStatus
	orderTo   OrderStatus
	petTo     PetStatus
}

// lifecycle is docs/design.md, "States and transitions", and the only place it is written down:
// the stores, the seed command and the admin pages' list of buttons all read it. Delivery
// starts from approved only: approval is the step at which staff confirm the sale.
var lifecycle = map[Action]rule{
	ActionPlace:   {orderFrom: nil, petFrom: PetAvailable, orderTo: OrderPlaced, petTo: PetPending},
	ActionApprove: {orderFrom: []OrderStatus{OrderPlaced}, petFrom: PetPending, orderTo: OrderApproved, petTo: PetPending},
	ActionDeliver: {orderFrom: []OrderStatus{OrderApproved}, petFrom: PetPending, orderTo: OrderDelivered, petTo: PetSold},
	ActionCancel:  {orderFrom: []OrderStatus{OrderPlaced, OrderApproved}, petFrom: PetPending, orderTo: OrderCancelled, petTo: PetAvailable},
}

// staffActions are the actions on an existing order, in the order the admin pages show them.
var staffActions = []Action{ActionApprove, ActionDeliver, ActionCancel}

// AllowedActions lists the actions an order in this status allows (the admin pages offer
// only these). A delivered or cancelled order allows none.
func AllowedActions(s OrderStatus) []Action {
	var out []Action
	for _, a := range staffActions {
		if allows(lifecycle[a].orderFrom, s) {
			out = append(out, a)
		}
	}
	return out
}

func allows(from []OrderStatus, s OrderStatus) bool {
	for _, f := range from {
		if f == s {
			return true
		}
	}
	return false
}

// apply performs action on an order and its pet in memory, or refuses with a conflict and
// changes nothing. For ActionPlace, o is the new order (its status is ignored). It returns the
// record of the change; the caller stores all three in one transaction.
func apply(a Action, o *Order, p *Pet, actor string, at time.Time) (StatusChange, error) {
	r, ok := lifecycle[a]
	if !ok {
		return StatusChange{}, Errorf(EInternal, "unknown order action %q", a)
	}
	if a != ActionPlace && !allows(r.orderFrom, o.Status) {
		return StatusChange{}, Errorf(EConflict, "order %d is %s; it cannot be %s (allowed: %s)",
			o.ID, o.Status, pastTense(a), actionList(AllowedActions(o.Status)))
	}
	if p.Status != r.petFrom {
		if a == ActionPlace {
			return StatusChange{}, &Error{Code: EConflict, Field: "petId",
				Message: "pet " + strconv.FormatInt(p.ID, 10) + " is " + string(p.Status) + ", not available; it cannot be ordered"}
		}
		// Only a change made outside the lifecycle could get here: a pet with a live order is
		// pending, and SetStatus refuses to change it.
		return StatusChange{}, Errorf(EConflict, "pet %d of order %d is %s, not %s; the order cannot be %s",
			p.ID, o.ID, p.Status, r.petFrom, pastTense(a))
	}
	change := StatusChange{PetID: p.ID, Action: a, PetFrom: p.Status, PetTo: r.petTo,
		OrderFrom: o.Status, OrderTo: r.orderTo, Actor: actor, CreatedAt: at}
	if a == ActionPlace {
		change.OrderFrom = ""
	}
	o.Status, o.Complete, o.UpdatedAt = r.orderTo, r.orderTo == OrderDelivered, at
	if p.Status != r.petTo {
		p.Status, p.UpdatedAt = r.petTo, at
	}
	return change, nil
}

// ordersThatHoldAPet are the statuses in which an order decides its pet's status: a live
// order keeps it pending, a delivered one keeps it sold.
var ordersThatHoldAPet = []OrderStatus{OrderPlaced, OrderApproved, OrderDelivered}

// HoldingOrder returns, of a pet's orders, the one that decides its status (see
// ordersThatHoldAPet), or nil when staff may set the status by hand.
func HoldingOrder(orders []Order) *Order {
	var holder *Order
	for i := range orders {
		if allows(ordersThatHoldAPet, orders[i].Status) && (holder == nil || orders[i].ID > holder.ID) {
			holder = &orders[i]
		}
	}
	return holder
}

// setByHand changes a pet's status outside any order, as staff do in the admin pages and clients
// with PATCH. holder is the pet's order in one of ordersThatHoldAPet, if any. While a live order
// holds the pet, the order's own actions (approve, deliver, cancel) are the way to move it; a pet
// sold through an order stays sold (returns are not part of the lifecycle). Both are refused
// with a conflict, so an order and its pet never disagree, even when staff act on a page that
// went stale. Any other pet may be set to any status: one sold at the counter, one reserved by
// phone (pending without an order), a counter sale undone.
func setByHand(p *Pet, to PetStatus, holder *Order, actor string, at time.Time) (StatusChange, error) {
	if holder != nil {
		why := "; approve, deliver or cancel that order instead of setting the status by hand"
		if holder.Status == OrderDelivered {
			why = "; a pet sold through an order stays sold"
		}
		return StatusChange{}, &Error{Code: EConflict, Field: "status",
			Message: "pet " + strconv.FormatInt(p.ID, 10) + " is held by order " + strconv.FormatInt(holder.ID, 10) +
				" (" + string(holder.Status) + ")" + why}
	}
	change := StatusChange{PetID: p.ID, Action: ActionSetStatus, PetFrom: p.Status, PetTo: to, Actor: actor, CreatedAt: at}
	p.Status, p.UpdatedAt = to, at
	return change, nil
}

func pastTense(a Action) string {
	switch a {
	case ActionApprove:
		return "approved"
	case ActionDeliver:
		return "delivered"
	case ActionCancel:
		return "cancelled"
	}
	return string(a) + "d"
}

func actionList(as []Action) string {
	if len(as) == 0 {
		return "none"
	}
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// APIKeyActor names an API client in the status history.
func APIKeyActor(keyID int64) string { return "api-key:" + strconv.FormatInt(keyID, 10) }

// StaffActor names a staff member in the status history.
func StaffActor(username string) string { return "staff:" + username }

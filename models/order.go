package models

import (
	"context"
	"errors"
	"strconv"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Order is a store order for one pet, as stored. At most one order per pet is live (placed or
// approved) at a time; the partial unique index holds that even against a bug in the code.
type Order struct {
	ID        int64       `gorm:"primaryKey;index:idx_orders_status_id,priority:2;index:idx_orders_pet_id_id,priority:2;index:idx_orders_client_id_id,priority:2;index:idx_orders_created_at_id,priority:2;index:idx_orders_ship_date_id,priority:2"`
	PetID     int64       `gorm:"not null;index:idx_orders_pet_id_id,priority:1;uniqueIndex:idx_orders_live_pet,where:status = 'placed' OR status = 'approved'"`
	Pet       *Pet        `gorm:"constraint:OnUpdate:CASCADE,OnDelete:RESTRICT"`
	Quantity  int32       `gorm:"not null"`
	ShipDate  *time.Time  `gorm:"index:idx_orders_ship_date_id,priority:1"`
	Status    OrderStatus `gorm:"size:16;not null;index:idx_orders_status_id,priority:1"`
	Complete  bool        `gorm:"not null"`
	CreatedAt time.Time   `gorm:"index:idx_orders_created_at_id,priority:1"`
	UpdatedAt time.Time
	// ClientID is the client whose key placed the order; nil for orders by staff or the seed.
	ClientID *int64 `gorm:"index:idx_orders_client_id_id,priority:1"`
}

// Owner is whose orders a query sees: one client's own, or, for staff, everyone's.
type Owner struct {
	clientID int64
	staff    bool
}

// ClientOwner sees the orders of one client only; another's order is not found.
func ClientOwner(clientID int64) Owner { return Owner{clientID: clientID} }

// StaffOwner sees every order.
var StaffOwner = Owner{staff: true}

// scope narrows a query on orders to what the owner sees.
func (w Owner) scope(q *gorm.DB) *gorm.DB {
	if w.staff {
		return q
	}
	return q.Where("client_id = ?", w.clientID)
}

// placedBy is the client a new order placed by w belongs to: none when staff place it.
func (w Owner) placedBy() *int64 {
	if w.staff {
		return nil
	}
	id := w.clientID
	return &id
}

// auditFields are what the audit log keeps of an order (its quantity is always 1).
func (o *Order) auditFields() Fields {
	return Fields{"petId": o.PetID, "status": o.Status, "shipDate": o.ShipDate}
}

// Actions lists what staff may do with the order now (see AllowedActions).
func (o *Order) Actions() []Action { return AllowedActions(o.Status) }

// NewOrder is what a client gives to place an order. Nil means the field was not given.
type NewOrder struct {
	PetID    *int64
	Quantity *int32
	ShipDate *time.Time
}

// Validate checks every field and returns the order to place; quantity defaults to 1, the
// only quantity there is for one animal, and a ship date may not be before now's UTC day. The
// pet's existence and status are checked by Place.
func (n NewOrder) Validate(now time.Time) (Order, error) {
	o := Order{Quantity: 1}
	var errs fieldErrors
	switch {
	case n.PetID == nil:
		errs.add(FieldError("petId", "is required"))
	case *n.PetID < 1:
		errs.add(FieldError("petId", "must be a positive integer"))
	default:
		o.PetID = *n.PetID
	}
	if n.Quantity != nil && *n.Quantity != 1 {
		errs.add(FieldError("quantity", "must be 1 (an order is for one animal), got %d", *n.Quantity))
	}
	if n.ShipDate != nil {
		d := n.ShipDate.UTC().Truncate(time.Microsecond)
		if today := now.UTC().Truncate(24 * time.Hour); d.Before(today) {
			errs.add(FieldError("shipDate", "must not be before today (%s, UTC)", today.Format(time.DateOnly)))
		}
		o.ShipDate = &d
	}
	return o, errs.err()
}

// OrderFilter narrows a list of orders. Zero values do not filter.
type OrderFilter struct {
	Status OrderStatus
	PetID  int64
	// Search is the admin pages' search box: a number (42 or #42) finds the order with that id,
	// anything else is part of its pet's name (case-insensitive, ASCII), deleted pets included.
	Search string
	// Live keeps the orders that still hold their pet (placed or approved); with Status, too.
	Live     bool
	ClientID int64
	// PlacedFrom and PlacedTo keep the orders placed in [PlacedFrom, PlacedTo); ShipFrom and
	// ShipTo those to ship in [ShipFrom, ShipTo). A zero time leaves that end open.
	PlacedFrom, PlacedTo time.Time
	ShipFrom, ShipTo     time.Time
}

// orders lists the orders table. Besides id, a page may be sorted by the time it was placed, its
// status or its ship date (orders without one last), each through an index on (column, id).
var orders = keyset[Order]{
	table: "orders",
	sortKeys: map[string]sortKey[Order]{
		"placed":   timeKey("created_at", false, func(o *Order) *time.Time { return &o.CreatedAt }),
		"status":   textKey("status", func(o *Order) string { return string(o.Status) }),
		"shipDate": timeKey("ship_date", true, func(o *Order) *time.Time { return o.ShipDate }),
	},
	id: func(o *Order) int64 { return o.ID },
}

// OrderStore places orders and moves them, and their pets, through the lifecycle.
type OrderStore struct{ db *gorm.DB }

// NewOrderStore returns a store on db.
func NewOrderStore(db *gorm.DB) *OrderStore { return &OrderStore{db: db} }

// forUpdate locks the rows a transition reads until its transaction ends (SELECT ... FOR UPDATE
// on PostgreSQL). SQLite has no row locks and the dialect drops the clause; there the service's
// single connection runs one transaction at a time, which serialises transitions just as well.
var forUpdate = clause.Locking{Strength: clause.LockingStrengthUpdate}

// Place validates the order and places it in one transaction: the pet must be available, and
// becomes pending. A pet that does not exist (or is deleted) is not_found; one that is not
// available, a conflict. The order belongs to by's client (to none when staff place it). then,
// when given, runs in the same transaction.
func (s *OrderStore) Place(ctx context.Context, n NewOrder, by Owner, actor string, then Then[Order]) (*Order, error) {
	o, err := n.Validate(s.db.NowFunc())
	if err != nil {
		return nil, err
	}
	o.ClientID = by.placedBy()
	err = s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		p, err := lockPet(tx, o.PetID)
		if err != nil {
			return err
		}
		now := tx.NowFunc()
		was := *p
		change, err := apply(ActionPlace, &o, p, actor, now)
		if err != nil {
			return err
		}
		o.CreatedAt = now
		if err := tx.Omit(clause.Associations).Create(&o).Error; err != nil {
			return err
		}
		change.OrderID = &o.ID
		if err := recordChange(tx, Change{Object: ObjectOrder, ID: o.ID, Name: p.Name, Action: string(ActionPlace), After: o.auditFields()}); err != nil {
			return err
		}
		if err := record(tx, p, &change); err != nil {
			return err
		}
		if err := recordOrderEvents(tx, ActionPlace, nil, &o, &was, p); err != nil {
			return err
		}
		return then.run(tx, &o)
	})
	if err != nil {
		return nil, transitionError(err, o.PetID)
	}
	return &o, nil
}

// Approve confirms a placed order; its pet stays pending.
func (s *OrderStore) Approve(ctx context.Context, id int64, actor string) (*Order, error) {
	return s.Apply(ctx, id, ActionApprove, actor)
}

// Deliver completes an approved order; its pet is sold.
func (s *OrderStore) Deliver(ctx context.Context, id int64, actor string) (*Order, error) {
	return s.Apply(ctx, id, ActionDeliver, actor)
}

// Cancel cancels a placed or approved order; its pet is available again.
func (s *OrderStore) Cancel(ctx context.Context, id int64, actor string) (*Order, error) {
	return s.Apply(ctx, id, ActionCancel, actor)
}

// CancelOwn is a client cancelling its own order, which it may only while the order is placed
// (once approved, staff have confirmed the sale); it follows the lifecycle's cancel otherwise.
// Another client's order is not found.
func (s *OrderStore) CancelOwn(ctx context.Context, id int64, by Owner, actor string) (*Order, error) {
	return s.apply(ctx, id, by, ActionCancel, actor, func(o *Order) error {
		if o.Status != OrderPlaced {
			return Errorf(EConflict, "order %d is %s; a client can cancel an order only while it is placed", o.ID, o.Status)
		}
		return nil
	})
}

// Apply performs a staff action on an order and its pet in one transaction that locks both
// (the order first, then the pet, the same order everywhere). An action the order's status
// does not allow is a conflict and changes nothing.
func (s *OrderStore) Apply(ctx context.Context, id int64, a Action, actor string) (*Order, error) {
	return s.apply(ctx, id, StaffOwner, a, actor, nil)
}

// apply is Apply for an order by sees, with a check of its own (allowed) before the lifecycle's.
func (s *OrderStore) apply(ctx context.Context, id int64, by Owner, a Action, actor string, allowed func(*Order) error) (*Order, error) {
	if a == ActionPlace {
		return nil, Errorf(EInternal, "Apply cannot place an order; use Place")
	}
	var o Order
	err := s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		if err := by.scope(tx.Clauses(forUpdate)).Take(&o, id).Error; err != nil {
			return storeError(err, "order "+strconv.FormatInt(id, 10)+" not found")
		}
		if allowed != nil {
			if err := allowed(&o); err != nil {
				return err
			}
		}
		// A deleted pet's orders are never live, and the lifecycle refuses to move them: it
		// reads the pet as it is, deleted or not.
		p, err := lockPet(tx.Unscoped(), o.PetID)
		if err != nil {
			return err
		}
		before := o.auditFields()
		wasOrder, wasPet := o, *p
		change, err := apply(a, &o, p, actor, tx.NowFunc())
		if err != nil {
			return err
		}
		if err := recordChange(tx, Change{Object: ObjectOrder, ID: o.ID, Name: p.Name, Action: string(a), Before: before, After: o.auditFields()}); err != nil {
			return err
		}
		err = tx.Model(&Order{ID: o.ID}).Updates(map[string]any{
			"status": o.Status, "complete": o.Complete, "updated_at": o.UpdatedAt}).Error
		if err != nil {
			return err
		}
		change.OrderID = &o.ID
		if err := record(tx, p, &change); err != nil {
			return err
		}
		return recordOrderEvents(tx, a, &wasOrder, &o, &wasPet, p)
	})
	if err != nil {
		return nil, transitionError(err, o.PetID)
	}
	return &o, nil
}

// Get returns one order that by sees; another client's order is not found.
func (s *OrderStore) Get(ctx context.Context, id int64, by Owner) (*Order, error) {
	var o Order
	err := by.scope(s.db.WithContext(ctx)).Take(&o, id).Error
	return &o, storeError(err, "order "+strconv.FormatInt(id, 10)+" not found")
}

// List returns one page of the orders by sees that match f.
func (s *OrderStore) List(ctx context.Context, by Owner, f OrderFilter, page Page) (Paged[Order], error) {
	var where []string
	var args []any
	if !by.staff {
		where = append(where, "client_id = ?")
		args = append(args, by.clientID)
	}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.PetID != 0 {
		where = append(where, "pet_id = ?")
		args = append(args, f.PetID)
	}
	where, args = f.adminWhere(where, args)
	if id, ok := searchedID(f.Search); ok {
		where, args = append(where, "id = ?"), append(args, id)
	} else if f.Search != "" {
		// Each order looks its pet up by primary key, so a page stops reading once it is full.
		where = append(where, "EXISTS (SELECT 1 FROM pets WHERE pets.id = orders.pet_id AND LOWER(pets.name) LIKE ? ESCAPE '\\')")
		args = append(args, nameLike(f.Search))
	}
	return orders.list(ctx, s.db, where, args, page)
}

// ListForClient returns a client's most recent orders, newest first, at most limit.
func (s *OrderStore) ListForClient(ctx context.Context, clientID int64, limit int) ([]Order, error) {
	var orders []Order
	err := s.db.WithContext(ctx).Where("client_id = ?", clientID).Order("id DESC").Limit(limit).Find(&orders).Error
	return orders, storeError(err, "")
}

// ListForPet returns every order ever placed for a pet, oldest first; a pet has few.
func (s *OrderStore) ListForPet(ctx context.Context, petID int64) ([]Order, error) {
	var orders []Order
	err := s.db.WithContext(ctx).Where("pet_id = ?", petID).Order("id").Find(&orders).Error
	return orders, storeError(err, "")
}

// History returns the status changes an order caused, oldest first.
func (s *OrderStore) History(ctx context.Context, orderID int64) ([]StatusChange, error) {
	var changes []StatusChange
	err := s.db.WithContext(ctx).Where("order_id = ?", orderID).Order("id").Find(&changes).Error
	return changes, storeError(err, "")
}

// lockPet reads a pet and locks it until the transaction ends.
func lockPet(tx *gorm.DB, id int64) (*Pet, error) {
	var p Pet
	if err := withPhotos(tx.Clauses(forUpdate)).Take(&p, id).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, &Error{Code: ENotFound, Field: "petId", Message: "pet " + strconv.FormatInt(id, 10) + " not found"}
		}
		return nil, err
	}
	setMediaBase(tx.Statement.Context, &p)
	return &p, nil
}

// record stores a pet's new status, when it changed, and the change itself, in the status
// history and in the audit log (a status that follows an order's action is an update of the pet).
func record(tx *gorm.DB, p *Pet, change *StatusChange) error {
	if change.PetFrom != change.PetTo {
		err := tx.Model(&Pet{ID: p.ID}).Updates(map[string]any{"status": p.Status, "updated_at": p.UpdatedAt}).Error
		if err != nil {
			return err
		}
		action := AuditUpdate
		if change.Action == ActionSetStatus {
			action = string(ActionSetStatus)
		}
		err = recordChange(tx, Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: action,
			Before: Fields{"status": change.PetFrom}, After: Fields{"status": change.PetTo}})
		if err != nil {
			return err
		}
	}
	return tx.Omit(clause.Associations).Create(change).Error
}

// recordOrderEvents records the event of an order's action (from wasOrder, nil for a new order,
// to o) and, when the action moved its pet (from wasPet to p), pet.updated.
func recordOrderEvents(tx *gorm.DB, a Action, wasOrder, o *Order, wasPet, p *Pet) error {
	orderEv, err := orderEvent(orderEvents[a], wasOrder, o)
	if err != nil {
		return err
	}
	if wasPet.Status == p.Status {
		return recordEvents(tx, orderEv)
	}
	petEv, err := petEvent(EventPetUpdated, wasPet, p)
	if err != nil {
		return err
	}
	return recordEvents(tx, orderEv, petEv)
}

// transitionError reports the partial unique index's refusal as the conflict it is: the pet
// already has a live order (only a second writer outside these stores could get that far).
func transitionError(err error, petID int64) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return &Error{Code: EConflict, Field: "petId", Message: "pet " + strconv.FormatInt(petID, 10) + " already has a live order"}
	}
	return storeError(err, "")
}

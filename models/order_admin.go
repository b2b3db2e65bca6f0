package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// StatusTotals counts the orders of each status, for the admin dashboard, by countGroups' rule.
func (s *OrderStore) StatusTotals(ctx context.Context) (counts map[OrderStatus]int64, exact bool, err error) {
	groups, exact, err := countGroups(ctx, s.db, "orders", "status", nil, nil)
	counts = make(map[OrderStatus]int64, len(groups))
	for k, n := range groups {
		counts[OrderStatus(k)] = n
	}
	return counts, exact, err
}

// liveOrders is the condition of a live order, written as idx_orders_live_ship_date's predicate
// is (see adminIndexes): both databases use a partial index only for a query that repeats it.
const liveOrders = "status IN ('placed', 'approved')"

// OrderWork is the orders waiting for staff: placed ones to approve, and live ones (placed or
// approved) due to ship on the store's day or before it. Each is counted as a list's total is
// (totalIn), so a store with a large backlog costs no more than a list; the three in one
// transaction. A count the budget cuts short leaves those after it unknown.
type OrderWork struct {
	Waiting, DueToday, Overdue Total
}

// Work counts the orders waiting for staff on day (a calendar day, as a ship date is one).
func (s *OrderStore) Work(ctx context.Context, day time.Time) (OrderWork, error) {
	from, to := DayRange(day)
	var w OrderWork
	var err error
	w.Waiting, err = countTotalIn(ctx, s.db, "orders", []string{"status = ?"}, []any{OrderPlaced}, one(segment{}), func(tx *gorm.DB) error {
		var err error
		if w.DueToday, _, err = totalIn(tx, "orders", []string{liveOrders, "ship_date >= ?", "ship_date < ?"}, []any{from, to}, one(segment{})); err != nil {
			return err
		}
		w.Overdue, _, err = totalIn(tx, "orders", []string{liveOrders, "ship_date < ?"}, []any{from}, one(segment{}))
		return err
	})
	return w, err
}

// DayRange is a calendar day as ship dates store it: from its midnight, UTC, to the next.
func DayRange(day time.Time) (from, to time.Time) {
	from = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	return from, from.AddDate(0, 0, 1)
}

// EarlyOn reports whether the order is to ship after today (the store's day): delivering it
// today is early, which staff confirm first.
func (o *Order) EarlyOn(today time.Time) bool {
	_, tomorrow := DayRange(today)
	return o.ShipDate != nil && !o.ShipDate.UTC().Before(tomorrow)
}

// adminWhere adds the admin pages' filters of f to a list's conditions.
func (f OrderFilter) adminWhere(where []string, args []any) ([]string, []any) {
	if f.Live {
		where = append(where, liveOrders)
	}
	if f.ClientID != 0 {
		where, args = append(where, "client_id = ?"), append(args, f.ClientID)
	}
	for _, r := range []struct {
		cond string
		at   time.Time
	}{{"created_at >= ?", f.PlacedFrom}, {"created_at < ?", f.PlacedTo}, {"ship_date >= ?", f.ShipFrom}, {"ship_date < ?", f.ShipTo}} {
		if !r.at.IsZero() {
			where, args = append(where, r.cond), append(args, r.at.UTC())
		}
	}
	return where, args
}

// OrderResult is what one order of a bulk action came to: the order as it is afterwards, and
// the refusal (a conflict: its status does not allow the action; or not found), nil when done.
type OrderResult struct {
	ID      int64
	Order   *Order
	Refusal error
}

// ApplyEach performs a staff action on each order in turn, each through Apply in its own
// transaction with the lifecycle's rules, so that one refusal does not hold back the others.
// Any other failure stops it.
func (s *OrderStore) ApplyEach(ctx context.Context, ids []int64, a Action, actor string) ([]OrderResult, error) {
	out := make([]OrderResult, 0, len(ids))
	for _, id := range ids {
		o, err := s.Apply(ctx, id, a, actor)
		switch code := ErrorCode(err); {
		case err == nil:
		case code == EConflict:
			if o, err = s.Get(ctx, id, StaffOwner); err != nil {
				return out, err
			}
			err = Errorf(EConflict, "order %d is %s", id, o.Status)
		case code == ENotFound:
			o = nil
		default:
			return out, err
		}
		out = append(out, OrderResult{ID: id, Order: o, Refusal: err})
	}
	return out, nil
}

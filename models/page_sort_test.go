package models_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// walkPages reads a list in every page of limit items, forwards from the first page and
// backwards from the last, and returns the ids each way (in list order both times). At each page
// forwards it checks that the list's count, asked for, gives the total and the page's place, and
// that jumping to the page by its number (Skip) shows the same items in the same place.
func walkPages(t *testing.T, s models.Sort, limit int, list func(models.Page) (ids []int64, prev, next *models.Cursor, total, before models.Total)) (fwd, back []int64) {
	t.Helper()
	decode := func(c *models.Cursor) *models.Cursor {
		if c == nil {
			return nil
		}
		// A cursor travels as text, as browsers and clients carry it.
		d, err := models.DecodeCursor(c.Encode(), s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for cur, pages := (*models.Cursor)(nil), 0; pages < 50; pages++ {
		ids, _, next, _, before := list(models.Page{Limit: limit, Sort: s, Cursor: cur, Count: true})
		if !before.Exact || before.N != int64(len(fwd)) {
			t.Errorf("sort %s, page %d: before it %+v, want exactly %d", s, pages+1, before, len(fwd))
		}
		jumped, _, jnext, _, jbefore := list(models.Page{Limit: limit, Sort: s, Skip: len(fwd), Count: true})
		if !slices.Equal(jumped, ids) || (jnext == nil) != (next == nil) || jbefore != before {
			t.Errorf("sort %s, jump to page %d: %v (before it %+v, next %v), want %v (%+v, next %v)", s, pages+1, jumped, jbefore, jnext != nil, ids, before, next != nil)
		}
		fwd = append(fwd, ids...)
		if cur = decode(next); cur == nil {
			break
		}
	}
	last, _, _, _, _ := list(models.Page{Limit: limit, Sort: s, Cursor: &models.Cursor{Sort: s, Last: true}})
	if past, _, _, _, _ := list(models.Page{Limit: limit, Sort: s, Skip: len(fwd) + limit}); !slices.Equal(past, last) {
		t.Errorf("sort %s, a jump past the end shows %v, want the last page %v", s, past, last)
	}
	for cur, pages := (&models.Cursor{Sort: s, Last: true}), 0; pages < 50; pages++ {
		ids, prev, _, _, _ := list(models.Page{Limit: limit, Sort: s, Cursor: cur})
		back = append(ids, back...)
		if cur = decode(prev); cur == nil {
			break
		}
	}
	return fwd, back
}

// Orders sort by the time they were placed, their status and their ship date; orders without a
// ship date come after every order with one, in both directions. Every order, forwards and
// backwards, comes once in its place, and each page knows the total and its place in it.
func TestOrderPagesWalkEverySortBothWays(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		pets, orders := models.NewPetStore(db), models.NewOrderStore(db)
		ctx := models.WithCountBudget(models.WithActor(context.Background(), models.ActorCLI), time.Minute)
		day := time.Now().UTC().AddDate(0, 0, 10).Truncate(24 * time.Hour)
		var all []models.Order
		for i := range 11 {
			p := mustCreate(t, pets, "Pet", 1)
			n := models.NewOrder{PetID: &p.ID}
			if i%3 != 0 {
				ship := day.AddDate(0, 0, i%4)
				n.ShipDate = &ship
			}
			o, err := orders.Place(ctx, n, models.StaffOwner, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			if i%4 == 1 {
				if o, err = orders.Approve(ctx, o.ID, "test"); err != nil {
					t.Fatal(err)
				}
			}
			all = append(all, *o)
		}
		for _, key := range []string{"", "placed", "status", "shipDate"} {
			for _, desc := range []bool{false, true} {
				s := models.Sort{Key: key, Desc: desc}
				want := slices.Clone(all)
				sort.SliceStable(want, func(i, j int) bool {
					a, b := want[i], want[j]
					switch key {
					case "placed":
						if !a.CreatedAt.Equal(b.CreatedAt) {
							return a.CreatedAt.Before(b.CreatedAt) != desc
						}
					case "status":
						if a.Status != b.Status {
							return (a.Status < b.Status) != desc
						}
					case "shipDate":
						if (a.ShipDate == nil) != (b.ShipDate == nil) {
							return b.ShipDate == nil
						}
						if a.ShipDate != nil && !a.ShipDate.Equal(*b.ShipDate) {
							return a.ShipDate.Before(*b.ShipDate) != desc
						}
					}
					return (a.ID < b.ID) != desc
				})
				var wantIDs []int64
				for _, o := range want {
					wantIDs = append(wantIDs, o.ID)
				}
				fwd, back := walkPages(t, s, 3, func(pg models.Page) ([]int64, *models.Cursor, *models.Cursor, models.Total, models.Total) {
					got, err := orders.List(ctx, models.StaffOwner, models.OrderFilter{}, pg)
					if err != nil {
						t.Fatal(err)
					}
					if pg.Count && (got.Total != models.Total{N: 11, Exact: true}) {
						t.Errorf("sort %s: total %+v, want exactly 11", s, got.Total)
					}
					var ids []int64
					for _, o := range got.Items {
						ids = append(ids, o.ID)
					}
					return ids, got.Prev, got.Next, got.Total, got.Before
				})
				if !slices.Equal(fwd, wantIDs) || !slices.Equal(back, wantIDs) {
					t.Errorf("sort %s: forwards %v, backwards %v, want %v", s, fwd, back, wantIDs)
				}
			}
		}
	})
}

// Pets sort by status and by the time of their last change too.
func TestPetPagesSortByStatusAndLastChange(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		pets := models.NewPetStore(openDB(t, store))
		ctx := models.WithCountBudget(models.WithActor(context.Background(), models.ActorCLI), time.Minute)
		var all []models.Pet
		for i := range 8 {
			all = append(all, *mustCreate(t, pets, "Pet", 1))
			if i%3 != 0 {
				p, err := pets.SetStatus(ctx, all[i].ID, models.PetStatuses[i%3], models.ActorCLI)
				if err != nil {
					t.Fatal(err)
				}
				all[i] = *p
			}
		}
		// The first pet, changed last.
		p, err := pets.Patch(ctx, all[0].ID, models.PetPatch{Name: ptr("Renamed")}, models.ActorCLI, nil)
		if err != nil {
			t.Fatal(err)
		}
		all[0] = *p
		for _, s := range []models.Sort{{Key: "status"}, {Key: "status", Desc: true}, {Key: "updated"}, {Key: "updated", Desc: true}} {
			want := slices.Clone(all)
			sort.SliceStable(want, func(i, j int) bool {
				a, b := want[i], want[j]
				if s.Key == "status" && a.Status != b.Status {
					return (a.Status < b.Status) != s.Desc
				}
				if s.Key == "updated" && !a.UpdatedAt.Equal(b.UpdatedAt) {
					return a.UpdatedAt.Before(b.UpdatedAt) != s.Desc
				}
				return (a.ID < b.ID) != s.Desc
			})
			var wantIDs []int64
			for _, p := range want {
				wantIDs = append(wantIDs, p.ID)
			}
			fwd, back := walkPages(t, s, 3, func(pg models.Page) ([]int64, *models.Cursor, *models.Cursor, models.Total, models.Total) {
				got, err := pets.List(ctx, models.PetFilter{}, pg)
				if err != nil {
					t.Fatal(err)
				}
				var ids []int64
				for _, p := range got.Items {
					ids = append(ids, p.ID)
				}
				return ids, got.Prev, got.Next, got.Total, got.Before
			})
			if !slices.Equal(fwd, wantIDs) || !slices.Equal(back, wantIDs) {
				t.Errorf("sort %s: forwards %v, backwards %v, want %v", s, fwd, back, wantIDs)
			}
		}
	})
}

// Past 10,000 matching rows a list's total is an estimate, marked as one, near the truth (the
// planner's, from the table's statistics, on PostgreSQL; scaled from the newest ids on SQLite);
// up to it, exact. The page's place past the cap is unknown rather than guessed, and so is a
// total whose count ran out of time.
func TestTotalsAreExactUpToTheCapAndEstimatedPastIt(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		const n = 30_300
		// Written by the database itself: creating this many pets one by one would take minutes.
		gen := "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?) SELECT i FROM g"
		if store == testenv.Postgres {
			gen = "SELECT generate_series(1, ?) AS i"
		}
		now := time.Now().UTC()
		err := db.Transaction(func(tx *gorm.DB) error {
			// The rows are the test's setting, not what it measures: on a busy machine writing
			// them can take longer than the statement timeout the store runs under.
			if store == testenv.Postgres {
				if err := tx.Exec("SET LOCAL statement_timeout = 0").Error; err != nil {
					return err
				}
			}
			return tx.Exec("INSERT INTO pets (name, category_id, status, created_at, updated_at) SELECT 'Pet ' || i, 1, CASE WHEN i % 4 = 0 THEN 'sold' ELSE 'available' END, ?, ? FROM ("+gen+") AS s", now, now, n).Error
		})
		if err != nil {
			t.Fatal(err)
		}
		if store == testenv.Postgres {
			// The statistics autovacuum, or migrate after a bulk load, gathers.
			if err := db.Exec("ANALYZE pets").Error; err != nil {
				t.Fatal(err)
			}
		}
		pets := models.NewPetStore(db)
		// Counting may take as long as it needs here: what is tested is the cap, not the time.
		ctx := models.WithCountBudget(context.Background(), time.Minute)
		got, err := pets.List(ctx, models.PetFilter{}, models.Page{Limit: 25, Count: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Total.Exact || got.Total.N < 27_000 || got.Total.N > 33_000 || !got.Before.Exact || got.Before.N != 0 {
			t.Errorf("%d pets: total %+v, first page after %+v; want an estimate near %d, exactly 0 before", n, got.Total, got.Before, n)
		}
		sold, err := pets.List(ctx, models.PetFilter{Status: models.PetSold}, models.Page{Limit: 25, Count: true})
		if err != nil {
			t.Fatal(err)
		}
		if (sold.Total != models.Total{N: n / 4, Exact: true}) {
			t.Errorf("sold pets: total %+v, want exactly %d", sold.Total, n/4)
		}
		// The dashboard's counts by status, estimated the same way: the planner's total shared out
		// by the statistics' frequencies on PostgreSQL, the newest ids on SQLite.
		byStatus, exact, err := pets.StatusTotals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		near := func(got, want int64) bool { return got > want*85/100 && got < want*115/100 }
		if exact || !near(byStatus[models.PetSold], n/4) || !near(byStatus[models.PetAvailable], n-n/4) || byStatus[models.PetPending] != 0 {
			t.Errorf("pets by status: %v (exact %v), want estimates near %d sold and %d available", byStatus, exact, n/4, n-n/4)
		}
		last, err := pets.List(ctx, models.PetFilter{}, models.Page{Limit: 25, Count: true, Cursor: &models.Cursor{Last: true}})
		if err != nil {
			t.Fatal(err)
		}
		if last.Before != (models.Total{}) || len(last.Items) != 25 || !strings.HasPrefix(last.Items[24].Name, "Pet ") {
			t.Errorf("last page: %d pets, after %+v; want 25 after an unknown number", len(last.Items), last.Before)
		}
		// Out of time, a count gives up: the page is whole, its total unknown or an estimate (or
		// exact, when the machine counted the 7,575 within the millisecond PostgreSQL allows).
		hurried, err := pets.List(models.WithCountBudget(context.Background(), time.Nanosecond), models.PetFilter{Status: models.PetSold}, models.Page{Limit: 25, Count: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hurried.Items) != 25 || hurried.Total.Exact && hurried.Total.N != n/4 || hurried.Total.N != 0 && (hurried.Total.N < 5_000 || hurried.Total.N > 10_000) {
			t.Errorf("sold pets counted without time: %d pets, total %+v; want 25 and an unknown total or an estimate near %d", len(hurried.Items), hurried.Total, n/4)
		}
	})
}

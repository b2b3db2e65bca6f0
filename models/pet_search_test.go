package models

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"gorm.io/gorm"
)

func openSearchDB(t *testing.T) *gorm.DB {
	t.Helper()
	db, err := Open(context.Background(), DBOptions{PostgresURL: testenv.NewDatabase(t, testenv.Postgres).PostgresURL,
		Timeout: 10 * time.Second, MaxOpenConns: 4, MaxIdleConns: 4, ConnMaxLifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(db) })
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// The two ways of a word search on PostgreSQL (searchList) give the same pages: every page of
// every order, walked by its next cursors, for words many pets have, few have and none has.
func TestSearchWaysGiveTheSamePages(t *testing.T) {
	t.Parallel()
	db := openSearchDB(t)
	pets := NewPetStore(db)
	ctx := WithActor(context.Background(), ActorCLI)
	tempers := []string{"calm", "shy", "playful"}
	for i := range 30 {
		name, cat := fmt.Sprint([]string{"Rex", "Luna", "Max"}[i%3], " ", i), int64(1+i%2)
		desc := "A " + tempers[i%3] + " " + []string{"Labrador", "tabby"}[i%2] + " who loves naps."
		if _, err := pets.Create(ctx, NewPet{Name: &name, CategoryID: &cat, Description: &desc}, nil); err != nil {
			t.Fatal(err)
		}
	}
	walk := context.WithValue(ctx, searchWalkKey{}, time.Minute)
	index := context.WithValue(ctx, searchWalkKey{}, time.Duration(0))
	for _, q := range []string{"calm", "lab", "calm lab", "rex shy", "zebra"} {
		words, err := ParseSearch("q", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, sort := range []Sort{{}, {Desc: true}, {Key: "name"}, {Key: "updated", Desc: true}} {
			byWalk, byIndex := searchPages(t, pets, walk, words, sort), searchPages(t, pets, index, words, sort)
			if !slices.EqualFunc(byWalk, byIndex, slices.Equal) {
				t.Errorf("q=%q sort %v: the walk pages %v, the index %v", q, sort, byWalk, byIndex)
			}
			if found := slices.Concat(byWalk...); q == "zebra" && len(found) != 0 || q == "calm lab" && len(found) != 5 {
				t.Errorf("q=%q sort %v: found %v", q, sort, found)
			}
		}
	}
}

// searchPages lists the pets the search finds, four a page, by following the next cursors.
func searchPages(t *testing.T, pets *PetStore, ctx context.Context, words Search, sort Sort) [][]int64 {
	t.Helper()
	var pages [][]int64
	page := Page{Limit: 4, Sort: sort}
	for {
		list, err := pets.List(ctx, PetFilter{Words: words}, page)
		if err != nil {
			t.Fatalf("%v sort %v: %v", words, sort, err)
		}
		var ids []int64
		for _, p := range list.Items {
			ids = append(ids, p.ID)
		}
		pages = append(pages, ids)
		if list.Next == nil {
			return pages
		}
		page.Cursor = list.Next
	}
}

// A walk cut short by its budget gives way to the index: here the walk waits on a lock past
// its budget, and the search answers once the index's read may go on, instead of failing as
// the database being unavailable.
func TestSearchWalkPastItsBudgetGivesWayToTheIndex(t *testing.T) {
	t.Parallel()
	db := openSearchDB(t)
	pets := NewPetStore(db)
	ctx := WithActor(context.Background(), ActorCLI)
	name, cat, desc := "Rex", int64(1), "A calm Labrador."
	want, err := pets.Create(ctx, NewPet{Name: &name, CategoryID: &cat, Description: &desc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	words, err := ParseSearch("q", "calm lab")
	if err != nil {
		t.Fatal(err)
	}

	lock := db.Begin()
	if err := lock.Exec("LOCK TABLE pets IN ACCESS EXCLUSIVE MODE").Error; err != nil {
		t.Fatal(err)
	}
	type result struct {
		list Paged[Pet]
		err  error
	}
	done := make(chan result, 1)
	go func() {
		list, err := pets.List(context.WithValue(ctx, searchWalkKey{}, 100*time.Millisecond), PetFilter{Words: words}, Page{Limit: 20})
		done <- result{list, err}
	}()
	// The index's read, which has no budget, waits on the lock once the walk gave way (looked for
	// from another connection: within a transaction, pg_stat_activity is a snapshot).
	for deadline := time.Now().Add(time.Minute); ; {
		var waiting int64
		if err := db.Raw(`SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?`,
			"%id = ANY(ARRAY(SELECT id FROM pets WHERE "+searchVector+" @@%").Scan(&waiting).Error; err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			lock.Rollback()
			r := <-done
			t.Fatalf("the search never read the index's ids (it answered %v, %v)", r.list.Items, r.err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	lock.Rollback()
	r := <-done
	if r.err != nil || len(r.list.Items) != 1 || r.list.Items[0].ID != want.ID {
		t.Fatalf("the search answered %v, %v; want pet %d", r.list.Items, r.err, want.ID)
	}
}

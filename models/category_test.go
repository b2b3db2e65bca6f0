package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// listCategories answers every category in one page, so there are at most MaxCategories: the
// creations that would pass it are refused with a sentence naming the field, even when several
// race for the last places, and renaming still works at the bound.
func TestCategoriesStopAtTheirBound(t *testing.T) {
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		db := openDB(t, store)
		cats := models.NewCategoryStore(db)
		ctx := models.WithActor(context.Background(), models.ActorCLI)
		seeded, err := cats.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Fill all but two places directly: the store's own creations race for those.
		var fill []models.Category
		for i := len(seeded); i < models.MaxCategories-2; i++ {
			fill = append(fill, models.Category{Name: fmt.Sprintf("Category %d", i)})
		}
		if err := db.CreateInBatches(fill, 200).Error; err != nil {
			t.Fatal(err)
		}

		const racers = 6
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() { _, errs[i] = cats.Create(ctx, fmt.Sprintf("Racer %d", i)) })
		}
		wg.Wait()
		added := 0
		for _, err := range errs {
			switch {
			case err == nil:
				added++
			case models.ErrorCode(err) != models.EValidation || models.FieldMessages(err)["name"] !=
				"there are already 1,000 categories, as many as there can be; rename one instead of adding another":
				t.Fatalf("a creation past the bound: %v, want %s naming the name field", err, models.EValidation)
			}
		}
		if added != 2 {
			t.Fatalf("%d of %d racing creations for the last 2 places went through, want 2", added, racers)
		}

		list, err := cats.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != models.MaxCategories {
			t.Fatalf("%d categories, want %d", len(list), models.MaxCategories)
		}
		if _, err := cats.Create(ctx, "One more"); models.ErrorCode(err) != models.EValidation {
			t.Fatalf("a creation at the bound: %v, want %s", err, models.EValidation)
		}
		if c, err := cats.Rename(ctx, list[0].ID, "Hounds"); err != nil || c.Name != "Hounds" {
			t.Fatalf("renaming at the bound: %+v, %v", c, err)
		}
	})
}

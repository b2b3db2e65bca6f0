package app_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// BenchmarkCreatePetDuringASeed times pet creations through the running server while a seed
// fills its database from a connection pool of its own, as `petstore seed` beside `serve` does.
// A seed must never lock the service out: each creation should answer within a second, and
// max-ms, the slowest of the run, says whether it did. (TestTheServiceKeepsAnsweringWhileASeedRuns
// checks the answers themselves; times are a benchmark's business on a shared machine.)
func BenchmarkCreatePetDuringASeed(b *testing.B) {
	for _, store := range testenv.Stores {
		b.Run(string(store), func(b *testing.B) {
			cfg := apptest.Config(b, store)
			s := apptest.New(b, cfg)
			seeder := apptest.OpenDB(b, cfg)
			ctx, stop := context.WithCancel(context.Background())
			seeded := make(chan error, 1)
			go func() {
				_, err := models.Seed(ctx, seeder, models.SeedOptions{Pets: 1_000_000})
				seeded <- err
			}()
			for n := int64(0); n == 0; time.Sleep(5 * time.Millisecond) {
				if err := s.DB.Model(&models.Pet{}).Count(&n).Error; err != nil {
					b.Fatal(err)
				}
			}
			var slowest time.Duration
			for b.Loop() {
				start := time.Now()
				res := s.PostJSON(b, "/v1/pets", map[string]any{"name": "Rex", "categoryId": 1})
				took := time.Since(start)
				if res.StatusCode != http.StatusCreated {
					b.Fatalf("POST /v1/pets during the seed answered %d after %s: %s", res.StatusCode, took, res.Body)
				}
				slowest = max(slowest, took)
			}
			stop()
			if err := <-seeded; !errors.Is(err, context.Canceled) {
				b.Fatalf("the seed ended before the benchmark did (%v): its times are not those of a seed running", err)
			}
			b.ReportMetric(float64(slowest)/float64(time.Millisecond), "max-ms")
		})
	}
}

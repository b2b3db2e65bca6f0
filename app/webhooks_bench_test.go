package app_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// BenchmarkDeliveries measures how many events per second one instance delivers to a receiver
// on loopback that answers at once: b.N events are queued first (pets created with the
// deliveries stopped), then the workers start and the clock runs until the receiver has them all.
// Reported as events/s; bench/events.sh runs it.
func BenchmarkDeliveries(b *testing.B) {
	for _, store := range testenv.Stores {
		b.Run(string(store), func(b *testing.B) {
			cfg := webhookBenchConfig(b, store)
			s := apptest.New(b, cfg, apptest.WithLog(app.NewLogger(cfg, io.Discard)))
			var got atomic.Int64
			done := make(chan struct{})
			n := int64(b.N)
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if got.Add(1) == n {
					close(done)
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			b.Cleanup(receiver.Close)
			res := s.PostJSON(b, "/v1/webhook-endpoints", map[string]any{"url": receiver.URL, "events": []string{"pet.created"}})
			if res.StatusCode != http.StatusCreated {
				b.Fatalf("endpoint: %d %s", res.StatusCode, res.Body)
			}
			pets := models.NewPetStore(s.DB)
			ctx := models.WithActor(b.Context(), models.ActorCLI)
			cat := int64(1)
			for i := range b.N {
				name := fmt.Sprint("Pet ", i)
				if _, err := pets.Create(ctx, models.NewPet{Name: &name, CategoryID: &cat}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			stop, err := app.StartDeliveries(b.Context(), cfg, app.NewLogger(cfg, io.Discard), s.DB, app.DeliveryOptions{})
			if err != nil {
				b.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(5 * time.Minute):
				b.Fatalf("%d of %d events delivered in 5 minutes", got.Load(), n)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			stop()
			b.ReportMetric(float64(n)/elapsed.Seconds(), "events/s")
		})
	}
}

func webhookBenchConfig(b *testing.B, store testenv.Store) app.Config {
	cfg := apptest.Config(b, store)
	cfg.WebhookAllowHTTP, cfg.WebhookAllowPrivate = true, true
	return cfg
}

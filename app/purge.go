package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/petstore/petstore/models"
)

// idempotencyPurgeEvery is how often serve deletes expired idempotency records. Lookups ignore
// a record older than 24 hours on their own, so purging only bounds the table: it never holds
// more than about 25 hours of keys.
const idempotencyPurgeEvery = time.Hour

// startPurging deletes expired idempotency records now and then every interval, until ctx ends
// or stop is called; stop waits for a purge under way, so the database can be closed after it.
// Every instance purges; the deletes are idempotent, so several at once do no harm.
func startPurging(ctx context.Context, records *models.IdempotencyStore, log *slog.Logger, every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			n, err := records.PurgeExpired(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Error("purging idempotency records", "error", err.Error())
			case n > 0:
				log.Info("purged expired idempotency records", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}

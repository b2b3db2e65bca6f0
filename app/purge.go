package app

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// idempotencyPurgeEvery is how often serve deletes expired idempotency records, and events and
// delivery attempts past their 30 days. Lookups ignore a record older than 24 hours on their
// own, so purging only bounds the tables: idempotency records never hold more than about 25
// hours of keys, events about 30 days and an hour.
const idempotencyPurgeEvery = time.Hour

// purge deletes what has expired in one table and says how many rows went.
type purge func(ctx context.Context) (int64, error)

// startPurging runs each purge (by the name the log gives it) now and then every interval,
// until ctx ends or stop is called;
// stop waits for a purge under way, so the database can be closed after it. Every instance
// purges; the deletes are idempotent, so several at once do no harm.
func startPurging(ctx context.Context, log *slog.Logger, every time.Duration, purges map[string]purge) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			for name, p := range purges {
				n, err := p(ctx)
				switch {
				case err != nil && ctx.Err() == nil:
					log.Error("purging expired records", "records", name, "error", err.Error())
				case n > 0:
					log.Info("purged expired records", "records", name, "count", n)
				}
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

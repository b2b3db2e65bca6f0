package models

import (
	"context"
	"errors"
	"sync"
	"time"

	"gorm.io/gorm"
)

const (
	// lastUsedEvery is how often last-used times are written: at most once per key per period.
	lastUsedEvery        = time.Minute
	lastUsedFlushTimeout = 5 * time.Second
)

// lastUsed keeps the keys' last-used times in memory and writes them in batches, never on a
// request's path.
type lastUsed struct {
	db  *gorm.DB
	now func() time.Time

	mu        sync.Mutex
	pending   map[int64]time.Time // last-used times not yet written
	lastFlush time.Time
	flushing  bool
	flushDone sync.WaitGroup
}

func newLastUsed(db *gorm.DB, now func() time.Time) *lastUsed {
	return &lastUsed{db: db, now: now, pending: map[int64]time.Time{}}
}

// touch records that the key was used now; a write follows at most once a minute.
func (w *lastUsed) touch(id int64) {
	now := w.now()
	w.mu.Lock()
	w.pending[id] = now
	due := !w.flushing && now.Sub(w.lastFlush) >= lastUsedEvery
	if due {
		w.flushing, w.lastFlush = true, now
		w.flushDone.Add(1)
	}
	w.mu.Unlock()
	if due {
		go func() {
			defer w.flushDone.Done()
			ctx, cancel := context.WithTimeout(context.Background(), lastUsedFlushTimeout)
			defer cancel()
			_ = w.flush(ctx)
		}()
	}
}

// flush writes the pending last-used times; those it could not write wait for the next flush.
// It writes the column alone: a last use is not a change of the key that caches must hear of.
func (w *lastUsed) flush(ctx context.Context) error {
	w.mu.Lock()
	pending := w.pending
	w.pending = make(map[int64]time.Time, len(pending))
	w.mu.Unlock()

	var errs []error
	failed := map[int64]time.Time{}
	for id, at := range pending {
		err := w.db.WithContext(ctx).Model(&APIKey{}).Where("id = ?", id).
			UpdateColumn("last_used_at", at.UTC().Truncate(time.Microsecond)).Error
		if err != nil {
			failed[id] = at
			errs = append(errs, err)
		}
	}
	w.mu.Lock()
	for id, at := range failed {
		if newer, ok := w.pending[id]; !ok || newer.Before(at) {
			w.pending[id] = at
		}
	}
	w.flushing = false
	w.mu.Unlock()
	if len(errs) > 0 {
		return storeError(errors.Join(errs...), "")
	}
	return nil
}

// close writes what is still in memory.
func (w *lastUsed) close(ctx context.Context) error {
	w.flushDone.Wait()
	w.mu.Lock()
	w.flushing = true
	w.mu.Unlock()
	return w.flush(ctx)
}

// show puts a use this instance has not written yet on k.
func (w *lastUsed) show(k *APIKey) {
	w.mu.Lock()
	at, ok := w.pending[k.ID]
	w.mu.Unlock()
	if ok && (k.LastUsedAt == nil || at.After(*k.LastUsedAt)) {
		at = at.UTC().Truncate(time.Microsecond)
		k.LastUsedAt = &at
	}
}

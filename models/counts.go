package models

import (
	"context"
	"sync"
	"time"
)

// The API's counts over the whole catalogue, the tags in use (GET /v1/tags) and the inventory
// (GET /v1/store/inventory), read every live pet: at a million pets 0.5 to 1 s and 250 ms. Each
// instance keeps what it counted for up to a maximum age (PetStore.KeepCounts,
// PETSTORE_COUNTS_MAX_AGE), so that such a count costs the database one reading per instance
// and period whatever the traffic, and answers say how old they are. Counts kept as pets change
// would be exact, but every creation would then update the same few rows (one per status), which
// a thousand concurrent creations would queue on.

// counted is a value computed at most some maximum age ago. A caller that finds it too old
// computes it again while holding the lock, so callers arriving meanwhile wait for that one
// reading instead of each making their own.
type counted[T any] struct {
	mu  sync.Mutex
	at  time.Time
	val T
}

// get returns the value and its age: the kept one while younger than maxAge by now's clock,
// else a new one from compute. With maxAge 0 every call computes.
func (c *counted[T]) get(ctx context.Context, maxAge time.Duration, now func() time.Time, compute func(context.Context) (T, error)) (T, time.Duration, error) {
	if maxAge <= 0 {
		v, err := compute(ctx)
		return v, 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if age := now().Sub(c.at); !c.at.IsZero() && age < maxAge {
		return c.val, age, nil
	}
	v, err := compute(ctx)
	if err != nil {
		return v, 0, err
	}
	c.val, c.at = v, now()
	return v, 0, nil
}

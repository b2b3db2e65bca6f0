package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNotShared is Fallback's Ready error while it counts in this instance only.
var ErrNotShared = errors.New("redis unreachable: rate limits are counted by each instance alone")

// Fallback counts with primary (Redis) while it answers. When it fails, the service keeps
// answering: counting moves to local (this instance alone), a warning is logged, Ready reports
// the degradation, and primary is tried again once per retry period until it answers.
type Fallback struct {
	primary, local Limiter
	log            *slog.Logger
	now            func() time.Time
	retry          time.Duration

	down    atomic.Bool
	mu      sync.Mutex
	nextTry time.Time
}

// NewFallback returns a limiter that prefers primary and falls back to local.
func NewFallback(primary, local Limiter, log *slog.Logger, now func() time.Time, retry time.Duration) *Fallback {
	return &Fallback{primary: primary, local: local, log: log, now: now, retry: retry}
}

// usePrimary says whether to ask primary: always while it is up; while it is down, one
// request per retry period probes it.
func (f *Fallback) usePrimary() bool {
	if !f.down.Load() {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := f.now(); !now.Before(f.nextTry) {
		f.nextTry = now.Add(f.retry)
		return true
	}
	return false
}

func (f *Fallback) failed(err error) {
	f.mu.Lock()
	f.nextTry = f.now().Add(f.retry)
	f.mu.Unlock()
	if !f.down.Swap(true) {
		f.log.Warn("rate limiter: Redis does not answer; counting in this instance alone until it does", "error", err.Error())
	}
}

func (f *Fallback) answered() {
	if f.down.Load() && f.down.Swap(false) {
		f.log.Info("rate limiter: Redis answers again; counting is shared again")
	}
}

// Take implements Limiter.
func (f *Fallback) Take(ctx context.Context, client string, l Limits, epoch int64) (Decision, error) {
	if f.usePrimary() {
		d, err := f.primary.Take(ctx, client, l, epoch)
		if err == nil {
			f.answered()
			return d, nil
		}
		f.failed(err)
	}
	return f.local.Take(ctx, client, l, epoch)
}

// Usage implements Limiter.
func (f *Fallback) Usage(ctx context.Context, client string) (Usage, error) {
	if f.usePrimary() {
		u, err := f.primary.Usage(ctx, client)
		if err == nil {
			f.answered()
			return u, nil
		}
		f.failed(err)
	}
	return f.local.Usage(ctx, client)
}

// Today implements Limiter.
func (f *Fallback) Today(ctx context.Context) (Traffic, error) {
	if f.usePrimary() {
		t, err := f.primary.Today(ctx)
		if err == nil {
			f.answered()
			return t, nil
		}
		f.failed(err)
	}
	return f.local.Today(ctx)
}

// CountRefused implements Limiter.
func (f *Fallback) CountRefused(ctx context.Context) error {
	if f.usePrimary() {
		err := f.primary.CountRefused(ctx)
		if err == nil {
			f.answered()
			return nil
		}
		f.failed(err)
	}
	return f.local.CountRefused(ctx)
}

// Ready implements Limiter: it asks primary, and returns ErrNotShared while primary does not
// answer.
func (f *Fallback) Ready(ctx context.Context) error {
	if err := f.primary.Ready(ctx); err != nil {
		f.failed(err)
		return ErrNotShared
	}
	f.answered()
	return nil
}

package ratelimit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/app/ratelimit"
)

// flaky is a shared limiter that can stop answering, as Redis does when it goes away.
type flaky struct {
	ratelimit.Limiter
	down atomic.Bool
}

var errGone = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (f *flaky) Take(ctx context.Context, client string, l ratelimit.Limits, epoch int64) (ratelimit.Decision, error) {
	if f.down.Load() {
		return ratelimit.Decision{}, errGone
	}
	return f.Limiter.Take(ctx, client, l, epoch)
}

func (f *flaky) Ready(ctx context.Context) error {
	if f.down.Load() {
		return errGone
	}
	return nil
}

func TestFallbackCountsLocallyWhileTheSharedLimiterIsDownAndReturnsToIt(t *testing.T) {
	clock := testenv.NewClock(time.Date(2030, 1, 2, 10, 20, 0, 0, time.UTC))
	shared := &flaky{Limiter: ratelimit.NewMemory(clock.Now)}
	var logs bytes.Buffer
	f := ratelimit.NewFallback(shared, ratelimit.NewMemory(clock.Now), slog.New(slog.NewTextHandler(&logs, nil)), clock.Now, 5*time.Second)
	lim := ratelimit.Limits{PerMinute: 3, PerDay: 100}

	f.Take(ctx, "a", lim, 0)
	shared.down.Store(true)
	for i := 1; i <= 3; i++ {
		if d, err := f.Take(ctx, "a", lim, 0); err != nil || !d.Allowed || d.Remaining != 3-i {
			t.Fatalf("request %d with Redis down: %+v %v, want admitted by this instance's own count", i, d, err)
		}
	}
	if d, _ := f.Take(ctx, "a", lim, 0); d.Allowed {
		t.Fatal("this instance's count admitted a 4th request in the minute")
	}
	if err := f.Ready(ctx); !errors.Is(err, ratelimit.ErrNotShared) {
		t.Fatalf("Ready with Redis down: %v, want ErrNotShared", err)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 || !strings.Contains(logs.String(), "connection refused") {
		t.Fatalf("want one warning naming the cause, got:\n%s", logs.String())
	}

	shared.down.Store(false)
	if d, _ := f.Take(ctx, "b", lim, 0); d.Remaining != 2 {
		t.Fatalf("within the retry period: %+v, want it still counted here", d)
	}
	if u, _ := shared.Usage(ctx, "b"); u.Minute != 0 {
		t.Fatalf("Redis was asked within the retry period: usage %+v", u)
	}
	clock.Advance(5 * time.Second)
	if d, _ := f.Take(ctx, "a", lim, 0); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after the retry period: %+v, want Redis's count again (its 2nd request)", d)
	}
	if err := f.Ready(ctx); err != nil {
		t.Fatalf("Ready once Redis answers: %v", err)
	}
	if !strings.Contains(logs.String(), "answers again") {
		t.Fatalf("want the recovery logged, got:\n%s", logs.String())
	}
}

package ratelimit_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/app/ratelimit"
)

// newLimiter makes a fresh limiter, with counters of its own, on the given clock.
type newLimiter func(t *testing.T, now func() time.Time) ratelimit.Limiter

func TestMemoryLimiter(t *testing.T) {
	testLimiter(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter { return ratelimit.NewMemory(now) })
}

func TestRedisLimiter(t *testing.T) {
	url := testenv.RedisURL(t)
	testLimiter(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		return ratelimit.NewRedis(testenv.RedisClient(t, url), testenv.RedisPrefix(t), now)
	})
}

var ctx = context.Background()

// testLimiter is the one suite every implementation passes.
func testLimiter(t *testing.T, newLimiter newLimiter) {
	// A Wednesday, 10:20:15 UTC: the minute ends at 10:21:00, the day at Thursday 00:00:00.
	start := time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC)
	minuteEnd := time.Date(2030, 1, 2, 10, 21, 0, 0, time.UTC)
	dayEnd := time.Date(2030, 1, 3, 0, 0, 0, 0, time.UTC)

	t.Run("admits the per-minute limit, refuses until the minute ends, then admits again", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(start)
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 5, PerDay: 100}
		for i := 1; i <= 5; i++ {
			d := take(t, l, "a", lim)
			want := ratelimit.Decision{Allowed: true, Limit: 5, Remaining: 5 - i, Reset: minuteEnd}
			if !same(d, want) {
				t.Fatalf("request %d: %+v, want %+v", i, d, want)
			}
		}
		for i := 1; i <= 3; i++ {
			d := take(t, l, "a", lim)
			want := ratelimit.Decision{Limit: 5, Remaining: 0, Reset: minuteEnd, RetryAfter: 45 * time.Second, Refused: i}
			if !same(d, want) {
				t.Fatalf("refused request %d: %+v, want %+v", i, d, want)
			}
		}
		clock.Set(minuteEnd.Add(-500 * time.Millisecond))
		if d := take(t, l, "a", lim); d.Allowed || d.RetryAfter != time.Second {
			t.Fatalf("half a second before the reset: %+v, want refused with Retry-After 1s", d)
		}
		clock.Set(minuteEnd)
		d := take(t, l, "a", lim)
		want := ratelimit.Decision{Allowed: true, Limit: 5, Remaining: 4, Reset: minuteEnd.Add(time.Minute)}
		if !same(d, want) {
			t.Fatalf("at the reset: %+v, want %+v", d, want)
		}
		for range 4 {
			take(t, l, "a", lim)
		}
		if d := take(t, l, "a", lim); d.Allowed || d.Refused != 1 {
			t.Fatalf("first refusal of the new minute: %+v, want refused with Refused 1", d)
		}
		if u := usage(t, l, "a"); u != (ratelimit.Usage{Minute: 5, Day: 10}) {
			t.Fatalf("usage %+v, want 5 this minute and 10 today: refused requests use nothing up", u)
		}
	})

	t.Run("the day's limit refuses until midnight UTC and the headers then describe the day", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(time.Date(2030, 1, 2, 23, 58, 10, 0, time.UTC))
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 10, PerDay: 12}
		for range 10 {
			take(t, l, "a", lim)
		}
		clock.Advance(time.Minute) // 23:59:10
		d := take(t, l, "a", lim)
		if want := (ratelimit.Decision{Allowed: true, Limit: 12, Remaining: 1, Reset: dayEnd}); !same(d, want) {
			t.Fatalf("11th request: %+v, want %+v (the day has fewer left)", d, want)
		}
		take(t, l, "a", lim)
		d = take(t, l, "a", lim)
		if want := (ratelimit.Decision{Limit: 12, Remaining: 0, Reset: dayEnd, RetryAfter: 50 * time.Second, DayFull: true, Refused: 1}); !same(d, want) {
			t.Fatalf("13th request: %+v, want %+v", d, want)
		}
		clock.Set(dayEnd)
		if d := take(t, l, "a", lim); !d.Allowed || d.Remaining != 9 || !d.Reset.Equal(dayEnd.Add(time.Minute)) {
			t.Fatalf("at midnight: %+v, want admitted with 9 left this minute", d)
		}
	})

	t.Run("a full day makes a client wait for midnight even when the minute resets first", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(start)
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 3, PerDay: 3}
		for i := 1; i <= 3; i++ {
			if d := take(t, l, "a", lim); !d.Allowed || d.Limit != 3 || !d.Reset.Equal(minuteEnd) || d.Remaining != 3-i {
				t.Fatalf("request %d: %+v, want the minute window when both have as many left", i, d)
			}
		}
		d := take(t, l, "a", lim)
		if d.Allowed || !d.DayFull || d.RetryAfter != dayEnd.Sub(start) {
			t.Fatalf("4th request: %+v, want refused until midnight (%s)", d, dayEnd.Sub(start))
		}
	})

	t.Run("clients are counted apart", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(start)
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 1, PerDay: 10}
		take(t, l, ratelimit.KeyClient(1), lim)
		if d := take(t, l, ratelimit.KeyClient(1), lim); d.Allowed {
			t.Fatal("key 1's second request was admitted")
		}
		for _, c := range []string{ratelimit.KeyClient(2), ratelimit.IPClient("127.0.0.1"), ratelimit.IPClient("::1")} {
			if d := take(t, l, c, lim); !d.Allowed || d.Remaining != 0 {
				t.Fatalf("%s: %+v, want its own first request admitted", c, d)
			}
		}
	})

	t.Run("usage and today's traffic follow the windows", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(start)
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 2, PerDay: 10}
		if u := usage(t, l, "a"); u != (ratelimit.Usage{}) {
			t.Fatalf("usage of an unseen client %+v, want zero", u)
		}
		for range 3 {
			take(t, l, "a", lim)
		}
		take(t, l, "b", lim)
		if err := l.CountRefused(ctx); err != nil {
			t.Fatal(err)
		}
		if tr := today(t, l); tr != (ratelimit.Traffic{Admitted: 3, Refused: 2}) {
			t.Fatalf("today %+v, want 3 admitted and 2 refused", tr)
		}
		clock.Advance(time.Minute)
		if u := usage(t, l, "a"); u != (ratelimit.Usage{Minute: 0, Day: 2}) {
			t.Fatalf("usage a minute later %+v, want 0 this minute and 2 today", u)
		}
		clock.Set(dayEnd)
		if u, tr := usage(t, l, "a"), today(t, l); u != (ratelimit.Usage{}) || tr != (ratelimit.Traffic{}) {
			t.Fatalf("the next day: usage %+v, today %+v, want zero", u, tr)
		}
		if err := l.Ready(ctx); err != nil {
			t.Fatalf("Ready: %v", err)
		}
	})

	t.Run("a larger epoch forgets the minute's refusals and a smaller one counts as the current", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(start)
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 2, PerDay: 100}
		takeAt := func(epoch int64) ratelimit.Decision {
			t.Helper()
			d, err := l.Take(ctx, "a", lim, epoch)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		takeAt(0)
		takeAt(0)
		for i := 1; i <= 3; i++ {
			if d := takeAt(0); d.Allowed || d.Refused != i {
				t.Fatalf("refusal %d under epoch 0: %+v", i, d)
			}
		}
		if d := takeAt(1); d.Allowed || d.Refused != 1 || d.Remaining != 0 {
			t.Fatalf("first request of epoch 1: %+v, want refused (the minute is still full) and counted as the first refusal", d)
		}
		if d := takeAt(0); d.Refused != 2 {
			t.Fatalf("a request still naming epoch 0: %+v, want it counted in epoch 1 as refusal 2", d)
		}
		if d := takeAt(1); d.Refused != 3 {
			t.Fatalf("epoch 1 again: %+v, want refusal 3", d)
		}
	})

	t.Run("100 concurrent requests against a limit of 60 admit exactly 60", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(start)
		l := newLimiter(t, clock.Now)
		lim := ratelimit.Limits{PerMinute: 60, PerDay: 1_000}
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			admitted int
			refused  []int
		)
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := l.Take(ctx, "a", lim, 0)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if d.Allowed {
					admitted++
				} else {
					refused = append(refused, d.Refused)
				}
			}()
		}
		wg.Wait()
		sort.Ints(refused)
		if admitted != 60 || len(refused) != 40 {
			t.Fatalf("admitted %d and refused %d, want 60 and 40", admitted, len(refused))
		}
		// Each refusal count is seen once, so exactly one request crosses a ban threshold.
		for i, r := range refused {
			if r != i+1 {
				t.Fatalf("refusal counts %v, want 1 to 40 once each", refused)
			}
		}
	})
}

func take(t *testing.T, l ratelimit.Limiter, client string, lim ratelimit.Limits) ratelimit.Decision {
	t.Helper()
	d, err := l.Take(ctx, client, lim, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func usage(t *testing.T, l ratelimit.Limiter, client string) ratelimit.Usage {
	t.Helper()
	u, err := l.Usage(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func today(t *testing.T, l ratelimit.Limiter) ratelimit.Traffic {
	t.Helper()
	tr, err := l.Today(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// same compares decisions; Reset as an instant.
func same(a, b ratelimit.Decision) bool {
	ok := a.Reset.Equal(b.Reset)
	a.Reset, b.Reset = time.Time{}, time.Time{}
	return ok && a == b
}

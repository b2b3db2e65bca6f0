package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/app/ratelimit"
)

func TestMemoryAttempts(t *testing.T) {
	testAttempts(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter { return ratelimit.NewMemory(now) })
}

func TestRedisAttempts(t *testing.T) {
	url := testenv.RedisURL(t)
	testAttempts(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		return ratelimit.NewRedis(testenv.RedisClient(t, url), testenv.RedisPrefix(t), now)
	})
}

func testAttempts(t *testing.T, newLimiter newLimiter) {
	b := ratelimit.Budget{Max: 5, Window: time.Minute, Lockout: 15 * time.Minute}

	t.Run("of 40 simultaneous attempts exactly the budget is allowed", func(t *testing.T) {
		t.Parallel()
		l := newLimiter(t, time.Now)
		var allowed, last atomic.Int32
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				a, err := l.TakeAttempt(ctx, "pair", b)
				if err != nil {
					t.Error(err)
				}
				if a.Allowed {
					allowed.Add(1)
				}
				if a.Last {
					last.Add(1)
				}
			})
		}
		wg.Wait()
		if allowed.Load() != 5 || last.Load() != 1 {
			t.Fatalf("%d allowed, %d took the last attempt; want 5 and 1", allowed.Load(), last.Load())
		}
	})

	t.Run("the last attempt locks the key out for the lock-out, then it starts afresh", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC))
		l := newLimiter(t, clock.Now)
		for i := 1; i <= 5; i++ {
			a := attempt(t, l, "k", b)
			if !a.Allowed || a.Taken != i || a.Last != (i == 5) {
				t.Fatalf("attempt %d: %+v", i, a)
			}
		}
		if a := attempt(t, l, "k", b); a.Allowed || a.RetryAfter != 15*time.Minute || a.Taken != 5 {
			t.Fatalf("sixth attempt: %+v, want refused for 15 minutes", a)
		}
		if a := attempt(t, l, "other", b); !a.Allowed || a.Taken != 1 {
			t.Fatalf("another key: %+v, want its own count", a)
		}
		clock.Advance(15*time.Minute + time.Second)
		if a := attempt(t, l, "k", b); !a.Allowed || a.Taken != 1 {
			t.Fatalf("after the lock-out: %+v, want a fresh count", a)
		}
	})

	t.Run("a window without a lock-out refuses until it ends", func(t *testing.T) {
		t.Parallel()
		clock := testenv.NewClock(time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC))
		l := newLimiter(t, clock.Now)
		slow := ratelimit.Budget{Max: 2, Window: time.Minute}
		attempt(t, l, "acct", slow)
		attempt(t, l, "acct", slow)
		if a := attempt(t, l, "acct", slow); a.Allowed || a.RetryAfter < 59*time.Second || a.RetryAfter > time.Minute {
			t.Fatalf("third attempt of two a minute: %+v, want refused for about a minute", a)
		}
	})

	t.Run("forgetting a key gives it its whole budget again", func(t *testing.T) {
		t.Parallel()
		l := newLimiter(t, time.Now)
		for range 5 {
			attempt(t, l, "k", b)
		}
		if err := l.ForgetAttempts(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		if a := attempt(t, l, "k", b); !a.Allowed || a.Taken != 1 {
			t.Fatalf("after forgetting: %+v", a)
		}
	})
}

func attempt(t *testing.T, l ratelimit.Limiter, key string, b ratelimit.Budget) ratelimit.Attempt {
	t.Helper()
	a, err := l.TakeAttempt(ctx, key, b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAnIPv6AddressIsOneClientWithTheRestOfItsSlash64(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"},
		{"2001:db8:1:2::1%eth0", "2001:db8:1:2::2"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
	} {
		if ratelimit.IPClient(tc.a) != ratelimit.IPClient(tc.b) {
			t.Errorf("%s and %s: %q and %q, want one client", tc.a, tc.b, ratelimit.IPClient(tc.a), ratelimit.IPClient(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"192.0.2.1", "192.0.2.2"},
	} {
		if ratelimit.IPClient(tc.a) == ratelimit.IPClient(tc.b) {
			t.Errorf("%s and %s are one client (%q), want two", tc.a, tc.b, ratelimit.IPClient(tc.a))
		}
	}
	if got := ratelimit.AddressClient("2001:db8:1:2:3:4:5:6"); got != "2001:db8:1:2::/64" {
		t.Errorf("AddressClient of an IPv6 address: %q, want its /64", got)
	}
}

func TestSlotsRefuseRatherThanQueueWithoutBound(t *testing.T) {
	t.Run("one client's share", func(t *testing.T) {
		s := ratelimit.NewSlots(4, 1, 4)
		release, err := s.Acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Acquire(ctx, "a"); !errors.Is(err, ratelimit.ErrBusyClient) {
			t.Fatalf("a's second task at once: %v, want ErrBusyClient", err)
		}
		rb, err := s.Acquire(ctx, "b")
		if err != nil {
			t.Fatalf("b beside a: %v", err)
		}
		rb()
		release()
		if release, err = s.Acquire(ctx, "a"); err != nil {
			t.Fatalf("a after its first task ended: %v", err)
		}
		release()
	})
	t.Run("the queue", func(t *testing.T) {
		s := ratelimit.NewSlots(1, 5, 1)
		release, err := s.Acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		// b waits in the queue's one place for the slot a holds.
		queued := make(chan func(), 1)
		go func() {
			for {
				r, err := s.Acquire(ctx, "b")
				if err == nil {
					queued <- r
					return
				}
				time.Sleep(time.Millisecond) // a probe below had the place for a moment
			}
		}()
		// Once b waits, c is refused at once, not queued.
		for deadline := time.Now().Add(10 * time.Second); ; {
			probe, cancel := context.WithTimeout(ctx, time.Millisecond)
			_, err := s.Acquire(probe, "c")
			cancel()
			if errors.Is(err, ratelimit.ErrBusy) && !errors.Is(err, context.DeadlineExceeded) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("c with the slot taken and b queued: %v, want ErrBusy at once", err)
			}
		}
		release()
		(<-queued)()
		// A caller waiting past its deadline leaves the queue.
		release, _ = s.Acquire(ctx, "a")
		gone, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		if _, err := s.Acquire(gone, "b"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiting past its deadline: %v, want ErrBusy and the deadline", err)
		}
		release()
		r, err := s.Acquire(ctx, "b")
		if err != nil {
			t.Fatalf("with every slot free again: %v", err)
		}
		r()
	})
}

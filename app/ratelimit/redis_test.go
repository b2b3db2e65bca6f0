package ratelimit_test

import (
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/app/ratelimit"
)

// Every key the Redis limiter writes expires, whichever way the request that made it went: an
// admitted one, one refused by a full day, one refused with no room at all, and a flood of
// refusals; and the counts stay those of the suite's other tests (an admitted request is counted
// once, a refused one gives its room back).
func TestRedisLimiterKeysAllExpire(t *testing.T) {
	url := testenv.RedisURL(t)
	client := testenv.RedisClient(t, url)
	prefix := testenv.RedisPrefix(t)
	clock := testenv.NewClock(time.Date(2030, 1, 2, 10, 20, 30, 0, time.UTC))
	l := ratelimit.NewRedis(client, prefix, clock.Now)

	take := func(who string, lim ratelimit.Limits) ratelimit.Decision {
		t.Helper()
		d, err := l.Take(ctx, who, lim, 0)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := take("admitted", ratelimit.Limits{PerMinute: 5, PerDay: 10}); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("first request: %+v", d)
	}
	for range 3 {
		take("day-full", ratelimit.Limits{PerMinute: 5, PerDay: 3})
	}
	clock.Advance(time.Minute) // a new minute of the same day: its first request finds the day full
	if d := take("day-full", ratelimit.Limits{PerMinute: 5, PerDay: 3}); d.Allowed || !d.DayFull || d.Refused != 1 {
		t.Fatalf("fourth request of a day of 3, in a new minute: %+v", d)
	}
	if d := take("no-room", ratelimit.Limits{PerMinute: 0, PerDay: 0}); d.Allowed || d.Refused != 1 || d.Remaining != 0 {
		t.Fatalf("a request with no room at all: %+v", d)
	}
	for i := 1; i <= 20; i++ {
		if d := take("flood", ratelimit.Limits{PerMinute: 2, PerDay: 100}); d.Allowed != (i <= 2) || d.Refused != max(i-2, 0) {
			t.Fatalf("request %d of a flood against 2 a minute: %+v", i, d)
		}
	}
	if u, err := l.Usage(ctx, "flood"); err != nil || u != (ratelimit.Usage{Minute: 2, Day: 2}) {
		t.Fatalf("the flood's usage: %+v, %v; want 2 admitted in the minute and the day", u, err)
	}

	keys, err := client.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 9 {
		t.Fatalf("keys %v: want the minute, day and totals keys the requests made", keys)
	}
	for _, k := range keys {
		ttl, err := client.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 {
			t.Errorf("key %s: expiry %v, %v; want one", k, ttl, err)
		}
	}
}

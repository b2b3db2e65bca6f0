// Package ratelimit counts requests per client in two fixed windows, the UTC minute and the UTC
// day, and attempts per key against a budget (TakeAttempt), behind one interface: Memory counts
// in this process, Redis counts for every instance that shares it, and Fallback uses Redis while
// it answers and Memory while it does not. Slots bounds costly work in flight in one process.
//
// A request is admitted only when both windows have room, and only an admitted request uses
// them up; a refused one is counted among the client's refusals of the minute (which is what
// temporary bans are decided on). Each request names the client's epoch: when it grows (a lifted
// ban), the refusals counted before it are forgotten. Windows are aligned to the clock: the minute window resets
// at every whole minute, the day window at 00:00 UTC, so the reset time of a window is exact
// and a client that waits for it is admitted.
package ratelimit

import (
	"context"
	"strconv"
	"time"
)

// Limits are how many requests a client may send per minute and per day.
type Limits struct {
	PerMinute int
	PerDay    int
}

// Decision is the answer to one request.
type Decision struct {
	Allowed bool
	// Limit, Remaining and Reset describe the window with the fewest requests remaining (the
	// minute when tied): the X-RateLimit-* headers.
	Limit     int
	Remaining int
	Reset     time.Time
	// RetryAfter, on a refused request, is the wait until every full window has reset, in
	// whole seconds (at least one).
	RetryAfter time.Duration
	// DayFull, on a refused request, says the day's limit refused it (so it waits for 00:00 UTC);
	// otherwise the minute's did.
	DayFull bool
	// Refused counts the client's refused requests in the current minute, this one included,
	// since its epoch last grew.
	Refused int
}

// Usage is what a client was admitted in the current minute and UTC day.
type Usage struct {
	Minute int
	Day    int
}

// Traffic is what every client sent today (UTC): admitted requests and refused ones.
type Traffic struct {
	Admitted int
	Refused  int
}

// Limiter counts requests. Implementations are safe for concurrent use and exact under
// concurrency: of N simultaneous requests against a limit of L, exactly min(N, L) are admitted.
type Limiter interface {
	// Take counts one request of client against both windows of l. A larger epoch than the
	// client's last one starts the minute's refusals again from zero; a smaller one (an instance
	// that has not heard of the change yet) counts as the current one.
	Take(ctx context.Context, client string, l Limits, epoch int64) (Decision, error)
	// Usage is the client's admitted requests in the current windows.
	Usage(ctx context.Context, client string) (Usage, error)
	// Today is the day's traffic over all clients.
	Today(ctx context.Context) (Traffic, error)
	// CountRefused adds a request refused before it reached the limiter (a banned key's) to
	// today's refusals.
	CountRefused(ctx context.Context) error
	// TakeAttempt counts one attempt of key against b before the attempt is made, and refuses
	// it when b has none left: of N simultaneous attempts, exactly min(N, room left) are allowed.
	TakeAttempt(ctx context.Context, key string, b Budget) (Attempt, error)
	// ForgetAttempts drops key's count: what the attempts guarded against did not happen (the
	// password was right).
	ForgetAttempts(ctx context.Context, key string) error
	// Ready reports whether the counters are shared as configured; an error means the limiter
	// still answers, from this instance's own counters.
	Ready(ctx context.Context) error
}

// KeyClient names an API key's counters.
func KeyClient(id int64) string { return "key:" + strconv.FormatInt(id, 10) }

// IPClient names the counters of requests from ip that carry no valid key: one for an IPv4
// address, one for an IPv6 /64 (AddressClient).
func IPClient(ip string) string { return "ip:" + AddressClient(ip) }

// windowsAt returns the numbers of the minute and the UTC day that hold t.
func windowsAt(t time.Time) (minute, day int64) {
	s := t.Unix()
	return s / 60, s / 86400
}

// decide turns the counts after a request (m and d admitted in the minute and the day, r
// refused in the minute) into the Decision.
func decide(t time.Time, l Limits, allowed bool, m, d, r int) Decision {
	minute, day := windowsAt(t)
	minuteEnd, dayEnd := time.Unix((minute+1)*60, 0), time.Unix((day+1)*86400, 0)
	dec := Decision{Allowed: allowed, Limit: l.PerMinute, Remaining: max(l.PerMinute-m, 0), Reset: minuteEnd, Refused: r}
	if rd := max(l.PerDay-d, 0); rd < dec.Remaining {
		dec.Limit, dec.Remaining, dec.Reset = l.PerDay, rd, dayEnd
	}
	if !allowed {
		until := minuteEnd
		if d >= l.PerDay {
			until, dec.DayFull = dayEnd, true
		}
		dec.RetryAfter = CeilSeconds(until.Sub(t))
	}
	return dec
}

// CeilSeconds rounds d up to whole seconds, at least one: a client that waits that long is
// past the moment it waits for.
func CeilSeconds(d time.Duration) time.Duration {
	s := (d + time.Second - 1) / time.Second
	if s < 1 {
		s = 1
	}
	return s * time.Second
}

package ratelimit

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Memory counts in this process. Counters live until the UTC day ends, so memory grows with
// the number of distinct clients (keys and IPs) seen in a day, about 100 bytes each.
type Memory struct {
	now func() time.Time

	mu      sync.Mutex
	clients map[string]*counts
	day     int64
	today   Traffic

	attempts attemptCounts
}

type counts struct {
	minute  int64
	m       int // admitted in minute
	refused int // refused in minute, since epoch
	d       int // admitted in day
	epoch   int64
}

// NewMemory returns a limiter that reads the time from now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: now, clients: map[string]*counts{}}
}

// Take implements Limiter.
func (l *Memory) Take(_ context.Context, client string, lim Limits, epoch int64) (Decision, error) {
	t := l.now()
	minute, day := windowsAt(t)
	l.mu.Lock()
	l.roll(day)
	c := l.clients[client]
	if c == nil {
		c = &counts{minute: minute}
		l.clients[strings.Clone(client)] = c
	}
	if c.minute != minute {
		c.minute, c.m, c.refused = minute, 0, 0
	}
	if epoch > c.epoch {
		c.epoch, c.refused = epoch, 0
	}
	allowed := c.m < lim.PerMinute && c.d < lim.PerDay
	if allowed {
		c.m++
		c.d++
		l.today.Admitted++
	} else {
		c.refused++
		l.today.Refused++
	}
	m, d, r := c.m, c.d, c.refused
	l.mu.Unlock()
	return decide(t, lim, allowed, m, d, r), nil
}

// roll starts a new day: every counter of the last one is over, so all are dropped, and the
// counters left all belong to the current day.
func (l *Memory) roll(day int64) {
	if day != l.day {
		l.day, l.today = day, Traffic{}
		clear(l.clients)
	}
}

// Usage implements Limiter.
func (l *Memory) Usage(_ context.Context, client string) (Usage, error) {
	minute, day := windowsAt(l.now())
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(day)
	var u Usage
	if c := l.clients[client]; c != nil {
		u.Day = c.d
		if c.minute == minute {
			u.Minute = c.m
		}
	}
	return u, nil
}

// Today implements Limiter.
func (l *Memory) Today(context.Context) (Traffic, error) {
	_, day := windowsAt(l.now())
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(day)
	return l.today, nil
}

// CountRefused implements Limiter.
func (l *Memory) CountRefused(context.Context) error {
	_, day := windowsAt(l.now())
	l.mu.Lock()
	l.roll(day)
	l.today.Refused++
	l.mu.Unlock()
	return nil
}

// Ready implements Limiter: counting in memory always works.
func (l *Memory) Ready(context.Context) error { return nil }

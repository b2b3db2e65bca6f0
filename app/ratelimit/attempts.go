package ratelimit

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Budget is how many attempts at something costly or guessable (a password check) a key may
// make: Max in a window that starts with the key's first attempt and lasts Window. The attempt
// that takes the last of them starts a lock-out of Lockout instead (when longer than what is
// left of the window): the key is refused until it ends.
type Budget struct {
	Max     int
	Window  time.Duration
	Lockout time.Duration
}

// Attempt is the answer to one attempt.
type Attempt struct {
	Allowed bool
	// Taken counts the key's attempts in its window, this one included when it was allowed.
	Taken int
	// Last says this attempt took the budget's last one: from now on the key is locked out.
	Last bool
	// RetryAfter, on a refused attempt, is the wait until the key may try again, in whole
	// seconds (at least one).
	RetryAfter time.Duration
}

// AddressClient is the part of an address that names one client: an IPv4 address whole, an
// IPv6 address by its /64, the smallest network a subscriber is given (so rotating through the
// addresses of one's own network is no way around a per-address limit). What is not an address
// is returned unchanged.
func AddressClient(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

// attemptCounts is Memory's record of the keys' attempts. Expired entries are dropped when the
// map has doubled since the last sweep, so it holds about twice the keys of the last window.
type attemptCounts struct {
	mu        sync.Mutex
	keys      map[string]*attemptCount
	sweepSize int
}

type attemptCount struct {
	n       int
	expires time.Time
}

// TakeAttempt implements Limiter.
func (l *Memory) TakeAttempt(_ context.Context, key string, b Budget) (Attempt, error) {
	now := l.now()
	a := &l.attempts
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keys == nil {
		a.keys, a.sweepSize = map[string]*attemptCount{}, 1024
	}
	c := a.keys[key]
	if c != nil && !now.Before(c.expires) {
		c = nil
	}
	if c == nil {
		if len(a.keys) >= a.sweepSize {
			for k, e := range a.keys {
				if !now.Before(e.expires) {
					delete(a.keys, k)
				}
			}
			a.sweepSize = max(1024, 2*len(a.keys))
		}
		c = &attemptCount{expires: now.Add(b.Window)}
		a.keys[key] = c
	}
	if c.n >= b.Max {
		return Attempt{Taken: c.n, RetryAfter: CeilSeconds(c.expires.Sub(now))}, nil
	}
	c.n++
	last := c.n == b.Max
	if last && now.Add(b.Lockout).After(c.expires) {
		c.expires = now.Add(b.Lockout)
	}
	return Attempt{Allowed: true, Taken: c.n, Last: last}, nil
}

// ForgetAttempts implements Limiter.
func (l *Memory) ForgetAttempts(_ context.Context, key string) error {
	l.attempts.mu.Lock()
	delete(l.attempts.keys, key)
	l.attempts.mu.Unlock()
	return nil
}

// attemptScript: KEYS the key's hash {n: attempts taken, u: when its window or lock-out ends,
// Unix ms}; ARGV now (Unix ms), budget, window ms, lock-out ms. Returns {allowed, taken, last, ms
// left when refused}. The times are the caller's clock, as the request windows' are; the key
// expires a minute after its window, so a clock a little behind still finds it.
var attemptScript = redis.NewScript(`
local now, max = tonumber(ARGV[1]), tonumber(ARGV[2])
local h = redis.call('HMGET', KEYS[1], 'n', 'u')
local n, u = tonumber(h[1] or '0'), tonumber(h[2] or '0')
if u <= now then
  n, u = 0, now + tonumber(ARGV[3])
end
if n >= max then
  return {0, n, 0, u - now}
end
n = n + 1
local last = 0
if n == max then
  last = 1
  if now + tonumber(ARGV[4]) > u then u = now + tonumber(ARGV[4]) end
end
redis.call('HSET', KEYS[1], 'n', n, 'u', u)
redis.call('PEXPIRE', KEYS[1], u - now + 60000)
return {1, n, last, 0}
`)

func (l *Redis) attemptKey(key string) string { return l.prefix + "a:" + key }

// TakeAttempt implements Limiter.
func (l *Redis) TakeAttempt(ctx context.Context, key string, b Budget) (Attempt, error) {
	res, err := attemptScript.Run(ctx, l.client, []string{l.attemptKey(key)}, l.now().UnixMilli(), b.Max,
		b.Window.Milliseconds(), b.Lockout.Milliseconds()).Int64Slice()
	if err != nil {
		return Attempt{}, err
	}
	if len(res) != 4 {
		return Attempt{}, errors.New("ratelimit: unexpected reply from the Redis attempt script")
	}
	a := Attempt{Allowed: res[0] == 1, Taken: int(res[1]), Last: res[2] == 1}
	if !a.Allowed {
		a.RetryAfter = CeilSeconds(time.Duration(res[3]) * time.Millisecond)
	}
	return a, nil
}

// ForgetAttempts implements Limiter.
func (l *Redis) ForgetAttempts(ctx context.Context, key string) error {
	return l.client.Del(ctx, l.attemptKey(key)).Err()
}

// TakeAttempt implements Limiter.
func (f *Fallback) TakeAttempt(ctx context.Context, key string, b Budget) (Attempt, error) {
	if f.usePrimary() {
		a, err := f.primary.TakeAttempt(ctx, key, b)
		if err == nil {
			f.answered()
			return a, nil
		}
		f.failed(err)
	}
	return f.local.TakeAttempt(ctx, key, b)
}

// ForgetAttempts implements Limiter: both counts are forgotten, since attempts made while Redis
// was down were counted here.
func (f *Fallback) ForgetAttempts(ctx context.Context, key string) error {
	_ = f.local.ForgetAttempts(ctx, key)
	if f.usePrimary() {
		err := f.primary.ForgetAttempts(ctx, key)
		if err == nil {
			f.answered()
			return nil
		}
		f.failed(err)
	}
	return nil
}

// ErrBusy and ErrBusyClient are Slots' refusals: every slot is taken and the queue is full, or
// this client already holds its share.
var (
	ErrBusy       = errors.New("ratelimit: every slot is taken")
	ErrBusyClient = errors.New("ratelimit: this client holds all the slots it may")
)

// Slots bounds costly work in flight in this process (password checks, which take a core for
// tens of milliseconds each): at most total at once, at most perClient of them (queued ones
// included) for one client, and at most queue callers waiting for a slot. A caller that cannot
// have one is refused at once rather than queued without bound.
type Slots struct {
	run       chan struct{}
	wait      chan struct{}
	perClient int

	mu      sync.Mutex
	clients map[string]int
}

// NewSlots returns Slots for total tasks at once, perClient for one client, queue waiting.
func NewSlots(total, perClient, queue int) *Slots {
	return &Slots{run: make(chan struct{}, total), wait: make(chan struct{}, total+queue),
		perClient: perClient, clients: map[string]int{}}
}

// Acquire takes a slot for client, waiting until ctx ends for one to be free (then the error is
// ErrBusy and ctx's). The caller calls release when its work is done.
func (s *Slots) Acquire(ctx context.Context, client string) (release func(), err error) {
	s.mu.Lock()
	if s.clients[client] >= s.perClient {
		s.mu.Unlock()
		return nil, ErrBusyClient
	}
	s.clients[client]++
	s.mu.Unlock()
	leave := func() {
		s.mu.Lock()
		if s.clients[client]--; s.clients[client] == 0 {
			delete(s.clients, client)
		}
		s.mu.Unlock()
	}
	select {
	case s.wait <- struct{}{}:
	default:
		leave()
		return nil, ErrBusy
	}
	select {
	case s.run <- struct{}{}:
	case <-ctx.Done():
		<-s.wait
		leave()
		return nil, errors.Join(ErrBusy, ctx.Err())
	}
	return func() {
		<-s.run
		<-s.wait
		leave()
	}, nil
}

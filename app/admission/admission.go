// Package admission decides whether an API request may run, and says what its answer must
// carry: it authenticates the API key (through a cache that hears of every change of a key),
// counts the request against the key's plan or, without a valid key, against the client IP at
// the Free plan's limits, bans a key that keeps sending after its 429s, and checks scopes. The
// HTTP layer only reads the header and writes the outcome.
package admission

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/petstore/petstore/app/ratelimit"
	"github.com/petstore/petstore/models"
)

// Config is what a Gate works with.
type Config struct {
	Keys    *models.APIKeyStore
	Limiter ratelimit.Limiter
	// Now is the service's one clock: windows, bans, expiry and the cache.
	Now func() time.Time
	// CacheTTL bounds how long a key is trusted without news of it (DefaultCacheTTL when zero).
	CacheTTL time.Duration
	// A key whose refused requests within one minute reach BanThreshold times its per-minute
	// limit is banned for BanDuration.
	BanThreshold float64
	BanDuration  time.Duration
	Log          *slog.Logger
}

// Gate admits or refuses requests.
type Gate struct {
	cfg       Config
	cache     *keyCache
	anonymous ratelimit.Limits
}

// New returns a gate. Every change the key store makes reaches its cache at once; changes made
// by other processes reach it through Forget.
func New(cfg Config) *Gate {
	g := &Gate{cfg: cfg, cache: newKeyCache(cfg.Keys, cfg.Now, cfg.CacheTTL), anonymous: limitsOf(models.AnonymousLimits)}
	cfg.Keys.OnChange(g.Forget)
	return g
}

// Forget drops what the gate knows of key id (of every key when id is 0): the next request
// with it reads it from the database.
func (g *Gate) Forget(id int64) { g.cache.forget(id) }

// Peer is the client at the other end of a request (a *fiber.Ctx is one).
type Peer interface{ IP() string }

// Request is what the gate needs to know of a request.
type Request struct {
	// Token is the bearer token; empty when the request sent none.
	Token string
	// Peer gives the client's address, whose counters a request without a valid key uses; it
	// is asked only then.
	Peer Peer
	// RequestID names the request in log lines.
	RequestID string
}

// Outcome is the gate's decision and what the answer must carry.
type Outcome struct {
	// Key is the admitted key; the zero key when Err is set.
	Key models.APIKey
	// Err refuses the request: missing_api_key, invalid_api_key, rate_limit_exceeded,
	// api_key_banned, or the failure of the database or the limiter.
	Err error
	// Counted says the request was counted, and Limit, Remaining and Reset describe the window
	// it was counted in (the X-RateLimit-* headers).
	Counted   bool
	Limit     int
	Remaining int
	Reset     time.Time
	// RetryAfter, on a 429, is how long to wait.
	RetryAfter time.Duration
	// Banned says this request banned its key.
	Banned bool
}

var errMissingKey = &models.Error{Code: models.EMissingAPIKey,
	Message: "an API key is required: send it as Authorization: Bearer <key>"}

// Admit authenticates and counts one request. A request with a valid key counts against its
// key's plan; one without (no key, or an unknown, revoked or expired one) counts against its
// client IP at the Free plan's limits and is refused. A key whose refused requests in one
// minute reach the ban threshold is banned.
func (g *Gate) Admit(ctx context.Context, r Request) Outcome {
	if r.Token == "" {
		return g.refuse(ctx, r, errMissingKey)
	}
	pk, err := models.ParsePresentedKey(r.Token)
	if err != nil {
		return g.refuse(ctx, r, err)
	}
	key, err := g.cache.authenticate(ctx, pk)
	if err != nil {
		// An invalid key, or a database that could not say: either way the client IP's window
		// gives the headers.
		return g.refuse(ctx, r, err)
	}

	now := g.cfg.Now()
	if key.Banned(now) {
		return g.banned(ctx, key, now)
	}
	limits := limitsOf(key.Limits())
	dec, err := g.cfg.Limiter.Take(ctx, ratelimit.KeyClient(key.ID), limits, int64(key.Unbans))
	if err != nil {
		return Outcome{Err: err}
	}
	out := counted(dec)
	if !dec.Allowed {
		// Exactly one refusal reaches the threshold in a minute, on one instance even when
		// several share the counters, so a ban is written once.
		if dec.Refused == banThreshold(g.cfg.BanThreshold, limits.PerMinute) {
			b, err := g.cfg.Keys.Ban(ctx, key.ID, now.Add(g.cfg.BanDuration))
			if err == nil {
				g.cfg.Log.Warn("API key banned", "request_id", r.RequestID, "key_id", key.ID,
					"key_prefix", key.Prefix, "until", b.BannedUntil.UTC().Format(time.RFC3339))
				out = g.banned(ctx, *b, now)
				out.Banned = true
				return out
			}
			g.cfg.Log.Error("API key ban not stored", "request_id", r.RequestID, "key_id", key.ID, "error", err.Error())
		}
		out.Err = rateLimited(dec, limits)
		return out
	}
	g.cfg.Keys.Touch(key.ID)
	out.Key = key
	return out
}

// refuse counts a request without a valid key against its client IP and refuses it with
// cause, or with a 429 when the IP is over its limits.
func (g *Gate) refuse(ctx context.Context, r Request, cause error) Outcome {
	dec, err := g.cfg.Limiter.Take(ctx, ratelimit.IPClient(r.Peer.IP()), g.anonymous, 0)
	if err != nil {
		return Outcome{Err: err}
	}
	out := counted(dec)
	out.Err = cause
	if !dec.Allowed {
		out.Err = rateLimited(dec, g.anonymous)
	}
	return out
}

// banned answers a banned key: refused until the ban ends, with nothing left in any window.
func (g *Gate) banned(ctx context.Context, key models.APIKey, now time.Time) Outcome {
	until := *key.BannedUntil
	wait := ratelimit.CeilSeconds(until.Sub(now))
	if err := g.cfg.Limiter.CountRefused(ctx); err != nil {
		g.cfg.Log.Warn("rate limiter: refusal not counted", "error", err.Error())
	}
	return Outcome{Counted: true, Limit: key.Limits().PerMinute, Remaining: 0, Reset: now.Add(wait), RetryAfter: wait,
		Err: &models.Error{Code: models.EBanned,
			Message: "this API key is banned until " + until.UTC().Format(time.RFC3339) +
				" for sending requests after its rate limit was exceeded"}}
}

func counted(dec ratelimit.Decision) Outcome {
	return Outcome{Counted: true, Limit: dec.Limit, Remaining: dec.Remaining, Reset: dec.Reset, RetryAfter: dec.RetryAfter}
}

func rateLimited(dec ratelimit.Decision, l ratelimit.Limits) error {
	secs := int64(dec.RetryAfter / time.Second)
	limit, window := l.PerMinute, "minute"
	if dec.DayFull {
		limit, window = l.PerDay, "day"
	}
	return &models.Error{Code: models.ERateLimited,
		Message: "rate limit exceeded: " + strconv.Itoa(limit) + " requests per " + window +
			"; retry after " + strconv.FormatInt(secs, 10) + " seconds"}
}

// banThreshold is the number of refusals within one minute that bans a key.
func banThreshold(factor float64, perMinute int) int {
	return max(int(math.Ceil(factor*float64(perMinute))), 1)
}

func limitsOf(l models.Limits) ratelimit.Limits {
	return ratelimit.Limits{PerMinute: l.PerMinute, PerDay: l.PerDay}
}

// RequireScope refuses a key whose scopes lack scope with insufficient_scope: the one check of
// every operation's scope. It runs after Admit, so the refused request has been counted.
func RequireScope(scopes models.ScopeSet, scope models.Scope) error {
	if scopes.Has(scope) {
		return nil
	}
	return &models.Error{Code: models.EInsufficientScope,
		Message: "this operation needs the scope " + string(scope) + ", which the API key does not have"}
}

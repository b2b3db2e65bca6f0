package routes

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes/ratelimit"
)

// RFC 6750 challenges: the first when no key was sent, the second when the key is not valid.
const (
	challengeMissing = `Bearer realm="petstore"`
	challengeInvalid = `Bearer realm="petstore", error="invalid_token"`
)

var errMissingKey = &models.Error{Code: models.EMissingAPIKey,
	Message: "an API key is required: send it as Authorization: Bearer <key>"}

// authenticate puts the gate in front of every /v1 route.
func authenticate(check func(*fiber.Ctx) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := check(c); err != nil {
			return err
		}
		return c.Next()
	}
}

// gate authenticates and counts one /v1 request; a nil error lets it through. A request with a
// valid key counts against its key's plan; one without (no key, or an unknown, revoked or
// expired one) counts against its client IP at the Free plan's limits and answers 401. Either
// way the response, whatever its status, carries the X-RateLimit-* headers of the window it
// counted in. A key whose refused requests in one minute reach the ban threshold is banned.
// The error handler also runs it on a /v1 request the HTTP server refused on its own before any
// middleware (a body over the limit), so that answer is counted and carries the headers too.
func gate(d Deps) func(c *fiber.Ctx) error {
	keys, lim := d.Keys, d.Limiter
	anonymous := limitsOf(models.AnonymousLimits)
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		refuse := func(cause error, challenge string) error {
			dec, err := lim.Take(ctx, ratelimit.IPClient(c.IP()), anonymous)
			if err != nil {
				return err
			}
			setRateLimitHeaders(c, dec.Limit, dec.Remaining, dec.Reset)
			if !dec.Allowed {
				d.Metrics.RateLimitRefused(models.ERateLimited)
				return rateLimited(c, dec, anonymous)
			}
			if challenge != "" {
				c.Set(fiber.HeaderWWWAuthenticate, challenge)
			}
			return cause
		}

		token, ok := bearerToken(c.Get(fiber.HeaderAuthorization))
		if !ok {
			return refuse(errMissingKey, challengeMissing)
		}
		pk, err := models.ParsePresentedKey(token)
		if err != nil {
			return refuse(err, challengeInvalid)
		}
		key, err := keys.Authenticate(ctx, pk)
		if err != nil {
			if models.ErrorCode(err) == models.EInvalidAPIKey {
				return refuse(err, challengeInvalid)
			}
			// The database could not say; the client IP's window still gives the headers.
			return refuse(err, "")
		}

		now := keys.Now()
		if key.Banned(now) {
			return banned(c, d, &key, now)
		}
		limits := limitsOf(key.Limits())
		dec, err := lim.Take(ctx, ratelimit.KeyClient(key.ID), limits)
		if err != nil {
			return err
		}
		setRateLimitHeaders(c, dec.Limit, dec.Remaining, dec.Reset)
		if !dec.Allowed {
			// Exactly one refusal reaches the threshold in a minute, on one instance even when
			// several share the counters, so a ban is written once; after an unban, the rest of
			// that minute's refusals do not ban again.
			if dec.Refused == banThreshold(d.BanThreshold, limits.PerMinute) {
				b, err := keys.Ban(ctx, key.ID, now.Add(d.BanDuration))
				if err == nil {
					d.Metrics.KeyBanned()
					d.Log.Warn("API key banned", "request_id", requestID(c), "key_id", key.ID,
						"key_prefix", key.Prefix, "until", b.BannedUntil.UTC().Format(time.RFC3339))
					return banned(c, d, b, now)
				}
				d.Log.Error("API key ban not stored", "request_id", requestID(c), "key_id", key.ID, "error", err.Error())
			}
			d.Metrics.RateLimitRefused(models.ERateLimited)
			return rateLimited(c, dec, limits)
		}
		keys.Touch(key.ID)
		setCallerKeyID(c, key.ID)
		return nil
	}
}

// bearerToken reads the key from an Authorization header; any other scheme counts as no key.
func bearerToken(header string) (string, bool) {
	const scheme = "bearer "
	if len(header) <= len(scheme) || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", false
	}
	token := strings.TrimSpace(header[len(scheme):])
	return token, token != ""
}

// banThreshold is the number of refusals within one minute that bans a key.
func banThreshold(factor float64, perMinute int) int {
	return max(int(math.Ceil(factor*float64(perMinute))), 1)
}

func limitsOf(l models.Limits) ratelimit.Limits {
	return ratelimit.Limits{PerMinute: l.PerMinute, PerDay: l.PerDay}
}

func rateLimited(c *fiber.Ctx, dec ratelimit.Decision, l ratelimit.Limits) error {
	secs := int64(dec.RetryAfter / time.Second)
	setInt(c, fiber.HeaderRetryAfter, secs)
	limit, window := l.PerMinute, "minute"
	if dec.DayFull {
		limit, window = l.PerDay, "day"
	}
	return &models.Error{Code: models.ERateLimited,
		Message: "rate limit exceeded: " + strconv.Itoa(limit) + " requests per " + window +
			"; retry after " + strconv.FormatInt(secs, 10) + " seconds"}
}

// banned answers a banned key: 429 until the ban ends, with nothing left in any window.
func banned(c *fiber.Ctx, d Deps, key *models.APIKey, now time.Time) error {
	until := *key.BannedUntil
	wait := ratelimit.CeilSeconds(until.Sub(now))
	setRateLimitHeaders(c, key.Limits().PerMinute, 0, now.Add(wait))
	setInt(c, fiber.HeaderRetryAfter, int64(wait/time.Second))
	if err := d.Limiter.CountRefused(c.UserContext()); err != nil {
		d.Log.Warn("rate limiter: refusal not counted", "error", err.Error())
	}
	d.Metrics.RateLimitRefused(models.EBanned)
	return &models.Error{Code: models.EBanned,
		Message: "this API key is banned until " + until.UTC().Format(time.RFC3339) +
			" for sending requests after its rate limit was exceeded"}
}

func setRateLimitHeaders(c *fiber.Ctx, limit, remaining int, reset time.Time) {
	setInt(c, "X-RateLimit-Limit", int64(limit))
	setInt(c, "X-RateLimit-Remaining", int64(remaining))
	setInt(c, "X-RateLimit-Reset", reset.Unix())
}

func setInt(c *fiber.Ctx, header string, n int64) {
	var buf [20]byte
	c.Response().Header.SetBytesV(header, strconv.AppendInt(buf[:0], n, 10))
}

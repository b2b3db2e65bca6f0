package routes

import (
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/admission"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
)

// RFC 6750 challenges: when no key was sent, when the key is not valid, and when the key lacks
// the operation's scope.
const (
	challengeMissing = `Bearer realm="petstore"`
	challengeInvalid = `Bearer realm="petstore", error="invalid_token"`
)

func challengeScope(scope models.Scope) string {
	return `Bearer realm="petstore", error="insufficient_scope", scope="` + string(scope) + `"`
}

// authenticate puts the gate in front of every /v1 route.
func authenticate(check func(*fiber.Ctx) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := check(c); err != nil {
			return err
		}
		return c.Next()
	}
}

// admit asks the admission gate about one /v1 request and writes what its answer must carry:
// the X-RateLimit-* headers of the window it was counted in (whatever its status), Retry-After
// on a 429, the challenge on a 401. A nil error lets it through. The error handler also runs it
// on a /v1 request the HTTP server refused on its own before any middleware (a body over the
// limit), so that answer is counted and carries the headers too.
func admit(gate *admission.Gate, m *metrics.Metrics) func(c *fiber.Ctx) error {
	return func(c *fiber.Ctx) error {
		token, _ := bearerToken(c.Get(fiber.HeaderAuthorization))
		out := gate.Admit(c.UserContext(), admission.Request{Token: token, Peer: c, RequestID: requestID(c)})
		if out.Counted {
			setRateLimitHeaders(c, out.Limit, out.Remaining, out.Reset)
		}
		if out.Err == nil {
			setCaller(c, out.Key)
			return nil
		}
		switch code := models.ErrorCode(out.Err); code {
		case models.ERateLimited, models.EBanned:
			setInt(c, fiber.HeaderRetryAfter, int64(out.RetryAfter/time.Second))
			m.RateLimitRefused(code)
		case models.EMissingAPIKey:
			c.Set(fiber.HeaderWWWAuthenticate, challengeMissing)
		case models.EInvalidAPIKey:
			c.Set(fiber.HeaderWWWAuthenticate, challengeInvalid)
		}
		if out.Banned {
			m.KeyBanned()
		}
		return out.Err
	}
}

// need declares the scope an operation needs; routes.go puts it before each /v1 handler.
func need(scope models.Scope) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := admission.RequireScope(callerScopes(c), scope); err != nil {
			c.Set(fiber.HeaderWWWAuthenticate, challengeScope(scope))
			return err
		}
		return c.Next()
	}
}

// needAny declares that an operation needs one of several scopes (listEvents: what a key may
// read of the events depends on which it has). A key with none is answered 403 naming them all.
func needAny(scopes ...models.Scope) fiber.Handler {
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = string(sc)
	}
	challenge := challengeScope(models.Scope(strings.Join(names, " ")))
	message := "this operation needs one of the scopes " + strings.Join(names, ", ") + ", and the API key has none of them"
	return func(c *fiber.Ctx) error {
		have := callerScopes(c)
		for _, sc := range scopes {
			if have.Has(sc) {
				return c.Next()
			}
		}
		c.Set(fiber.HeaderWWWAuthenticate, challenge)
		return &models.Error{Code: models.EInsufficientScope, Message: message}
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

func setRateLimitHeaders(c *fiber.Ctx, limit, remaining int, reset time.Time) {
	setInt(c, "X-RateLimit-Limit", int64(limit))
	setInt(c, "X-RateLimit-Remaining", int64(remaining))
	setInt(c, "X-RateLimit-Reset", reset.Unix())
}

func setInt(c *fiber.Ctx, header string, n int64) {
	var buf [20]byte
	c.Response().Header.SetBytesV(header, strconv.AppendInt(buf[:0], n, 10))
}

package routes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

const (
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
	// idempotencyKeyPattern is the Idempotency-Key header's syntax, published as the header's
	// pattern in the API document (tools/openapigen reads it from here): 1 to 255 visible ASCII
	// characters, bare or as the IETF draft's quoted string. An empty quoted string is no key.
	idempotencyKeyPattern = `^(?:[!-~]{1,255}|"[!-~]{1,255}")$`
)

var idempotencyKeySyntax = regexp.MustCompile(idempotencyKeyPattern)

// An Idempotency-Key makes a creating POST safe to retry. The first request under a key runs and
// its response is kept; a retry with the same request replays it with Idempotent-Replayed: true
// and runs nothing; the same key with another request answers 422; a retry while the first still
// runs answers 409.
//
// Which responses are kept: the outcome of the operation (2xx, and 404 or 409 from the
// database's state at that moment) is stored and replayed for 24 hours, like Stripe does. A
// request refused for its own shape (400, 413, 415) did nothing and is not kept, so a client
// may fix its body and reuse the key; a 5xx is not kept either, so a retry runs again.
//
// The work is split in three. The idempotent middleware reads the key and settles it however
// the request ends. The handler, once it has decoded and defaulted the body, claims the key
// (claimIdempotency): the request is then known exactly, so a retry that spells out a default is
// the same request. A success is kept by the store method in the very transaction that makes the
// change (keepResponse): a crash can never leave a change without its kept response, which a
// retry would make a second time.

type idemLocal struct{}

// idemClaim is a request's Idempotency-Key and, once claimed, its record.
type idemClaim struct {
	records *models.IdempotencyStore
	key     string
	rec     *models.IdempotencyRecord
}

// idempotent reads the Idempotency-Key header and settles the key the handler claims, whatever
// the outcome, a panic included: a key left in flight would answer 409 to every retry until its
// lease runs out.
func idempotent(records *models.IdempotencyStore, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		raw := c.Get(headerIdempotencyKey)
		if raw == "" {
			return c.Next()
		}
		key, err := parseIdempotencyKey(raw)
		if err != nil {
			return err
		}
		claim := &idemClaim{records: records, key: key}
		c.Locals(idemLocal{}, claim)

		// The request's own deadline may be what ended it, so settling gets a deadline of its own.
		settle := func(status int, body []byte, location string) {
			if claim.rec == nil {
				return
			}
			ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 5*time.Second)
			defer cancel()
			var err error
			if keepResponse(status) {
				// A success was kept with its change already; this keeps a refusal.
				err = records.Finish(ctx, claim.rec, status, body, location)
			} else {
				err = records.Release(ctx, claim.rec)
			}
			if err != nil {
				log.Error("idempotency record not saved", "request_id", requestID(c), "path", c.Path(), "error", err.Error())
			}
		}
		settled := false
		defer func() {
			if !settled {
				settle(http.StatusInternalServerError, nil, "")
			}
		}()
		if err := c.Next(); err != nil {
			// Write the error response now, so it can be kept like any other.
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		settled = true
		settle(c.Response().StatusCode(), append([]byte(nil), c.Response().Body()...),
			string(c.Response().Header.Peek(fiber.HeaderLocation)))
		return nil
	}
}

// claimIdempotency claims the request's Idempotency-Key, if it has one, for the request as
// decoded and defaulted. When the key already holds this request's response, it answers with
// that (replayed true) and the handler does nothing more.
func claimIdempotency(c *fiber.Ctx, request any) (replayed bool, err error) {
	claim, _ := c.Locals(idemLocal{}).(*idemClaim)
	if claim == nil {
		return false, nil
	}
	fp, err := fingerprint(c.Method(), c.Route().Path, request)
	if err != nil {
		return false, err
	}
	rec, err := claim.records.Begin(c.UserContext(), callerKeyID(c), claim.key, fp)
	if err != nil {
		if models.ErrorCode(err) == models.EConflict {
			c.Set(fiber.HeaderRetryAfter, "1")
		}
		return false, err
	}
	if rec.InFlight() {
		claim.rec = rec
		return false, nil
	}
	c.Set(headerReplayed, "true")
	if rec.Location != "" {
		c.Location(rec.Location)
	}
	if rec.Status == fiber.StatusCreated {
		c.Set(fiber.HeaderETag, etagOf(rec.Body))
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return true, c.Status(rec.Status).Send(rec.Body)
}

// keptResponse is the 201 answer to a creating request: the body and the new resource's URL.
type keptResponse struct {
	body     []byte
	location string
}

// keepCreated returns the work that keeps the answer to a claimed request in the transaction
// that creates v, or nil when the request has no claimed key. respond renders the answer the
// handler sends.
func keepCreated[T any](c *fiber.Ctx, respond func(*T) (keptResponse, error)) models.Then[T] {
	claim, _ := c.Locals(idemLocal{}).(*idemClaim)
	if claim == nil || claim.rec == nil {
		return nil
	}
	return func(tx *gorm.DB, v *T) error {
		r, err := respond(v)
		if err != nil {
			return err
		}
		return claim.records.Keep(tx, claim.rec, fiber.StatusCreated, r.body, r.location)
	}
}

// sendCreated answers 201 with r, its Location and ETag.
func sendCreated(c *fiber.Ctx, r keptResponse) error {
	c.Location(r.location)
	c.Set(fiber.HeaderETag, etagOf(r.body))
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(fiber.StatusCreated).Send(r.body)
}

func keepResponse(status int) bool {
	switch {
	case status >= 500:
		return false
	case status == http.StatusBadRequest, status == http.StatusRequestEntityTooLarge, status == http.StatusUnsupportedMediaType:
		return false
	}
	return true
}

// parseIdempotencyKey accepts a key as a bare token (as most clients send it) or as the quoted
// string of the IETF draft's structured field.
func parseIdempotencyKey(raw string) (string, error) {
	key := strings.TrimSpace(raw)
	if !idempotencyKeySyntax.MatchString(key) || key == `""` {
		return "", &models.Error{Code: models.EInvalid, Field: headerIdempotencyKey,
			Message: "Idempotency-Key: must be 1 to 255 visible ASCII characters, such as a UUID"}
	}
	if len(key) >= 3 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	return strings.Clone(key), nil
}

// fingerprint identifies a request for its key: the method, the route (so a trailing slash or
// another letter case is the same request), and the decoded body with its defaults filled in, so
// a retry that re-encodes the same JSON (other member order or spacing) or spells out a default
// is still the same request. json.Marshal (it escapes <, > and &, as the encoder before 1.2 did)
// keeps the fingerprints of the keys stored before an upgrade.
func fingerprint(method, route string, request any) (string, error) {
	body, err := json.Marshal(request)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(method + " " + route + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil)), nil
}

package routes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
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

// idempotent makes a creating POST safe to retry (DECISIONS.md "Idempotent creation"). With an
// Idempotency-Key header, the first request under a key runs and its response is stored; a
// retry with the same body replays it with Idempotent-Replayed: true and runs nothing; the
// same key with another body answers 422; a retry while the first still runs answers 409.
//
// Which responses are kept: the outcome of the operation (2xx, and 404 or 409 from the
// database's state at that moment) is stored and replayed for 24 hours, like Stripe does. A
// request refused for its own shape (400, 413, 415) did nothing and is not kept, so a client
// may fix its body and reuse the key; a 5xx is not kept either, so a retry runs again.
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
		rec, err := records.Begin(c.UserContext(), callerKeyID(c), key, fingerprint(c.Method(), c.Route().Path, c.Request().Body()))
		if err != nil {
			if models.ErrorCode(err) == models.EConflict {
				c.Set(fiber.HeaderRetryAfter, "1")
			}
			return err
		}
		if !rec.InFlight() {
			c.Set(headerReplayed, "true")
			if rec.Location != "" {
				c.Location(rec.Location)
			}
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			return c.Status(rec.Status).Send(rec.Body)
		}

		// Settle the key however the request ends, a panic included: a key left in flight
		// would answer 409 to every retry until its lease runs out. The request's own deadline
		// may be what ended it, so settling gets a deadline of its own.
		settle := func(status int, body []byte, location string) {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 5*time.Second)
			defer cancel()
			var err error
			if keepResponse(status) {
				err = records.Finish(ctx, rec, status, body, location)
			} else {
				err = records.Release(ctx, rec)
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
		settle(c.Response().StatusCode(), bytes.Clone(c.Response().Body()),
			string(c.Response().Header.Peek(fiber.HeaderLocation)))
		return nil
	}
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
// another letter case is the same request), and the body in a canonical form, so a retry that re-encodes the same JSON (other key order or spacing) is
// still the same request. Numbers keep their literal text: 1 and 1.0 differ, as they do to
// the handler.
func fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(canonicalJSON(body))
	return hex.EncodeToString(h.Sum(nil))
}

func canonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	if _, err := dec.Token(); err != io.EOF {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

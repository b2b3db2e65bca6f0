package routes

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Conditional requests (RFC 9110). An entity tag is a hash of the exact bytes of an answer, so it
// changes whenever anything the answer says does, on every instance alike. A single Pet or Order
// carries it as a strong tag (byte for byte; such answers are too small to be compressed, see
// negotiateCoding); a list, as a weak one.
func etagOf(body []byte) string { return string(appendETag(nil, body, false)) }

// appendETag appends body's entity tag to dst, weak (W/"…") or strong.
func appendETag(dst, body []byte, weak bool) []byte {
	sum := sha256.Sum256(body)
	if weak {
		dst = append(dst, "W/"...)
	}
	dst = append(dst, '"')
	dst = base64.RawURLEncoding.AppendEncode(dst, sum[:16])
	return append(dst, '"')
}

// sendJSON answers v with its ETag (weak for a list), or with 304 Not Modified and no body when
// the request's If-None-Match names it.
func sendJSON(c *fiber.Ctx, status int, v any, weak bool) error {
	body, err := models.EncodeJSON(v)
	if err != nil {
		return err
	}
	etag := appendETag(nil, body, weak)
	c.Response().Header.SetBytesV(fiber.HeaderETag, etag)
	if status == fiber.StatusOK && (c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead) {
		if header := c.Get(fiber.HeaderIfNoneMatch); header != "" {
			if tags, ok := parseETags(header); ok && matchesAny(tags, string(etag), false) {
				c.Status(fiber.StatusNotModified)
				return nil
			}
		}
	}
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	c.Response().SetBody(body)
	c.Status(status)
	return nil
}

// ifMatch is the request's If-Match as a condition on a pet, checked inside the transaction that
// would change it: it holds when the pet's current ETag is among the tags (strong comparison), or
// for "*". A malformed header holds for nothing. Without the header there is no condition.
func ifMatch(c *fiber.Ctx) models.Match {
	header := c.Get(fiber.HeaderIfMatch)
	if header == "" {
		return nil
	}
	tags, ok := parseETags(header)
	return func(p *models.Pet) bool {
		if !ok {
			return false
		}
		body, err := models.EncodeJSON(p.Response())
		return err == nil && matchesAny(tags, etagOf(body), true)
	}
}

// parseETags reads a list of entity tags, or "*" (returned as the tag "*"); false when malformed.
func parseETags(header string) ([]string, bool) {
	var tags []string
	s := strings.TrimSpace(header)
	for s != "" {
		var tag string
		switch {
		case s[0] == '*':
			tag, s = "*", s[1:]
		default:
			weak := strings.HasPrefix(s, "W/")
			rest := strings.TrimPrefix(s, "W/")
			end := strings.IndexByte(rest[min(1, len(rest)):], '"')
			if len(rest) < 2 || rest[0] != '"' || end < 0 {
				return nil, false
			}
			tag, s = rest[:end+2], rest[end+2:]
			if weak {
				tag = "W/" + tag
			}
		}
		tags = append(tags, tag)
		s = strings.TrimLeft(s, " \t")
		if s != "" && s[0] != ',' {
			return nil, false
		}
		s = strings.TrimLeft(s, " \t,")
	}
	return tags, len(tags) > 0
}

// matchesAny compares etag with tags: strongly (both strong and equal) or weakly (equal once any
// W/ is set aside). "*" matches any current representation.
func matchesAny(tags []string, etag string, strong bool) bool {
	for _, t := range tags {
		switch {
		case t == "*":
			return true
		case strong && (strings.HasPrefix(t, "W/") || strings.HasPrefix(etag, "W/")):
		case strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/"):
			return true
		}
	}
	return false
}

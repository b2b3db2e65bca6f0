package routes

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/media"
)

// serveMedia answers GET and HEAD /media/{sha256}.{ext}: the catalogue's photos, public and
// without a key. A key is its content's hash, so the answer never changes: cached for a year,
// its hash the strong ETag, with single byte ranges (a browser resuming, a video-like seek).
func serveMedia(store media.Store) fiber.Handler {
	return func(c *fiber.Ctx) error {
		key := c.Params("file")
		if !media.ValidKey(key) {
			return fiber.ErrNotFound
		}
		ctx := c.UserContext()
		size, err := store.Stat(ctx, key)
		if errors.Is(err, media.ErrNotFound) {
			return fiber.ErrNotFound
		}
		if err != nil {
			return err
		}
		etag := `"` + key[:64] + `"`
		c.Set(fiber.HeaderETag, etag)
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		c.Set(fiber.HeaderAcceptRanges, "bytes")
		c.Set(fiber.HeaderContentType, media.ContentType(key))
		if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" {
			if tags, ok := parseETags(inm); ok && matchesAny(tags, etag, false) {
				return c.SendStatus(fiber.StatusNotModified)
			}
		}
		off, n, status := int64(0), size, fiber.StatusOK
		if r := c.Get(fiber.HeaderRange); r != "" && ifRangeHolds(c.Get(fiber.HeaderIfRange), etag) {
			start, end, ok, satisfiable := parseRange(r, size)
			switch {
			case ok && !satisfiable:
				c.Set(fiber.HeaderContentRange, "bytes */"+strconv.FormatInt(size, 10))
				return c.SendStatus(fiber.StatusRequestedRangeNotSatisfiable)
			case ok:
				off, n, status = start, end-start+1, fiber.StatusPartialContent
				c.Set(fiber.HeaderContentRange, "bytes "+strconv.FormatInt(start, 10)+"-"+strconv.FormatInt(end, 10)+"/"+strconv.FormatInt(size, 10))
			}
		}
		c.Status(status)
		if c.Method() == fiber.MethodHead {
			c.Response().Header.SetContentLength(int(n))
			c.Response().SkipBody = true
			return nil
		}
		// The body is read while the answer is written, after the handler has returned and the
		// request's deadline (withDeadline) was cancelled: the server's write timeout bounds it.
		body, err := store.Get(context.WithoutCancel(ctx), key, off, n)
		if errors.Is(err, media.ErrNotFound) {
			return fiber.ErrNotFound
		}
		if err != nil {
			return err
		}
		// fasthttp closes body once it is written.
		c.Response().SetBodyStream(body, int(n))
		return nil
	}
}

// ifRangeHolds reports whether a Range applies under If-Range: always without one, and with one
// only when it names the blob's ETag (a date never matches: the answer carries no Last-Modified).
func ifRangeHolds(ifRange, etag string) bool {
	return ifRange == "" || ifRange == etag
}

// parseRange reads a Range header of one byte range (RFC 9110, 14.2). ok is false for anything
// the service does not honour (another unit, several ranges, bad syntax): the whole blob is sent,
// as the RFC allows. satisfiable is false for a range that starts past the end.
func parseRange(h string, size int64) (start, end int64, ok, satisfiable bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, false, false
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return 0, 0, false, false
	}
	if first == "" { // the last N bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, false, false
		}
		if n == 0 || size == 0 {
			return 0, 0, true, false
		}
		return max(size-n, 0), size - 1, true, true
	}
	s, err := strconv.ParseInt(first, 10, 64)
	if err != nil || s < 0 {
		return 0, 0, false, false
	}
	e := size - 1
	if last != "" {
		if e, err = strconv.ParseInt(last, 10, 64); err != nil || e < s {
			return 0, 0, false, false
		}
		e = min(e, size-1)
	}
	if s >= size {
		return 0, 0, true, false
	}
	return s, e, true, true
}

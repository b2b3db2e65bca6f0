package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/static"
)

// serveStatic serves the embedded files under their content-hashed names: a name changes
// whenever its content does, so browsers may keep each one for a year.
func serveStatic(c *fiber.Ctx) error {
	a, ok := static.Lookup(c.Params("file"))
	if !ok {
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	c.Set(fiber.HeaderContentType, a.ContentType)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.Send(a.Body)
}

// serveFavicon answers /favicon.ico, which browsers ask for by that fixed name, so it is cached
// for a day rather than a year.
func serveFavicon(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
	c.Set(fiber.HeaderContentType, "image/x-icon")
	return c.Send(static.Favicon)
}

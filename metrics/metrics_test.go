package metrics_test

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/metrics"
	"github.com/valyala/fasthttp"
)

// BenchmarkMiddleware measures what counting costs a request, on the route pattern's fast path
// (the endpoint answered) and on the lookup path (a middleware answered first).
func BenchmarkMiddleware(b *testing.B) {
	for _, bc := range []struct {
		name  string
		count bool
		path  string
	}{
		{"without metrics", false, "/v1/pets/42"},
		{"endpoint answered", true, "/v1/pets/42"},
		{"middleware answered", true, "/v1/refused/42"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			app := fiber.New()
			if bc.count {
				app.Use(metrics.New("bench").Middleware())
			}
			app.Use("/v1/refused", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusTooManyRequests) })
			for _, p := range []string{"/v1/pets", "/v1/categories", "/v1/store/orders", "/v1/store/orders/:orderId", "/v1/refused/:id"} {
				app.Get(p, func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })
			}
			app.Get("/v1/pets/:petId", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })
			h := app.Handler()
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod(fiber.MethodGet)
			ctx.Request.SetRequestURI(bc.path)
			b.ReportAllocs()
			for b.Loop() {
				h(&ctx)
			}
		})
	}
}

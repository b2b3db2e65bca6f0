package app_test

import (
	"net"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/valyala/fasthttp"
)

// BenchmarkAuthenticationAndLimiter measures what the /v1 gate adds to a request: a route
// behind it (authentication, the limiter, the headers) against the same route outside /v1,
// through fiber's handler without the network. Run it with
// go test -run '^$' -bench AuthenticationAndLimiter -benchmem ./app/
func BenchmarkAuthenticationAndLimiter(b *testing.B) {
	for _, tc := range []struct {
		name, path string
		redis      bool
	}{
		{"no gate", "/bench", false},
		{"memory", "/v1/bench", false},
		{"redis", "/v1/bench", true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := apptest.Config(b, testenv.SQLite)
			if tc.redis {
				cfg.RedisURL, cfg.RedisPrefix = testenv.RedisURL(b), testenv.RedisPrefix(b)
			}
			noContent := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) }
			s := apptest.New(b, cfg, apptest.WithRoutes(func(a *fiber.App) {
				a.Get("/bench", noContent)
				a.Get("/v1/bench", noContent)
			}))
			handler := s.App.Handler()
			var req fasthttp.Request
			req.SetRequestURI(tc.path)
			req.Header.Set(fiber.HeaderAuthorization, "Bearer "+s.APIKey)
			addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var ctx fasthttp.RequestCtx
				ctx.Init(&req, addr, nil)
				for pb.Next() {
					handler(&ctx)
					if ctx.Response.StatusCode() != fiber.StatusNoContent {
						b.Fatalf("%s: status %d: %s", tc.path, ctx.Response.StatusCode(), ctx.Response.Body())
					}
					// What the server does between two requests of a connection.
					ctx.Response.Reset()
					ctx.ResetUserValues()
				}
			})
		})
	}
}

package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/metrics"
	"github.com/valyala/fasthttp"
)

// BenchmarkMiddleware measures what counting costs a request, when the endpoint answered and
// when a middleware answered first.
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

// TestMiddlewareLabelsRequestsByRoutePattern sends requests that end in each way a request can
// end, and reads the series they were counted in from the metrics' own handler.
func TestMiddlewareLabelsRequestsByRoutePattern(t *testing.T) {
	m := metrics.New("test")
	app := fiber.New()
	app.Use(m.Middleware())
	// An API gate that refuses requests without a key, before routing, as the service's does.
	v1 := app.Group("/v1", func(c *fiber.Ctx) error {
		if c.Get("Authorization") == "" {
			return c.SendStatus(fiber.StatusUnauthorized)
		}
		return c.Next()
	})
	v1.Get("/pets/:petId", func(c *fiber.Ctx) error {
		if c.Params("petId") == "0" {
			return fiber.ErrNotFound
		}
		return c.SendStatus(fiber.StatusOK)
	})
	app.Use("/admin", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusForbidden) })
	app.Use("/docs", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })

	for _, r := range []struct {
		method, path string
		key          bool
	}{
		{"GET", "/v1/pets/1", true},
		{"GET", "/v1/pets/2", true},
		{"HEAD", "/v1/pets/3", true},
		{"GET", "/v1/pets/0", true},   // the endpoint's own 404
		{"GET", "/v1/pets/1", false},  // refused by the gate
		{"GET", "/v1/nothing", false}, // refused by the gate, matched or not
		{"GET", "/v1/nothing", true},  // past the gate, no route: 404
		{"POST", "/v1/pets/1", true},  // no route for the method
		{"GET", "/random/probe", false},
		{"GET", "/admin/x", false}, // refused by a middleware outside /v1
		{"GET", "/docs/x", false},  // answered by a middleware
	} {
		req := httptest.NewRequest(r.method, r.path, nil)
		if r.key {
			req.Header.Set("Authorization", "Bearer k")
		}
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
	}

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	var got []string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "petstore_http_requests_total{") {
			got = append(got, line)
		}
	}
	want := []string{
		`petstore_http_requests_total{method="GET",route="/docs",status="200"} 1`,
		`petstore_http_requests_total{method="GET",route="/v1",status="401"} 2`,
		`petstore_http_requests_total{method="GET",route="/v1/pets/:petId",status="200"} 2`,
		`petstore_http_requests_total{method="GET",route="/v1/pets/:petId",status="404"} 1`,
		`petstore_http_requests_total{method="GET",route="unmatched",status="403"} 1`,
		`petstore_http_requests_total{method="GET",route="unmatched",status="404"} 2`,
		`petstore_http_requests_total{method="HEAD",route="/v1/pets/:petId",status="200"} 1`,
		`petstore_http_requests_total{method="POST",route="unmatched",status="405"} 1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package routes

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"github.com/petstore/petstore/models"
	"github.com/valyala/fasthttp"
)

// apiCSP is the policy of everything that is not a page: a JSON answer is never a document to
// render, frame or run script in.
const apiCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// adminCSP is the policy of the admin pages: their script, styles and images come from this
// service's /static, and no inline script or style runs, so injected markup cannot act.
const adminCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders are the headers every response carries, in the order they are sent; pages
// override the CSP for their area. Their names are written as fasthttp writes any other
// (X-Xss-Protection), and set without normalizing them again on every request.
var securityHeaders = canonicalHeaders(
	"X-XSS-Protection", "0", // the legacy filter itself leaked data; CSP replaces it
	"X-Content-Type-Options", "nosniff",
	"X-Frame-Options", "DENY",
	"Cross-Origin-Embedder-Policy", "require-corp",
	"Cross-Origin-Opener-Policy", "same-origin",
	"Cross-Origin-Resource-Policy", "same-origin",
	"Origin-Agent-Cluster", "?1",
	"Referrer-Policy", "no-referrer",
	"X-DNS-Prefetch-Control", "off",
	"X-Download-Options", "noopen",
	"X-Permitted-Cross-Domain-Policies", "none",
	// Strict-Transport-Security comes here, on HTTPS only.
	"Content-Security-Policy", apiCSP,
	"Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
)

// hstsAfter is where Strict-Transport-Security goes among securityHeaders.
const hstsAfter = 11

// hsts is sent only on HTTPS (directly or through a trusted proxy's X-Forwarded-Proto); sibling
// subdomains are not this service's to decide for.
var hsts = canonicalHeaders("Strict-Transport-Security", "max-age=31536000")[0]

type header struct{ key, value []byte }

// canonicalHeaders pairs names and values, each name as fasthttp normalizes it.
func canonicalHeaders(kv ...string) []header {
	out := make([]header, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		var h fasthttp.ResponseHeader
		h.Set(kv[i], kv[i+1])
		h.VisitAll(func(k, v []byte) {
			if string(v) == kv[i+1] {
				out = append(out, header{append([]byte(nil), k...), append([]byte(nil), v...)})
			}
		})
	}
	return out
}

// withSecurityHeaders sets securityHeaders, before the handler runs, as fiber's helmet
// middleware did with the same policy; it normalized each name again on every request. Only with
// a trusted proxy (proxies) can a request's X-Forwarded-Proto say it came over HTTPS.
func withSecurityHeaders(proxies bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		setSecurityHeaders(c, c.Context().IsTLS() || proxies && c.Protocol() == "https")
		return c.Next()
	}
}

func setSecurityHeaders(c *fiber.Ctx, https bool) {
	h := &c.Response().Header
	for i, kv := range securityHeaders {
		if i == hstsAfter && https {
			h.SetCanonical(hsts.key, hsts.value)
		}
		h.SetCanonical(kv.key, kv.value)
	}
}

// contentSecurityPolicy replaces the API's policy with an area's own.
func contentSecurityPolicy(policy string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentSecurityPolicy, policy)
		return c.Next()
	}
}

// ensureSecurityHeaders gives the answers that fasthttp makes before any middleware runs (a
// malformed request, headers or a body over their cap, a read timeout) the same static headers
// every other answer gets (without Strict-Transport-Security, as before: such a request was not
// read far enough to know it came through a trusted proxy).
func ensureSecurityHeaders(c *fiber.Ctx) {
	if len(c.Response().Header.Peek(fiber.HeaderXContentTypeOptions)) > 0 {
		return
	}
	setSecurityHeaders(c, false)
}

// corsPolicy lets the configured browser origins call /v1. Keys travel in the Authorization
// header, never in cookies, so credentials stay off and "*" is safe to configure.
func corsPolicy(origins []string) fiber.Handler {
	return cors.New(cors.Config{
		AllowOrigins: strings.Join(origins, ","),
		AllowMethods: "GET,HEAD,POST,PATCH,DELETE",
		AllowHeaders: "Authorization,Content-Type,Idempotency-Key,X-Request-ID,If-Match,If-None-Match",
		ExposeHeaders: "Link,Location,Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset," +
			"X-Request-ID,Deprecation,Sunset,Idempotent-Replayed,ETag",
		MaxAge: 600,
	})
}

// refuseUnknownMethods answers a method fiber does not know (such as "FOO /v1/pets") with an
// Error body like every other refusal; fiber itself answers it in plain text before any
// middleware or the error handler.
func refuseUnknownMethods(app *fiber.App) {
	srv := app.Server()
	next := srv.Handler
	methods := app.Config().RequestMethods
	srv.Handler = func(fctx *fasthttp.RequestCtx) {
		if slices.Contains(methods, string(fctx.Method())) {
			next(fctx)
			return
		}
		c := app.AcquireCtx(fctx)
		defer app.ReleaseCtx(c)
		_ = app.ErrorHandler(c, models.Errorf(models.EInvalid, "unknown HTTP method"))
	}
}

package routes

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"github.com/gofiber/fiber/v2/middleware/helmet"
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

// securityHeaders are the headers every response carries; pages override the CSP for their area.
var securityHeaders = helmet.Config{
	XSSProtection:      "0", // the legacy filter itself leaked data; CSP replaces it
	ContentTypeNosniff: "nosniff",
	XFrameOptions:      "DENY",
	// Sent only on HTTPS (directly or through a trusted proxy's X-Forwarded-Proto); sibling
	// subdomains are not this service's to decide for.
	HSTSMaxAge:                365 * 24 * 60 * 60,
	HSTSExcludeSubdomains:     true,
	ContentSecurityPolicy:     apiCSP,
	ReferrerPolicy:            "no-referrer",
	PermissionPolicy:          "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
	CrossOriginEmbedderPolicy: "require-corp",
	CrossOriginOpenerPolicy:   "same-origin",
	CrossOriginResourcePolicy: "same-origin",
	OriginAgentCluster:        "?1",
	XDNSPrefetchControl:       "off",
	XDownloadOptions:          "noopen",
	XPermittedCrossDomain:     "none",
}

// withSecurityHeaders is fiber's helmet with the service's policy.
func withSecurityHeaders() fiber.Handler { return helmet.New(securityHeaders) }

// contentSecurityPolicy replaces the API's policy with an area's own.
func contentSecurityPolicy(policy string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentSecurityPolicy, policy)
		return c.Next()
	}
}

// ensureSecurityHeaders gives the answers that fasthttp makes before any middleware runs (a
// malformed request, headers or a body over their cap, a read timeout) the same static headers
// helmet gives every other answer.
func ensureSecurityHeaders(c *fiber.Ctx) {
	if len(c.Response().Header.Peek(fiber.HeaderXContentTypeOptions)) > 0 {
		return
	}
	h := securityHeaders
	for _, kv := range [][2]string{
		{fiber.HeaderXXSSProtection, h.XSSProtection},
		{fiber.HeaderXContentTypeOptions, h.ContentTypeNosniff},
		{fiber.HeaderXFrameOptions, h.XFrameOptions},
		{fiber.HeaderContentSecurityPolicy, h.ContentSecurityPolicy},
		{fiber.HeaderReferrerPolicy, h.ReferrerPolicy},
		{fiber.HeaderPermissionsPolicy, h.PermissionPolicy},
		{"Cross-Origin-Embedder-Policy", h.CrossOriginEmbedderPolicy},
		{"Cross-Origin-Opener-Policy", h.CrossOriginOpenerPolicy},
		{"Cross-Origin-Resource-Policy", h.CrossOriginResourcePolicy},
		{"Origin-Agent-Cluster", h.OriginAgentCluster},
		{"X-DNS-Prefetch-Control", h.XDNSPrefetchControl},
		{"X-Download-Options", h.XDownloadOptions},
		{"X-Permitted-Cross-Domain-Policies", h.XPermittedCrossDomain},
	} {
		c.Set(kv[0], kv[1])
	}
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

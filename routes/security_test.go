package routes

import (
	"net"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/helmet"
	"github.com/valyala/fasthttp"
)

// withSecurityHeaders replaced fiber's helmet middleware; every answer must carry the same
// headers, in the same order, on HTTP and on HTTPS behind a trusted proxy, as helmet with the
// policy the service gave it.
func TestSecurityHeadersAreHelmetsWithThePolicy(t *testing.T) {
	helmetPolicy := helmet.New(helmet.Config{
		XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
		HSTSMaxAge: 365 * 24 * 60 * 60, HSTSExcludeSubdomains: true, ContentSecurityPolicy: apiCSP,
		ReferrerPolicy:            "no-referrer",
		PermissionPolicy:          "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
		CrossOriginEmbedderPolicy: "require-corp", CrossOriginOpenerPolicy: "same-origin",
		CrossOriginResourcePolicy: "same-origin", OriginAgentCluster: "?1", XDNSPrefetchControl: "off",
		XDownloadOptions: "noopen", XPermittedCrossDomain: "none",
	})
	headers := func(mw fiber.Handler, proto string) [][2]string {
		app := fiber.New(fiber.Config{EnableTrustedProxyCheck: true, TrustedProxies: []string{"127.0.0.1"}})
		app.Use(mw)
		app.Get("/", func(c *fiber.Ctx) error { return c.SendString("ok") })
		var ctx fasthttp.RequestCtx
		ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
		ctx.Request.SetRequestURI("/")
		ctx.Request.Header.Set(fiber.HeaderXForwardedProto, proto)
		app.Handler()(&ctx)
		var out [][2]string
		ctx.Response.Header.VisitAll(func(k, v []byte) { out = append(out, [2]string{string(k), string(v)}) })
		return out
	}
	for _, proto := range []string{"http", "https"} {
		got, want := headers(withSecurityHeaders(true), proto), headers(helmetPolicy, proto)
		if len(got) != len(want) || len(want) < 14 {
			t.Fatalf("%s: headers\n%q\nwant\n%q", proto, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: header %d is %q, want %q", proto, i, got[i], want[i])
			}
		}
	}
}

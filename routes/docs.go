package routes

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/docs"
	"github.com/petstore/petstore/routes/apiservers"
	"github.com/petstore/petstore/static"
	"github.com/petstore/petstore/static/redoc"
	swaggerfiles "github.com/swaggo/files/v2"
)

// servedOpenAPI is the committed document with this instance's own /v1 listed first, so "Try it
// out" talks to the instance that serves the page. The address is relative: it stays right
// behind any proxy, whatever Host or scheme the client used.
func servedOpenAPI(productionURL, stagingURL string) []byte {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(docs.OpenAPI, &doc); err != nil {
		panic(fmt.Sprintf("docs/openapi.json is not JSON (run make generate): %v", err))
	}
	servers := append([]apiservers.Server{{URL: "/v1", Description: "This instance"}}, apiservers.Published(productionURL, stagingURL)...)
	var err error
	if doc["servers"], err = json.Marshal(servers); err != nil {
		panic(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // as in the committed document: "<API_KEY>", not "\u003cAPI_KEY\u003e"
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// docsPolicy keeps the documentation pages offline: scripts, styles and images come from this
// service only (Redoc's footer would otherwise fetch its logo from a CDN). Calls from "Try it
// out" may go to this instance and to the documented servers.
func docsPolicy(productionURL, stagingURL string) string {
	return "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
		"worker-src 'self' blob:; connect-src 'self' " + productionURL + " " + stagingURL +
		"; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
}

// swaggerPage and redocPage are the two documentation pages; their scripts and styles are
// content-hashed assets (see docsSite), named by the %s verbs. Swagger UI leaves out the
// document's guide (a tag without operations, x-traitTag), which Redoc shows as its first section:
// Swagger UI is where operations are tried, and would show the guide as an empty operation group.
const swaggerPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API</title>
<link rel="stylesheet" href="/docs/%s">
<link rel="icon" type="image/svg+xml" href="%s">
<style>.swagger-ui .opblock-tag-section:has(#operations-tag-guide) { display: none; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/%s"></script>
<script src="/docs/%s"></script>
</body>
</html>
`

// swaggerInit starts Swagger UI on the served document. It is a file of its own rather than an
// inline script, so the page's policy can refuse every inline script. validatorUrl "none" keeps
// Swagger UI from sending the document to an online validator.
const swaggerInit = `window.ui = SwaggerUIBundle({
  url: "/docs/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: "none",
  layout: "BaseLayout",
  presets: [SwaggerUIBundle.presets.apis],
});
`

const redocPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API</title>
<link rel="icon" type="image/svg+xml" href="%s">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="/docs/openapi.json"></redoc>
<script src="/docs/%s"></script>
</body>
</html>
`

// docsAsset is a script or stylesheet of the documentation pages, served under a content-hashed
// name. Its gzip and brotli forms are made once, by the first request that asks for each: brotli
// at level 7 takes about half a second for Swagger UI's 1.4 MB bundle (level 11 would take ten
// times as long for 9 % less).
type docsAsset struct {
	contentType string
	body        []byte
	gzip        func() []byte
	brotli      func() []byte
}

func newDocsAsset(name string, body []byte) *docsAsset {
	return &docsAsset{
		contentType: static.ContentType(name),
		body:        body,
		gzip: sync.OnceValue(func() []byte {
			var buf bytes.Buffer
			w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = w.Write(body)
			_ = w.Close()
			return buf.Bytes()
		}),
		brotli: sync.OnceValue(func() []byte {
			var buf bytes.Buffer
			w := brotli.NewWriterLevel(&buf, 7)
			_, _ = w.Write(body)
			_ = w.Close()
			return buf.Bytes()
		}),
	}
}

// docsSite serves the API documentation outside /v1. Every asset is embedded, and every answer
// carries the policy that keeps the pages offline.
type docsSite struct {
	policy  string
	openapi []byte
	// swaggerPage and redocPage are the pages, naming their assets' hashed names.
	swaggerPage, redocPage []byte
	// assets are the pages' scripts and styles, by hashed name.
	assets map[string]*docsAsset
}

func newDocsSite(productionURL, stagingURL string) *docsSite {
	d := &docsSite{
		policy:  docsPolicy(productionURL, stagingURL),
		openapi: servedOpenAPI(productionURL, stagingURL),
		assets:  map[string]*docsAsset{},
	}
	add := func(name string, body []byte) string {
		hashed := static.HashedName(name, body)
		d.assets[hashed] = newDocsAsset(name, body)
		return hashed
	}
	swagger := map[string]string{}
	for _, name := range []string{"swagger-ui.css", "swagger-ui-bundle.js"} {
		body, err := fs.ReadFile(swaggerfiles.FS, name)
		if err != nil {
			panic(fmt.Sprintf("swagger UI asset %s: %v", name, err))
		}
		swagger[name] = add(name, body)
	}
	icon := static.URL("paw.svg")
	d.swaggerPage = fmt.Appendf(nil, swaggerPage, swagger["swagger-ui.css"], icon, swagger["swagger-ui-bundle.js"],
		add("swagger-init.js", []byte(swaggerInit)))
	d.redocPage = fmt.Appendf(nil, redocPage, icon, add("redoc.standalone.js", redoc.Offline))
	return d
}

func (d *docsSite) send(c *fiber.Ctx, contentType string, body []byte) error {
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentSecurityPolicy, d.policy)
	return c.Send(body)
}

func (d *docsSite) swaggerUI(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMETextHTMLCharsetUTF8, d.swaggerPage)
}

func (d *docsSite) redoc(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMETextHTMLCharsetUTF8, d.redocPage)
}

func (d *docsSite) document(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMEApplicationJSON, d.openapi)
}

// asset serves a page's script or stylesheet by its hashed name, for a year (its name changes
// with its content), compressed as the client's Accept-Encoding prefers, br on a tie: unlike
// compressAnswers' answers, these are compressed once, so br's extra CPU is spent once. It sets
// Content-Encoding itself, so the compressing middleware leaves the body as it is.
func (d *docsSite) asset(c *fiber.Ctx) error {
	a, ok := d.assets[c.Params("asset")]
	if !ok {
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	c.Vary(fiber.HeaderAcceptEncoding)
	body := a.body
	// Without Accept-Encoding, or with an empty one, the client gets the body as it is.
	enc := ""
	if len(c.Request().Header.Peek(fiber.HeaderAcceptEncoding)) > 0 {
		enc = c.AcceptsEncodings("br", "gzip")
	}
	switch enc {
	case "br":
		c.Set(fiber.HeaderContentEncoding, "br")
		body = a.brotli()
	case "gzip":
		c.Set(fiber.HeaderContentEncoding, "gzip")
		body = a.gzip()
	}
	return d.send(c, a.contentType, body)
}

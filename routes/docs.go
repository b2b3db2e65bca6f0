package routes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"path"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/docs"
	"github.com/petstore/petstore/routes/apiservers"
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

const swaggerPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-init.js"></script>
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
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="/docs/openapi.json"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`

// docsSite serves the API documentation outside /v1. Every asset is embedded, and every answer
// carries the policy that keeps the pages offline.
type docsSite struct {
	policy  string
	openapi []byte
	// assets are the files of Swagger UI's distribution the page loads, by name.
	assets map[string][]byte
}

func newDocsSite(productionURL, stagingURL string) *docsSite {
	d := &docsSite{
		policy:  docsPolicy(productionURL, stagingURL),
		openapi: servedOpenAPI(productionURL, stagingURL),
		assets:  map[string][]byte{},
	}
	for _, name := range []string{"swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"} {
		body, err := fs.ReadFile(swaggerfiles.FS, name)
		if err != nil {
			panic(fmt.Sprintf("swagger UI asset %s: %v", name, err))
		}
		d.assets[name] = body
	}
	return d
}

func (d *docsSite) send(c *fiber.Ctx, contentType string, body []byte) error {
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentSecurityPolicy, d.policy)
	return c.Send(body)
}

func (d *docsSite) swaggerUI(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMETextHTMLCharsetUTF8, []byte(swaggerPage))
}

func (d *docsSite) swaggerInit(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMETextJavaScriptCharsetUTF8, []byte(swaggerInit))
}

func (d *docsSite) redoc(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMETextHTMLCharsetUTF8, []byte(redocPage))
}

func (d *docsSite) redocScript(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMETextJavaScriptCharsetUTF8, redoc.Standalone)
}

func (d *docsSite) document(c *fiber.Ctx) error {
	return d.send(c, fiber.MIMEApplicationJSON, d.openapi)
}

// swaggerAsset serves one of Swagger UI's files; any other name is not found.
func (d *docsSite) swaggerAsset(c *fiber.Ctx) error {
	name := c.Params("asset")
	body, ok := d.assets[name]
	if !ok {
		return fiber.ErrNotFound
	}
	return d.send(c, mime.TypeByExtension(path.Ext(name)), body)
}

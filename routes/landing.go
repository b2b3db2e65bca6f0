package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/views"
)

// landingLinks are what / points to: each link in the page, and under its key in the JSON index.
var landingLinks = []struct {
	key string
	views.LandingLink
}{
	{"docs", views.LandingLink{Href: "/docs", Title: "API documentation", Text: "Swagger UI: read and try every operation"}},
	{"redoc", views.LandingLink{Href: "/docs/redoc", Title: "API reference", Text: "the same document in Redoc"}},
	{"openapi", views.LandingLink{Href: "/docs/openapi.json", Title: "OpenAPI document", Text: "the API described for tools and generated clients"}},
	{"admin", views.LandingLink{Href: "/admin", Title: "Admin pages", Text: "for staff: pets, orders, clients and API keys"}},
	{"health", views.LandingLink{Href: "/healthz", Title: "Health", Text: "answers while the process runs"}},
	{"ready", views.LandingLink{Href: "/readyz", Title: "Readiness", Text: "answers 200 while the database does"}},
}

// landingPage and landingIndex are / for a browser and for an API client (which also learns
// where the API is), made once from landingLinks.
var landingPage, landingIndex = func() ([]views.LandingLink, map[string]string) {
	page, index := make([]views.LandingLink, len(landingLinks)), map[string]string{"api": "/v1"}
	for i, l := range landingLinks {
		page[i], index[l.key] = l.LandingLink, l.Href
	}
	return page, index
}()

// landing answers / with a page for browsers, which ask for HTML first, and with a JSON index
// for anything else; it is not part of the API document.
func landing(c *fiber.Ctx) error {
	c.Vary(fiber.HeaderAccept)
	if c.Accepts(fiber.MIMEApplicationJSON, fiber.MIMETextHTML) != fiber.MIMETextHTML {
		return c.JSON(landingIndex)
	}
	c.Set(fiber.HeaderContentSecurityPolicy, adminCSP)
	return render(c, views.Landing(landingPage))
}

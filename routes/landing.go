package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/views"
)

// landingLinks are what / points to, in the page and in the JSON index alike.
var landingLinks = []views.LandingLink{
	{Href: "/docs", Title: "API documentation", Text: "Swagger UI: read and try every operation"},
	{Href: "/docs/redoc", Title: "API reference", Text: "the same document in Redoc"},
	{Href: "/docs/openapi.json", Title: "OpenAPI document", Text: "the API described for tools and generated clients"},
	{Href: "/admin", Title: "Admin pages", Text: "for staff: pets, orders, clients and API keys"},
	{Href: "/healthz", Title: "Health", Text: "answers while the process runs"},
	{Href: "/readyz", Title: "Readiness", Text: "answers 200 while the database does"},
}

// landingJSON is / for an API client: the same links, by name.
type landingJSON struct {
	API     string `json:"api"`
	Docs    string `json:"docs"`
	Redoc   string `json:"redoc"`
	OpenAPI string `json:"openapi"`
	Admin   string `json:"admin"`
	Health  string `json:"health"`
	Ready   string `json:"ready"`
}

var landingIndex = landingJSON{API: "/v1", Docs: "/docs", Redoc: "/docs/redoc", OpenAPI: "/docs/openapi.json",
	Admin: "/admin", Health: "/healthz", Ready: "/readyz"}

// landing answers / with a page for browsers, which ask for HTML first, and with a JSON index
// for anything else; it is not part of the API document.
func landing(c *fiber.Ctx) error {
	c.Vary(fiber.HeaderAccept)
	if c.Accepts(fiber.MIMEApplicationJSON, fiber.MIMETextHTML) != fiber.MIMETextHTML {
		return c.JSON(landingIndex)
	}
	c.Set(fiber.HeaderContentSecurityPolicy, adminCSP)
	return render(c, views.Landing(landingLinks))
}

// Package apiservers names the deployments that the API document lists as its servers. The
// service (configuration defaults, the document it serves) and the document's generator
// (tools/openapigen) share it. It imports nothing of ours, so the generator builds even when the
// generated docs/ package is stale or missing.
package apiservers

// The deployments' addresses when PETSTORE_PRODUCTION_URL and PETSTORE_STAGING_URL are unset,
// and so in the committed document. Both lack the version path, which Published appends.
const (
	DefaultProductionURL = "https://api.petstore.example"
	DefaultStagingURL    = "https://staging-api.petstore.example"
)

// Server is one entry of the API document's servers.
type Server struct {
	URL         string `json:"url"`
	Description string `json:"description"`
	// Internal says whether the server is only for the operator's own use; every server of this
	// API is public, and the document says so (x-internal, read by documentation tools).
	Internal bool `json:"x-internal"`
}

// Published lists production and staging, each with the API's version path.
func Published(productionURL, stagingURL string) []Server {
	return []Server{
		{URL: productionURL + "/v1", Description: "Production"},
		{URL: stagingURL + "/v1", Description: "Staging"},
	}
}

package app_test

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/docs"
)

// externalURL finds an address a page would load from another host.
var externalURL = regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`)

func TestDocsPagesAndTheirAssetsComeFromTheServiceItself(t *testing.T) {
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	for _, tc := range []struct {
		path, contentType string
		mentions          []string
	}{
		{"/docs", "text/html; charset=utf-8", []string{`src="/docs/swagger-ui-bundle.js"`, `src="/docs/swagger-init.js"`, `href="/docs/swagger-ui.css"`}},
		{"/docs/swagger-init.js", "text/javascript; charset=utf-8", []string{`url: "/docs/openapi.json"`, `validatorUrl: "none"`}},
		{"/docs/swagger-ui-bundle.js", "text/javascript; charset=utf-8", []string{"SwaggerUIBundle"}},
		{"/docs/swagger-ui.css", "text/css; charset=utf-8", []string{".swagger-ui"}},
		{"/docs/favicon-32x32.png", "image/png", nil},
		{"/docs/redoc", "text/html; charset=utf-8", []string{`<redoc spec-url="/docs/openapi.json">`, `src="/docs/redoc.standalone.js"`}},
		{"/docs/redoc.standalone.js", "text/javascript; charset=utf-8", []string{"Redoc"}},
	} {
		res := s.Get(t, tc.path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != tc.contentType {
			t.Fatalf("GET %s: %d %q, want 200 %q", tc.path, res.StatusCode, res.Header.Get("Content-Type"), tc.contentType)
		}
		for _, m := range tc.mentions {
			if !strings.Contains(string(res.Body), m) {
				t.Errorf("GET %s: body does not contain %s", tc.path, m)
			}
		}
		if strings.HasSuffix(tc.contentType, "html; charset=utf-8") {
			if m := externalURL.FindString(string(res.Body)); m != "" {
				t.Errorf("GET %s loads from another host: %s", tc.path, m)
			}
			if csp := res.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self';") || !strings.Contains(csp, "img-src 'self' data:;") {
				t.Errorf("GET %s: Content-Security-Policy %q, want one that keeps the page on this service", tc.path, csp)
			}
		}
		for h := range res.Header {
			if strings.HasPrefix(h, "X-Ratelimit") {
				t.Errorf("GET %s carries %s: the docs are not rate limited", tc.path, h)
			}
		}
	}
}

func TestServedDocumentListsThisInstanceFirstThenTheConfiguredServers(t *testing.T) {
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.ProductionURL, cfg.StagingURL = "https://api.example.com", "https://staging.example.com"
	s := apptest.New(t, cfg)
	res := s.Get(t, "/docs/openapi.json")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /docs/openapi.json: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var served, committed map[string]any
	res.JSON(t, &served)
	if err := json.Unmarshal(docs.OpenAPI, &committed); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, s := range served["servers"].([]any) {
		urls = append(urls, s.(map[string]any)["url"].(string))
	}
	if want := []string{"/v1", "https://api.example.com/v1", "https://staging.example.com/v1"}; !slices.Equal(urls, want) {
		t.Fatalf("servers %v, want %v", urls, want)
	}
	delete(served, "servers")
	delete(committed, "servers")
	if got, want := slices.Sorted(maps.Keys(served)), slices.Sorted(maps.Keys(committed)); !slices.Equal(got, want) {
		t.Fatalf("served document has %v, the committed one %v", got, want)
	}
	for k := range committed {
		a, _ := json.Marshal(served[k])
		b, _ := json.Marshal(committed[k])
		if string(a) != string(b) {
			t.Errorf("served %q differs from docs/openapi.json", k)
		}
	}
}

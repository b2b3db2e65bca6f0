package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// landingLinks are the addresses / points to, in the page and in its JSON index.
var landingLinks = []string{"/docs", "/docs/redoc", "/docs/openapi.json", "/admin", "/healthz", "/readyz"}

// getRoot asks for / with the given Accept header (none when empty).
func getRoot(t *testing.T, s *apptest.Server, accept string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, "GET", "/", nil)
	req.Header.Del("Authorization")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res := s.Do(t, req)
	if res.StatusCode != http.StatusOK || !slices.Contains(res.Header.Values("Vary"), "Accept") {
		t.Fatalf("GET / (Accept %q): %d, Vary %q", accept, res.StatusCode, res.Header.Values("Vary"))
	}
	return res
}

// A browser opening the service's address gets a page linking the docs, the admin pages and the
// health endpoints, under the admin pages' policy.
func TestTheLandingPageLinksTheDocsTheAdminAndTheHealthEndpoints(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	res := getRoot(t, s, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Fatalf("GET / from a browser: Content-Type %q", ct)
	}
	checkAdminCSP(t, "/", res.Header.Get("Content-Security-Policy"))
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(res.Body)))
	if err != nil {
		t.Fatal(err)
	}
	var hrefs []string
	doc.Find(`[data-testid="landing-links"] a`).Each(func(_ int, a *goquery.Selection) {
		hrefs = append(hrefs, a.AttrOr("href", ""))
	})
	if !slices.Equal(hrefs, landingLinks) {
		t.Fatalf("the landing page links %v, want %v", hrefs, landingLinks)
	}
	for _, href := range hrefs {
		if res := s.Get(t, href); res.StatusCode != http.StatusOK {
			t.Errorf("the landing page links %s, which answers %d", href, res.StatusCode)
		}
	}
}

// An API client, which does not ask for HTML, gets the same links as a small JSON index.
func TestTheLandingIndexGivesAPIClientsTheSameLinksAsJSON(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	for _, accept := range []string{"", "*/*", "application/json", "application/json, text/html;q=0.5"} {
		res := getRoot(t, s, accept)
		var index map[string]string
		if err := json.Unmarshal(res.Body, &index); err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("GET / (Accept %q): %s, %s (%v)", accept, res.Header.Get("Content-Type"), res.Body, err)
		}
		if index["api"] != "/v1" {
			t.Errorf("GET / (Accept %q): api %q, want /v1", accept, index["api"])
		}
		for _, href := range landingLinks {
			found := false
			for _, v := range index {
				found = found || v == href
			}
			if !found {
				t.Errorf("GET / (Accept %q): %s without %s", accept, res.Body, href)
			}
		}
	}
	// It is the service's front door, not an operation of the API.
	raw, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Paths map[string]any }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths["/"]; ok {
		t.Error("the API document lists /")
	}
}

// In a browser the landing page fits a phone's window and a desktop's, passes axe-core in both
// colour schemes and breaks nothing of its policy.
func TestTheLandingPageFitsAndPassesAxeInABrowser(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	c := newChrome(t, s.URL)
	c.do(cspWatch)
	c.open("/")
	c.shot("00-landing")
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string]("window.__csp"))
	if err != nil || len(v) > 0 {
		t.Fatalf("the landing page broke its policy: %v (%v)", v, err)
	}
	c.submit(`[data-testid="landing-links"] a[href="/admin"]`)
	if got := c.location(); !strings.HasPrefix(got, "/admin/login") {
		t.Fatalf("following Admin pages led to %s", got)
	}
}

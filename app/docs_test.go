package app_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/docs"
)

// externalURL finds an address a page would load from another host.
var externalURL = regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`)

// hashedAsset finds a script or stylesheet of a docs page under its content-hashed name.
var hashedAsset = regexp.MustCompile(`(?:src|href)="/docs/([a-z-]+(?:\.[a-z]+)?\.[0-9a-f]{12}\.(?:js|css))"`)

func TestDocsPagesAndTheirAssetsComeFromTheServiceItself(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	assets := map[string]string{} // hashed name → what its content must mention
	for _, tc := range []struct {
		path     string
		mentions []string
		assets   map[string]string // file → content it must mention
	}{
		{"/docs", []string{`<link rel="icon" type="image/svg+xml" href="/static/paw.`},
			map[string]string{"swagger-ui-bundle": "SwaggerUIBundle", "swagger-init": `validatorUrl: "none"`, "swagger-ui": ".swagger-ui"}},
		{"/docs/redoc", []string{`<redoc spec-url="/docs/openapi.json">`, `<link rel="icon" type="image/svg+xml" href="/static/paw.`},
			map[string]string{"redoc.standalone": "Redoc"}},
	} {
		res := s.Get(t, tc.path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET %s: %d %q, want 200 HTML", tc.path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		for _, m := range tc.mentions {
			if !strings.Contains(string(res.Body), m) {
				t.Errorf("GET %s: body does not contain %s", tc.path, m)
			}
		}
		if m := externalURL.FindString(string(res.Body)); m != "" {
			t.Errorf("GET %s loads from another host: %s", tc.path, m)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self';") || !strings.Contains(csp, "img-src 'self' data:;") {
			t.Errorf("GET %s: Content-Security-Policy %q, want one that keeps the page on this service", tc.path, csp)
		}
		found := map[string]bool{}
		for _, m := range hashedAsset.FindAllStringSubmatch(string(res.Body), -1) {
			file := m[1][:strings.LastIndex(m[1][:len(m[1])-len(path.Ext(m[1]))], ".")]
			if want, ok := tc.assets[file]; ok {
				assets[m[1]], found[file] = want, true
			}
		}
		if len(found) != len(tc.assets) {
			t.Fatalf("GET %s names %v under content-hashed names, want %v", tc.path, slices.Sorted(maps.Keys(found)), slices.Sorted(maps.Keys(tc.assets)))
		}
		for h := range res.Header {
			if strings.HasPrefix(h, "X-Ratelimit") {
				t.Errorf("GET %s carries %s: the docs are not rate limited", tc.path, h)
			}
		}
	}
	for name, mention := range assets {
		var plain []byte
		for _, enc := range []string{"", "gzip", "br", "gzip;q=0.5, br;q=0.1", "deflate", "br;q=0, gzip"} {
			req := s.NewRequest(t, http.MethodGet, "/docs/"+name, nil)
			req.Header.Set("Accept-Encoding", enc) // set, so the client hands the body over as it came
			res := s.Do(t, req)
			want := map[string]string{"": "", "gzip": "gzip", "br": "br", "gzip;q=0.5, br;q=0.1": "gzip", "deflate": "", "br;q=0, gzip": "gzip"}[enc]
			if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != want ||
				res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("Vary") != "Accept-Encoding" {
				t.Fatalf("GET %s with Accept-Encoding %q: %d, Content-Encoding %q (want %q), Cache-Control %q, Vary %q", name, enc, res.StatusCode,
					res.Header.Get("Content-Encoding"), want, res.Header.Get("Cache-Control"), res.Header.Get("Vary"))
			}
			body := decode(t, want, res.Body)
			if plain == nil {
				plain = body
				if !strings.Contains(string(body), mention) {
					t.Fatalf("GET %s: the body does not mention %s", name, mention)
				}
				if ct := res.Header.Get("Content-Type"); ct != map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[path.Ext(name)] {
					t.Fatalf("GET %s: Content-Type %q", name, ct)
				}
			} else if string(body) != string(plain) {
				t.Fatalf("GET %s with Accept-Encoding %q: the body decodes to something else", name, enc)
			} else if want != "" && len(plain) > 10_000 && len(res.Body) > len(plain)/2 {
				t.Fatalf("GET %s %s: %d bytes of %d, barely compressed", name, want, len(res.Body), len(plain))
			}
		}
	}
	// The old, unhashed names are gone; the favicon is where browsers look for it.
	for _, old := range []string{"/docs/swagger-ui-bundle.js", "/docs/redoc.standalone.js", "/docs/favicon-32x32.png"} {
		if res := s.Get(t, old); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", old, res.StatusCode)
		}
	}
	res := s.Get(t, "/favicon.ico")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(string(res.Body), "\x00\x00\x01\x00") {
		t.Fatalf("GET /favicon.ico: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// decode undoes a Content-Encoding.
func decode(t *testing.T, encoding string, body []byte) []byte {
	t.Helper()
	var r io.Reader = bytes.NewReader(body)
	switch encoding {
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(r)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode %s: %v", encoding, err)
	}
	return out
}

func TestServedDocumentListsThisInstanceFirstThenTheConfiguredServers(t *testing.T) {
	t.Parallel()
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

package app_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// linksOf creates a pet and lists two pages, sending the headers given in pairs and host as the
// Host header, and returns the Location and the next-page Link the service answered.
func linksOf(t *testing.T, s *apptest.Server, host string, header ...string) (location, link string) {
	t.Helper()
	for i := range 2 {
		req := s.NewRequest(t, http.MethodPost, "/v1/pets", strings.NewReader(fmt.Sprintf(`{"name":"Pet %d","categoryId":1}`, i)))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		if host != "" {
			req.Host = host
		}
		location = s.Do(t, req).Header.Get("Location")
	}
	req := s.NewRequest(t, http.MethodGet, "/v1/pets?limit=1&status=available", nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if host != "" {
		req.Host = host
	}
	return location, s.Do(t, req).Header.Get("Link")
}

func TestLinkAndLocationAreAbsoluteAndNeverFromAnUntrustedClientsHeaders(t *testing.T) {
	t.Parallel()
	spoof := []string{"X-Forwarded-Host", "evil.example", "X-Forwarded-Proto", "https"}
	t.Run("direct, without PETSTORE_PUBLIC_URL: the address the client connected to", func(t *testing.T) {
		s := apptest.New(t, apptest.Config(t, testenv.SQLite))
		loc, link := linksOf(t, s, "evil.example", spoof...)
		if !strings.HasPrefix(loc, s.URL+"/v1/pets/") || !strings.HasPrefix(link, "<"+s.URL+"/v1/pets?") {
			t.Fatalf("Location %q, Link %q: want both under %s, whatever Host and X-Forwarded-* said", loc, link, s.URL)
		}
		if !strings.Contains(link, "limit=1") || !strings.Contains(link, "status=available") || !strings.HasSuffix(link, `>; rel="next"`) {
			t.Fatalf("Link %q: want the same query with a cursor, rel=next", link)
		}
	})
	t.Run("with PETSTORE_PUBLIC_URL, behind a path prefix", func(t *testing.T) {
		cfg := apptest.Config(t, testenv.SQLite)
		cfg.PublicURL = "https://api.example.com/petstore"
		s := apptest.New(t, cfg)
		loc, link := linksOf(t, s, "evil.example", spoof...)
		if !strings.HasPrefix(loc, "https://api.example.com/petstore/v1/pets/") || !strings.HasPrefix(link, "<https://api.example.com/petstore/v1/pets?") {
			t.Fatalf("Location %q, Link %q: want both under PETSTORE_PUBLIC_URL", loc, link)
		}
	})
	t.Run("from a trusted proxy: the scheme and host it forwarded", func(t *testing.T) {
		cfg := apptest.Config(t, testenv.SQLite)
		cfg.TrustedProxies = []string{"127.0.0.1"}
		s := apptest.New(t, cfg)
		loc, link := linksOf(t, s, "internal:8080", "X-Forwarded-Host", "shop.example", "X-Forwarded-Proto", "https")
		if !strings.HasPrefix(loc, "https://shop.example/v1/pets/") || !strings.HasPrefix(link, "<https://shop.example/v1/pets?") {
			t.Fatalf("Location %q, Link %q: want both under https://shop.example", loc, link)
		}
		loc, _ = linksOf(t, s, "shop.example:8443", "X-Forwarded-Proto", "https")
		if !strings.HasPrefix(loc, "https://shop.example:8443/v1/pets/") {
			t.Fatalf("Location %q: want the Host the proxy forwarded", loc)
		}
		loc, _ = linksOf(t, s, "", "X-Forwarded-Host", "bad host>, x")
		if !strings.HasPrefix(loc, s.URL+"/v1/pets/") {
			t.Fatalf("Location %q from a forwarded host that cannot stand in a URL: want the connection's address", loc)
		}
	})
	t.Run("the deprecation link keeps its 1.0.0 value", func(t *testing.T) {
		cfg := apptest.Config(t, testenv.SQLite)
		cfg.PublicURL = "https://api.example.com"
		s := apptest.New(t, cfg)
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		if got := s.Get(t, fmt.Sprintf("/v1/pets/%d", p.ID)).Header.Get("Link"); got != `</v1/pets>; rel="successor-version"` {
			t.Fatalf("getPet's Link %q", got)
		}
	})
}

func TestPublicURLMustBeAnHTTPAddressWithoutV1(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"api.example.com", "ftp://api.example.com", "https://api.example.com/v1", "https://api.example.com?x=1"} {
		_, err := app.LoadConfig(func(k string) string {
			if k == "PETSTORE_PUBLIC_URL" {
				return bad
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), "PETSTORE_PUBLIC_URL") {
			t.Fatalf("PETSTORE_PUBLIC_URL=%q: error %v, want one naming the variable", bad, err)
		}
	}
	cfg, err := app.LoadConfig(func(k string) string {
		return map[string]string{"PETSTORE_PUBLIC_URL": "https://api.example.com/petstore/"}[k]
	})
	if err != nil || cfg.PublicURL != "https://api.example.com/petstore" {
		t.Fatalf("PETSTORE_PUBLIC_URL with a trailing slash: %q, %v", cfg.PublicURL, err)
	}
}

func TestSingleValueParametersRefuseRepeatsAndEmptyValues(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	for i := range 3 {
		createPet(t, s, map[string]any{"name": fmt.Sprint("Pet ", i), "categoryId": 1})
	}
	next, err := url.Parse(nextLink.FindStringSubmatch(s.Get(t, "/v1/pets?limit=1").Header.Get("Link"))[1])
	if err != nil {
		t.Fatal(err)
	}
	cursor := next.Query().Get("cursor")
	for _, path := range []string{"/v1/pets", "/v1/store/orders"} {
		for _, q := range []string{"limit=1&limit=2", "status=sold&status=sold", "cursor=" + cursor + "&cursor=" + cursor,
			"limit=", "status=", "cursor=", "status", "categoryId=1&categoryId=1", "categoryId="} {
			if path == "/v1/store/orders" && strings.HasPrefix(q, "categoryId") {
				continue
			}
			res := s.Invalid().Get(t, path+"?"+q)
			wantStatusCode(t, path+"?"+q, res, http.StatusBadRequest, "invalid_request")
			if _, msg := res.ErrorBody(t); !strings.Contains(msg, strings.SplitN(q, "=", 2)[0]) {
				t.Fatalf("%s?%s: message %q does not name the parameter", path, q, msg)
			}
		}
	}
	// Names are case-sensitive: LIMIT is not limit (and, like any parameter the operation does
	// not have, is ignored).
	var page []pet
	if s.Invalid().Get(t, "/v1/pets?LIMIT=1").JSON(t, &page); len(page) != 3 {
		t.Fatalf("?LIMIT=1 listed %d pets, want all 3", len(page))
	}
}

// rawGet sends a GET with the headers given in pairs, and reads the answer as it came over the
// wire: not decompressed, not held to the document.
func rawGet(t *testing.T, s *apptest.Server, target string, header ...string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	for k, vs := range s.Headers {
		req.Header[k] = vs
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &apptest.Response{Response: res, Body: body}
}

func decompressed(t *testing.T, res *apptest.Response) []byte {
	t.Helper()
	var r io.Reader
	switch enc := res.Header.Get("Content-Encoding"); enc {
	case "":
		return res.Body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(res.Body))
	default:
		t.Fatalf("Content-Encoding %q", enc)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s body does not decode: %v", res.Header.Get("Content-Encoding"), err)
	}
	return out
}

func TestAnswersOf1KiBOrMoreAreCompressedAsTheClientPrefers(t *testing.T) {
	t.Parallel()
	gzipped := bytes.Repeat([]byte("precompressed "), 300)
	var pre bytes.Buffer
	zw := gzip.NewWriter(&pre)
	_, _ = zw.Write(gzipped)
	_ = zw.Close()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite), apptest.WithRoutes(func(a *fiber.App) {
		// A file served already compressed, as the documentation's large scripts may be.
		a.Get("/v1/precompressed", func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
			c.Set(fiber.HeaderContentEncoding, "gzip")
			return c.Send(pre.Bytes())
		})
	}))
	s.CreateStaff(t, "sam", staffPassword, models.RoleStaff)
	for i := range 30 {
		createPet(t, s, map[string]any{"name": fmt.Sprint("A pet with a longer name, number ", i), "categoryId": 1})
	}
	plain := rawGet(t, s, "/v1/pets?limit=100")
	if plain.Header.Get("Content-Encoding") != "" || len(plain.Body) < 1024 || !strings.Contains(plain.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("without Accept-Encoding: %d bytes, Content-Encoding %q, Vary %q; want it plain, over 1 KiB, with Vary",
			len(plain.Body), plain.Header.Get("Content-Encoding"), plain.Header.Get("Vary"))
	}
	for _, tc := range []struct{ accept, want string }{
		{"gzip", "gzip"},
		{"br", "br"},
		{"gzip, deflate, br", "gzip"},
		{"gzip;q=0.8, br", "br"},
		{"gzip;q=1.0, br;q=0.5", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"x-gzip", "gzip"},
		{"*", "gzip"},
		{"*;q=0.5, br;q=0", "gzip"},
		{"identity", ""},
		{"deflate", ""},
		{"gzip;q=0", ""},
	} {
		res := rawGet(t, s, "/v1/pets?limit=100", "Accept-Encoding", tc.accept)
		if got := res.Header.Get("Content-Encoding"); got != tc.want {
			t.Fatalf("Accept-Encoding %q: Content-Encoding %q, want %q", tc.accept, got, tc.want)
		}
		if !bytes.Equal(decompressed(t, res), plain.Body) || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("Accept-Encoding %q: the body does not decode to the plain answer, or no Vary", tc.accept)
		}
		if tc.want != "" && len(res.Body)*3 > len(plain.Body) {
			t.Fatalf("Accept-Encoding %q: %d bytes for %d plain", tc.accept, len(res.Body), len(plain.Body))
		}
	}

	p := createPet(t, s, map[string]any{"name": "Small", "categoryId": 1})
	if res := rawGet(t, s, fmt.Sprintf("/v1/pets/%d", p.ID), "Accept-Encoding", "gzip"); res.Header.Get("Content-Encoding") != "" ||
		!strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("an answer under 1 KiB: Content-Encoding %q, Vary %q; want it plain, with Vary", res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
	}
	doc := rawGet(t, s, "/docs/openapi.json", "Accept-Encoding", "gzip")
	if doc.Header.Get("Content-Encoding") != "gzip" || !bytes.HasPrefix(decompressed(t, doc), []byte("{")) {
		t.Fatalf("the API document: Content-Encoding %q", doc.Header.Get("Content-Encoding"))
	}
	if res := rawGet(t, s, "/v1/precompressed", "Accept-Encoding", "gzip, br"); res.Header.Get("Content-Encoding") != "gzip" ||
		!bytes.Equal(res.Body, pre.Bytes()) || !bytes.Equal(decompressed(t, res), gzipped) {
		t.Fatalf("an answer already compressed was changed: Content-Encoding %q, %d bytes (sent %d)", res.Header.Get("Content-Encoding"), len(res.Body), pre.Len())
	}

	// The admin pages show secrets: never compressed, however large.
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	req := s.NewRequest(t, http.MethodGet, "/admin/pets", nil)
	req.Header.Set("Accept-Encoding", "gzip, br")
	res, err := b.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || len(body) < 1024 || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("an admin page of %d bytes: %d, Content-Encoding %q; want 200, plain", len(body), res.StatusCode, res.Header.Get("Content-Encoding"))
	}
}

func TestBrowsersMayChangeAndDeletePetsAcrossOriginsWithConditions(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.CORSOrigins = []string{"https://shop.example.com"}
	s := apptest.New(t, cfg).Invalid() // OPTIONS is no operation of the document
	for _, method := range []string{"PATCH", "DELETE"} {
		req := s.NewRequest(t, "OPTIONS", "/v1/pets/1", nil)
		req.Header.Set("Origin", "https://shop.example.com")
		req.Header.Set("Access-Control-Request-Method", method)
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,if-match")
		res := s.Do(t, req)
		if res.StatusCode != 204 || !strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), method) ||
			!strings.Contains(strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")), "if-match") {
			t.Fatalf("preflight of %s with If-Match: %d %v", method, res.StatusCode, res.Header)
		}
	}
	req := s.NewRequest(t, "GET", "/v1/pets", nil)
	req.Header.Set("Origin", "https://shop.example.com")
	if res := s.Do(t, req); !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Fatalf("ETag is not exposed to the page: %v", res.Header)
	}
}

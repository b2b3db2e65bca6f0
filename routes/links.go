package routes

import (
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// publicBase is where clients reach the service, without /v1 and without a trailing slash
// (PETSTORE_PUBLIC_URL); the absolute URLs of Link and Location start with it. Empty, they start
// with the scheme and host the request came to.
type publicBase string

// of returns the base for c's request. Without a configured one, only a trusted proxy's
// X-Forwarded-Proto and X-Forwarded-Host (or the Host it forwarded) are believed; from anyone
// else, the address the connection came to is used, never a header the client chose, so nobody
// can make the service hand out links to another site.
func (b publicBase) of(c *fiber.Ctx) string {
	if b != "" {
		return string(b)
	}
	scheme := "http"
	if c.Context().IsTLS() {
		scheme = "https"
	}
	if c.IsProxyTrusted() {
		if c.Protocol() == "https" {
			scheme = "https"
		}
		if host := c.Hostname(); validHost(host) {
			return scheme + "://" + host
		}
	}
	return scheme + "://" + c.Context().LocalAddr().String()
}

// validHost accepts a host[:port] that can stand in a URL as it is.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-:[]", c) >= 0) {
			return false
		}
	}
	return true
}

// pageURL is the URL of the page a cursor leads to: base, this request's path and its query
// with the cursor replaced (nil: the first page). Empty parameters are dropped. The query is
// written as url.Values' Encode writes it (keys sorted, each key's values in their order),
// without building the map: this is on every page of every list.
func pageURL(c *fiber.Ctx, base string, cur *models.Cursor) string {
	type param struct{ key, value string }
	params := make([]param, 0, 8)
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if len(v) > 0 && string(k) != "cursor" {
			params = append(params, param{string(k), string(v)})
		}
	})
	if cur != nil {
		params = append(params, param{"cursor", cur.Encode()})
	}
	slices.SortStableFunc(params, func(a, b param) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	b.WriteString(base)
	b.WriteString(c.Path())
	for i, p := range params {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.key))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p.value))
	}
	return b.String()
}

// setNextLink announces the next page of an API list (RFC 8288), absent on the last page.
func setNextLink(c *fiber.Ctx, base publicBase, next *models.Cursor) {
	if next != nil {
		c.Set(fiber.HeaderLink, "<"+pageURL(c, base.of(c), next)+`>; rel="next"`)
	}
}

package routes

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// publicBase is where clients reach the service, without /v1 and without a trailing slash
// (PETSTORE_PUBLIC_URL); the absolute URLs of Link and Location start with it. Empty, they start
// with the scheme and host the request came to.
type publicBase struct {
	url string
	// proxies says whether any proxy is trusted (PETSTORE_TRUSTED_PROXIES); without one no
	// request's forwarding headers are believed, and fiber need not be asked about each.
	proxies bool
}

// of returns the base for c's request.
func (b publicBase) of(c *fiber.Ctx) string {
	if b.url != "" {
		return b.url
	}
	return string(b.appendTo(nil, c))
}

// appendTo appends the base for c's request to dst. Without a configured one, only a trusted
// proxy's X-Forwarded-Proto and X-Forwarded-Host (or the Host it forwarded) are believed; from
// anyone else, the address the connection came to is used, never a header the client chose, so
// nobody can make the service hand out links to another site.
func (b publicBase) appendTo(dst []byte, c *fiber.Ctx) []byte {
	if b.url != "" {
		return append(dst, b.url...)
	}
	scheme := "http"
	if c.Context().IsTLS() {
		scheme = "https"
	}
	if b.proxies && c.IsProxyTrusted() {
		if c.Protocol() == "https" {
			scheme = "https"
		}
		if host := c.Hostname(); validHost(host) {
			return append(append(append(dst, scheme...), "://"...), host...)
		}
	}
	return appendAddr(append(append(dst, scheme...), "://"...), c.Context().LocalAddr())
}

// appendAddr appends a as its String method writes it (host:port, an IPv6 host in brackets),
// without the strings that makes.
func appendAddr(dst []byte, a net.Addr) []byte {
	if tcp, ok := a.(*net.TCPAddr); ok {
		ap := tcp.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).AppendTo(dst)
	}
	return append(dst, a.String()...)
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
// without building the map.
func pageURL(c *fiber.Ctx, base string, cur *models.Cursor) string {
	return string(appendPageURL(append([]byte(nil), base...), c, cur))
}

// appendPageURL appends pageURL without base to dst. It is on every page of every list, so it
// refers to the request's own parameters instead of copying them, and escapes only what needs
// it (a cursor never does).
func appendPageURL(dst []byte, c *fiber.Ctx, cur *models.Cursor) []byte {
	type param struct{ key, value []byte }
	var room [8]param
	params := room[:0]
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		// An admin table's page number (page) is a place the cursor replaces.
		if len(v) > 0 && string(k) != "cursor" && string(k) != "page" {
			params = append(params, param{k, v})
		}
	})
	if cur != nil {
		var enc [2 * models.MaxCursorLength]byte
		params = append(params, param{[]byte("cursor"), cur.AppendEncoded(enc[:0])})
	}
	// Sorted by key, keeping each key's values in their order: an insertion sort, on a few.
	for i := 1; i < len(params); i++ {
		for j := i; j > 0 && string(params[j].key) < string(params[j-1].key); j-- {
			params[j], params[j-1] = params[j-1], params[j]
		}
	}
	dst = append(dst, c.Path()...)
	for i, p := range params {
		if i == 0 {
			dst = append(dst, '?')
		} else {
			dst = append(dst, '&')
		}
		dst = appendQueryEscape(dst, p.key)
		dst = append(dst, '=')
		dst = appendQueryEscape(dst, p.value)
	}
	return dst
}

// appendQueryEscape appends s escaped as url.QueryEscape escapes it.
func appendQueryEscape(dst, s []byte) []byte {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
			return append(dst, url.QueryEscape(string(s))...)
		}
	}
	return append(dst, s...)
}

// linkHeader is Link as fasthttp writes a header's name.
var linkHeader = []byte(fiber.HeaderLink)

// setNextLink announces the next page of an API list (RFC 8288), absent on the last page.
func setNextLink(c *fiber.Ctx, base publicBase, next *models.Cursor) {
	if next == nil {
		return
	}
	var room [256]byte
	b := append(room[:0], '<')
	b = base.appendTo(b, c)
	b = appendPageURL(b, c, next)
	b = append(b, `>; rel="next"`...)
	c.Response().Header.SetCanonical(linkHeader, b)
}

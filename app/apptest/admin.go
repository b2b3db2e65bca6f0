package apptest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/models"
	"golang.org/x/crypto/bcrypt"
)

// CreateStaff adds a staff account to the server's database, its password hashed at bcrypt's
// lowest cost so that logging in stays quick under the race detector.
func (s *Server) CreateStaff(tb testing.TB, username, password string, role models.Role) *models.Staff {
	tb.Helper()
	st, err := models.NewStaffStore(s.DB).WithHashCost(bcrypt.MinCost).Create(models.WithActor(context.Background(), models.ActorCLI), models.NewStaff{Username: username, Password: password, Role: string(role)})
	if err != nil {
		tb.Fatalf("create staff %s: %v", username, err)
	}
	return st
}

// Browser is a staff member's browser without JavaScript: it keeps cookies, does not follow
// redirects by itself (tests check where they lead), and posts forms with the CSRF token of the
// last page it read.
type Browser struct {
	s      *Server
	Client *http.Client
	// CSRF is the token of the last page that had a form.
	CSRF string
}

// Server is the service the browser visits.
func (b *Browser) Server() *Server { return b.s }

// NewBrowser returns a browser with no cookies.
func (s *Server) NewBrowser(tb testing.TB) *Browser {
	tb.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return &Browser{s: s, Client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Page is an HTML answer, parsed.
type Page struct {
	*Response
	Doc *goquery.Document
}

// TestID returns the elements marked data-testid=id.
func (p *Page) TestID(id string) *goquery.Selection {
	return p.Doc.Find(`[data-testid="` + id + `"]`)
}

// Text is the trimmed text of the elements marked data-testid=id.
func (p *Page) Text(id string) string {
	return strings.TrimSpace(p.TestID(id).Text())
}

// Location is where a redirect leads.
func (p *Page) Location() string { return p.Header.Get("Location") }

// Do sends req with the browser's cookies and parses the answer as HTML.
func (b *Browser) Do(tb testing.TB, req *http.Request) *Page {
	tb.Helper()
	res, err := b.Client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(res.Body); err != nil {
		tb.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body.Bytes()))
	if err != nil {
		tb.Fatalf("%s %s: body is not HTML: %v", req.Method, req.URL, err)
	}
	if tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value"); ok {
		b.CSRF = tok
	}
	return &Page{Response: &Response{Response: res, Body: body.Bytes()}, Doc: doc}
}

// Get reads a page; target is a path such as /admin/pets.
func (b *Browser) Get(tb testing.TB, target string) *Page {
	tb.Helper()
	return b.Do(tb, b.s.NewRequest(tb, http.MethodGet, target, nil))
}

// Post submits a form; the CSRF token of the last page is added unless form has one.
func (b *Browser) Post(tb testing.TB, target string, form url.Values) *Page {
	tb.Helper()
	if form == nil {
		form = url.Values{}
	}
	if !form.Has("_csrf") {
		form.Set("_csrf", b.CSRF)
	}
	req := b.s.NewRequest(tb, http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.Do(tb, req)
}

// Follow reads the page a redirect leads to.
func (b *Browser) Follow(tb testing.TB, p *Page) *Page {
	tb.Helper()
	if p.StatusCode < 300 || p.StatusCode > 399 {
		tb.Fatalf("%s %s: status %d, want a redirect\n%s", p.Request.Method, p.Request.URL, p.StatusCode, p.Body)
	}
	return b.Get(tb, p.Location())
}

// Login signs in through the login form and returns the page it leads to.
func (b *Browser) Login(tb testing.TB, username, password string) *Page {
	tb.Helper()
	b.Get(tb, "/admin/login")
	res := b.Post(tb, "/admin/login", url.Values{"username": {username}, "password": {password}})
	if res.StatusCode != http.StatusSeeOther {
		tb.Fatalf("login as %s: status %d, want 303\n%s", username, res.StatusCode, res.Body)
	}
	return b.Follow(tb, res)
}

// Cookie returns the value of the browser's cookie name for the admin pages.
func (b *Browser) Cookie(name string) string {
	u, _ := url.Parse(b.s.URL + "/admin/")
	for _, c := range b.Client.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

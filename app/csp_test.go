package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// adminPagesToVisit are pages of every kind: a form, lists, an item, an admin-only page, an
// error page.
var adminPagesToVisit = []string{"/admin", "/admin/pets", "/admin/pets/1", "/admin/pets/new", "/admin/orders",
	"/admin/categories", "/admin/keys", "/admin/staff", "/admin/nothing-here"}

// checkAdminCSP fails unless policy lets scripts come only from this service and runs nothing
// inline.
func checkAdminCSP(t *testing.T, path, policy string) {
	t.Helper()
	directives := map[string]string{}
	for _, d := range strings.Split(policy, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	script, ok := directives["script-src"]
	if !ok {
		script = directives["default-src"]
	}
	if script != "'self'" || strings.Contains(policy, "unsafe-") || directives["frame-ancestors"] != "'none'" {
		t.Fatalf("%s: Content-Security-Policy %q, want scripts from 'self' only, nothing inline or eval'd, no framing", path, policy)
	}
}

func TestAdminPagesHaveACSPAndNoInlineScript(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	check := func(path string, p *apptest.Page) {
		t.Helper()
		if p.StatusCode >= 500 || p.StatusCode == http.StatusSeeOther {
			t.Fatalf("%s: %d", path, p.StatusCode)
		}
		checkAdminCSP(t, path, p.Header.Get("Content-Security-Policy"))
		p.Doc.Find("*").Each(func(_ int, el *goquery.Selection) {
			tag := goquery.NodeName(el)
			if src, _ := el.Attr("src"); tag == "script" && src == "" {
				t.Fatalf("%s: an inline script: %s", path, el.Text())
			}
			if tag == "style" {
				t.Fatalf("%s: an inline style element", path)
			}
			for _, a := range el.Nodes[0].Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "style" || strings.HasPrefix(strings.TrimSpace(strings.ToLower(a.Val)), "javascript:") {
					t.Fatalf("%s: <%s %s=%q> is inline script or style", path, tag, a.Key, a.Val)
				}
			}
		})
	}
	b := s.NewBrowser(t)
	check("/admin/login", b.Get(t, "/admin/login"))
	b.Login(t, "ada", adminPassword)
	for _, path := range adminPagesToVisit {
		check(path, b.Get(t, path))
	}
}

// cspWatch records, in every page the browser opens, each violation of the page's policy.
func cspWatch(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__csp = []; document.addEventListener("securitypolicyviolation",
			e => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`,
	})
	return chromedp.Void{}, err
}

func TestAdminPagesWorkUnderTheirCSPInABrowserAndInjectedScriptDoesNotRun(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	c := newChrome(t, s.URL)
	c.do(cspWatch)
	violations := func(path string) []string {
		t.Helper()
		v, err := chromedp.Run(c.ctx, chromedp.Evaluate[[]string]("window.__csp"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}

	c.open("/admin/login")
	c.fill("#username", "ada")
	c.fill("#password", adminPassword)
	c.submit(`[data-testid="login-form"] button[type="submit"]`)
	for _, path := range adminPagesToVisit {
		c.open(path)
		if v := violations(path); len(v) > 0 {
			t.Fatalf("%s breaks its own policy: %v", path, v)
		}
	}
	loaded, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](
		`performance.getEntriesByType("resource").some(e => e.name.includes("/static/admin.") && e.name.endsWith(".js"))`))
	if err != nil || !loaded {
		t.Fatalf("the admin script did not load under the policy: %v", err)
	}

	// Markup that slipped through escaping could add a script element; the policy stops it.
	ran, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`(() => {
		const s = document.createElement("script");
		s.textContent = "window.__injected = true";
		document.head.appendChild(s);
		return window.__injected === true;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	v := violations("injected script")
	if ran || len(v) == 0 || !strings.HasPrefix(v[0], "script-src") {
		t.Fatalf("an injected inline script ran=%v, violations %v; want it refused by script-src", ran, v)
	}
}

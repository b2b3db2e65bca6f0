package app_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

const (
	adminPassword = "admin password 1"
	staffPassword = "staff password 1"
)

// adminServer starts the service with one admin (ada) and one staff member (sam).
func adminServer(t *testing.T, store testenv.Store) *apptest.Server {
	t.Helper()
	return adminServerWith(t, store, func(*app.Config) {})
}

// adminServerWith is adminServer with its configuration changed by edit first.
func adminServerWith(t *testing.T, store testenv.Store, edit func(*app.Config)) *apptest.Server {
	t.Helper()
	cfg := apptest.Config(t, store)
	edit(&cfg)
	// Webhook endpoints on loopback are accepted (none of these servers delivers).
	cfg.WebhookAllowHTTP, cfg.WebhookAllowPrivate = true, true
	s := apptest.New(t, cfg)
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	s.CreateStaff(t, "sam", staffPassword, models.RoleStaff)
	return s
}

// adminServerBehindTLS is adminServer behind a TLS-terminating proxy on this machine, which the
// service trusts (PETSTORE_TRUSTED_PROXIES) when its X-Forwarded-Proto says the client used HTTPS.
func adminServerBehindTLS(t *testing.T) *apptest.Server {
	t.Helper()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.TrustedProxies = []string{"127.0.0.1"}
	s := apptest.New(t, cfg)
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	s.CreateStaff(t, "sam", staffPassword, models.RoleStaff)
	return s
}

func wantStatus(t *testing.T, p *apptest.Page, status int) {
	t.Helper()
	if p.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d\n%s", p.Request.Method, p.Request.URL, p.StatusCode, status, p.Body)
	}
}

func TestAdminPagesSendVisitorsToLoginAndBackAfterIt(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	for _, path := range []string{"/admin", "/admin/pets", "/admin/pets/1", "/admin/categories", "/admin/staff"} {
		p := b.Get(t, path)
		wantStatus(t, p, http.StatusSeeOther)
		if want := "/admin/login?next=" + url.QueryEscape(path); p.Location() != want {
			t.Fatalf("GET %s: Location %q, want %q", path, p.Location(), want)
		}
	}
	first := b.Get(t, "/admin/pets?status=sold&q=rex")
	login := b.Follow(t, first)
	wantStatus(t, login, http.StatusOK)
	next, _ := login.Doc.Find(`input[name="next"]`).Attr("value")
	if next != "/admin/pets?status=sold&q=rex" {
		t.Fatalf("login form's next %q, want the page that was asked for", next)
	}
	res := b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {adminPassword}, "next": {next}})
	wantStatus(t, res, http.StatusSeeOther)
	if res.Location() != next {
		t.Fatalf("after login: Location %q, want %q", res.Location(), next)
	}
	if got := b.Follow(t, res).Text("me"); got != "ada" {
		t.Fatalf("signed in as %q, want ada", got)
	}
	// Once signed in, the login page sends straight on.
	if p := b.Get(t, "/admin/login"); p.StatusCode != http.StatusSeeOther || p.Location() != "/admin" {
		t.Fatalf("login page while signed in: %d %q, want 303 to /admin", p.StatusCode, p.Location())
	}
}

func TestLoginRedirectStaysInsideTheAdminPages(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	for _, next := range []string{"https://evil.example/", "//evil.example/admin", "/\\evil.example", "/v1/pets", "javascript:alert(1)", "/admin/logout"} {
		b := s.NewBrowser(t)
		b.Get(t, "/admin/login?next="+url.QueryEscape(next))
		res := b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {adminPassword}, "next": {next}})
		if res.Location() != "/admin" {
			t.Fatalf("next=%q: Location %q, want /admin", next, res.Location())
		}
	}
}

func TestLoginStartsANewSessionAndThePlantedIDIsWorthNothing(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Get(t, "/admin/login")
	if b.Cookie("petstore_session") != "" {
		t.Fatal("reading the login page started a session")
	}
	// An attacker plants a session id of their choosing in the browser before its owner logs in.
	before := "planted-by-an-attacker"
	u, _ := url.Parse(s.URL + "/admin/")
	b.Client.Jar.SetCookies(u, []*http.Cookie{{Name: "petstore_session", Value: before, Path: "/admin"}})
	b.Login(t, "ada", adminPassword)
	after := b.Cookie("petstore_session")
	if after == "" || after == before {
		t.Fatalf("session id after login %q, want a new one (before: %q)", after, before)
	}
	// An attacker who planted the old id gets nothing from it.
	attacker := s.NewBrowser(t)
	req := s.NewRequest(t, http.MethodGet, "/admin", nil)
	req.AddCookie(&http.Cookie{Name: "petstore_session", Value: before})
	if p := attacker.Do(t, req); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("the pre-login session id opened /admin: %d", p.StatusCode)
	}
	if p := b.Get(t, "/admin"); p.StatusCode != http.StatusOK {
		t.Fatalf("the new session id: /admin answered %d", p.StatusCode)
	}
}

func TestSessionCookiesAreHttpOnlyLaxAndSecureBehindTLS(t *testing.T) {
	t.Parallel()
	s := adminServerBehindTLS(t)
	for _, tls := range []bool{false, true} {
		b := s.NewBrowser(t)
		req := s.NewRequest(t, http.MethodGet, "/admin/login", nil)
		host := strings.TrimPrefix(s.URL, "http://")
		if tls {
			req.Header.Set("X-Forwarded-Proto", "https")
		}
		login := b.Do(t, req)
		form := url.Values{"username": {"ada"}, "password": {adminPassword}, "_csrf": {b.CSRF}}
		req = s.NewRequest(t, http.MethodPost, "/admin/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tls {
			req.Header.Set("X-Forwarded-Proto", "https")
			req.Header.Set("Referer", "https://"+host+"/admin/login")
		}
		p := b.Do(t, req)
		cookies := append(login.Header.Values("Set-Cookie"), p.Header.Values("Set-Cookie")...)
		if len(cookies) != 2 || !strings.HasPrefix(cookies[0], "petstore_csrf=") || !strings.HasPrefix(cookies[1], "petstore_session=") {
			t.Fatalf("Set-Cookie %q: want the CSRF cookie on the login page and the session cookie at login", cookies)
		}
		for _, c := range cookies {
			if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") || !strings.Contains(c, "path=/admin") {
				t.Fatalf("cookie %q: want HttpOnly, SameSite=Lax, path=/admin", c)
			}
			if strings.Contains(c, "secure") != tls {
				t.Fatalf("TLS %v: cookie %q, want Secure exactly behind TLS", tls, c)
			}
		}
		if cc := p.Header.Get("Cache-Control"); cc != "no-store" {
			t.Fatalf("admin page Cache-Control %q, want no-store", cc)
		}
	}
}

func TestFormsWithoutTheirCSRFTokenAreRefused(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		// Login itself needs the token.
		b := s.NewBrowser(t)
		b.Get(t, "/admin/login")
		p := b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {adminPassword}, "_csrf": {""}})
		wantStatus(t, p, http.StatusForbidden)
		if !strings.Contains(p.Text("error-message"), "expired") {
			t.Fatalf("CSRF refusal page says %q", p.Text("error-message"))
		}

		b.Login(t, "ada", adminPassword)
		b.Get(t, "/admin/pets/new")
		form := url.Values{"name": {"Rex"}, "categoryId": {"1"}, "status": {"available"}}
		for name, token := range map[string]string{"missing": "", "wrong": "not-the-token"} {
			form.Set("_csrf", token)
			if p := b.Post(t, "/admin/pets", form); p.StatusCode != http.StatusForbidden || p.TestID("error-page").Length() != 1 {
				t.Fatalf("%s token: %d, want 403 with the error page\n%s", name, p.StatusCode, p.Body)
			}
		}
		// Another browser's valid token does not work in this session either.
		other := s.NewBrowser(t)
		other.Login(t, "sam", staffPassword)
		other.Get(t, "/admin/pets/new")
		form.Set("_csrf", other.CSRF)
		if p := b.Post(t, "/admin/pets", form); p.StatusCode != http.StatusForbidden {
			t.Fatalf("another session's token: %d, want 403", p.StatusCode)
		}
		if n := countPets(t, s); n != 0 {
			t.Fatalf("refused forms created %d pets", n)
		}
		form.Del("_csrf")
		if p := b.Post(t, "/admin/pets", form); p.StatusCode != http.StatusSeeOther {
			t.Fatalf("with its own token: %d, want 303\n%s", p.StatusCode, p.Body)
		}
	})
}

func TestRepeatedFailedLoginsAreSlowedDown(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Get(t, "/admin/login")
	for i := 0; i < 5; i++ {
		p := b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {"wrong password " + fmt.Sprint(i)}})
		wantStatus(t, p, http.StatusUnauthorized)
		if p.Text("form-error") != "Wrong username or password." {
			t.Fatalf("failed login %d says %q", i+1, p.Text("form-error"))
		}
		if v, _ := p.Doc.Find("#username").Attr("value"); v != "ada" {
			t.Fatalf("the form lost the username: %q", v)
		}
	}
	// Even the right password waits now, so guessing cannot go on at full speed.
	p := b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {adminPassword}})
	wantStatus(t, p, http.StatusTooManyRequests)
	if !strings.Contains(p.Text("form-error"), "Try again in 15 minutes") || p.Header.Get("Retry-After") != "900" {
		t.Fatalf("throttled login says %q, Retry-After %q", p.Text("form-error"), p.Header.Get("Retry-After"))
	}
	if b.Cookie("petstore_session") != "" && b.Get(t, "/admin").StatusCode != http.StatusSeeOther {
		t.Fatal("a throttled login opened a session")
	}
	// Another account is not locked out by guesses against this one.
	b.Login(t, "sam", staffPassword)
}

func TestLogoutEndsTheSessionOnTheServer(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	id := b.Cookie("petstore_session")
	if p := b.Get(t, "/admin/logout"); p.Doc.Find(`form[action="/admin/logout"] button`).Length() == 0 {
		t.Fatalf("GET /admin/logout shows no logout button:\n%s", p.Body)
	}
	p := b.Post(t, "/admin/logout", nil)
	wantStatus(t, p, http.StatusSeeOther)
	if got := b.Follow(t, p).Text("flash"); got != "You have been logged out." {
		t.Fatalf("after logout the login page says %q", got)
	}
	replay := s.NewBrowser(t)
	req := s.NewRequest(t, http.MethodGet, "/admin", nil)
	req.AddCookie(&http.Cookie{Name: "petstore_session", Value: id})
	if p := replay.Do(t, req); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("the logged-out session id still opens /admin: %d", p.StatusCode)
	}
}

func TestStaffCannotOpenAdminOnlyPages(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	home := b.Login(t, "sam", staffPassword)
	if home.TestID("nav-admin").Length() != 0 {
		t.Fatal("the staff role's navigation shows admin pages")
	}
	if home.TestID("nav-pets").Length() != 1 || home.TestID("nav-store").Length() != 1 {
		t.Fatal("the navigation lacks the Pets and Store groups")
	}
	for _, path := range []string{"/admin/clients", "/admin/staff"} {
		p := b.Get(t, path)
		wantStatus(t, p, http.StatusForbidden)
		if p.TestID("error-page").Length() != 1 {
			t.Fatalf("GET %s as staff: no error page\n%s", path, p.Body)
		}
	}
	b.Get(t, "/admin/pets")
	for path, form := range map[string]url.Values{
		"/admin/categories/1": {"name": {"Horses"}},
		"/admin/staff":        {"username": {"eve"}, "password": {"a long password 1"}, "role": {"admin"}},
	} {
		if p := b.Post(t, path, form); p.StatusCode != http.StatusForbidden {
			t.Fatalf("POST %s as staff: %d, want 403", path, p.StatusCode)
		}
	}
	admin := s.NewBrowser(t).Login(t, "ada", adminPassword)
	if admin.TestID("nav-admin").Length() != 1 {
		t.Fatal("the admin's navigation lacks the Admin group")
	}
}

func TestDisabledStaffAreSignedOutAtTheirNextRequest(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	samBrowser := s.NewBrowser(t)
	samBrowser.Login(t, "sam", staffPassword)
	ada := s.NewBrowser(t)
	ada.Login(t, "ada", adminPassword)
	list := ada.Get(t, "/admin/staff")
	var samID string
	list.TestID("staff-row").Each(func(_ int, row *goquery.Selection) {
		if strings.TrimSpace(row.Find(`[data-testid="username"]`).Text()) == "sam" {
			samID, _ = row.Attr("data-id")
		}
	})
	if samID == "" {
		t.Fatalf("sam is not in the staff list\n%s", list.Body)
	}
	p := ada.Post(t, "/admin/staff/"+samID+"/disable", nil)
	wantStatus(t, p, http.StatusSeeOther)
	if p := samBrowser.Get(t, "/admin"); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("a disabled account's session still opens /admin: %d", p.StatusCode)
	}
	login := s.NewBrowser(t)
	login.Get(t, "/admin/login")
	if p := login.Post(t, "/admin/login", url.Values{"username": {"sam"}, "password": {staffPassword}}); p.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a disabled account logged in: %d", p.StatusCode)
	}
}

func TestAdminErrorsAreHTMLPagesAndAPIErrorsStayJSON(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	for path, status := range map[string]int{"/admin/nothing": 404, "/admin/pets/999": 404, "/admin/pets/abc": 400, "/admin/pets?status=lost": 400, "/admin/pets?cursor=bad": 400} {
		p := b.Get(t, path)
		wantStatus(t, p, status)
		if ct := p.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" || p.TestID("error-page").Length() != 1 {
			t.Fatalf("GET %s: Content-Type %q, want the HTML error page\n%s", path, ct, p.Body)
		}
		if p.TestID("nav").Length() != 1 {
			t.Fatalf("GET %s: the error page lacks the navigation", path)
		}
	}
	res := s.Invalid().Get(t, "/v1/nothing")
	if code, _ := res.ErrorBody(t); code != "not_found" {
		t.Fatalf("/v1 error code %q", code)
	}
}

var hashedCSS = regexp.MustCompile(`/static/admin\.[0-9a-f]{12}\.css`)

func TestStaticFilesHaveHashedNamesAndLongCaching(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	login := s.NewBrowser(t).Get(t, "/admin/login")
	href, _ := login.Doc.Find(`link[rel="stylesheet"]`).Attr("href")
	if !hashedCSS.MatchString(href) {
		t.Fatalf("stylesheet %q, want a content-hashed name", href)
	}
	res := s.Get(t, href)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/css; charset=utf-8" ||
		res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || !strings.Contains(string(res.Body), ".btn") {
		t.Fatalf("GET %s: %d %q %q", href, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	if res := s.Get(t, "/static/admin.css"); res.StatusCode != 404 {
		t.Fatalf("an unhashed name answered %d, want 404", res.StatusCode)
	}
	for _, sel := range []string{"script", "link[rel=icon]"} {
		src := login.Doc.Find(sel).AttrOr("src", login.Doc.Find(sel).AttrOr("href", ""))
		if res := s.Get(t, src); res.StatusCode != 200 {
			t.Fatalf("%s %s: %d", sel, src, res.StatusCode)
		}
	}
}

func TestWithRedisEveryInstanceSharesTheSessions(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.Postgres)
	cfg.RedisURL = testenv.RedisURL(t)
	cfg.RedisPrefix = testenv.RedisPrefix(t)
	first := apptest.New(t, cfg)
	second := apptest.New(t, cfg)
	name := "redis-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))[:20]
	first.CreateStaff(t, name, staffPassword, models.RoleStaff)

	b := first.NewBrowser(t)
	b.Login(t, name, staffPassword)
	if keys, err := testenv.RedisClient(t, cfg.RedisURL).Keys(t.Context(), cfg.RedisPrefix+"session:*").Result(); err != nil || len(keys) == 0 {
		t.Fatalf("no session under the deployment's Redis prefix %q: %v", cfg.RedisPrefix, err)
	}
	onSecond := second.NewBrowser(t)
	onSecond.Client = b.Client // the same browser, talking to the other instance
	p := onSecond.Get(t, "/admin/pets/new")
	wantStatus(t, p, http.StatusOK)
	// A form from one instance posts to the other: the CSRF token lives in the shared session.
	res := onSecond.Post(t, "/admin/pets", url.Values{"name": {"Shared"}, "categoryId": {"1"}, "status": {"available"}})
	wantStatus(t, res, http.StatusSeeOther)
	// Logging out on one ends the session on both.
	b.Get(t, "/admin")
	wantStatus(t, b.Post(t, "/admin/logout", nil), http.StatusSeeOther)
	req := second.NewRequest(t, http.MethodGet, "/admin", nil)
	if p := onSecond.Do(t, req); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("after logout on the first instance the second still answers %d", p.StatusCode)
	}
}

func TestBehindTLSAFormPostMustComeFromThisSite(t *testing.T) {
	t.Parallel()
	s := adminServerBehindTLS(t)
	b := s.NewBrowser(t)
	req := s.NewRequest(t, http.MethodGet, "/admin/login", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	b.Do(t, req)
	host := strings.TrimPrefix(s.URL, "http://")
	form := url.Values{"username": {"ada"}, "password": {adminPassword}, "_csrf": {b.CSRF}}
	post := func(referer string) *apptest.Page {
		req := s.NewRequest(t, http.MethodPost, "/admin/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-Proto", "https")
		if referer != "" {
			req.Header.Set("Referer", referer)
		}
		return b.Do(t, req)
	}
	for _, referer := range []string{"", "https://evil.example/admin/login", "http://" + host + "/admin/login"} {
		if p := post(referer); p.StatusCode != http.StatusForbidden {
			t.Fatalf("Referer %q over TLS: %d, want 403", referer, p.StatusCode)
		}
	}
	if p := post("https://" + host + "/admin/login"); p.StatusCode != http.StatusSeeOther {
		t.Fatalf("same-origin Referer over TLS: %d, want 303\n%s", p.StatusCode, p.Body)
	}
}

func TestADatabaseTimeoutStillShowsTheErrorPage(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	db := apptest.OpenDB(t, cfg)
	cfg.DBTimeout = time.Nanosecond
	a := app.NewServer(cfg, slog.New(slog.DiscardHandler), db)
	s := &apptest.Server{App: a, DB: db, Cfg: cfg, URL: apptest.Listen(t, a), Headers: http.Header{}}
	b := s.NewBrowser(t)
	b.Get(t, "/admin/login")
	p := b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {adminPassword}})
	if p.StatusCode != http.StatusServiceUnavailable || p.TestID("error-page").Length() != 1 {
		t.Fatalf("a request whose database deadline passed: %d\n%s", p.StatusCode, p.Body)
	}
}

func TestAnonymousVisitsStoreNoSessionAndLoginStartsOne(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.Postgres)
	cfg.RedisURL = testenv.RedisURL(t)
	cfg.RedisPrefix = testenv.RedisPrefix(t)
	s := apptest.New(t, cfg)
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	redis := testenv.RedisClient(t, cfg.RedisURL)
	sessions := func() []string {
		t.Helper()
		keys, err := redis.Keys(t.Context(), cfg.RedisPrefix+"session:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range keys {
			if !strings.Contains(k, "login-known:") {
				out = append(out, k)
			}
		}
		return out
	}
	// A visitor looping on the login page, pages behind it and a stale session cookie.
	b := s.NewBrowser(t)
	for i := range 50 {
		for _, path := range []string{"/admin/login", "/admin/pets", "/admin/login?next=%2Fadmin%2Fkeys"} {
			req := s.NewRequest(t, http.MethodGet, path, nil)
			if i%2 == 1 {
				req.AddCookie(&http.Cookie{Name: "petstore_session", Value: fmt.Sprintf("expired-%d", i)})
			}
			if p := b.Do(t, req); p.Header.Get("Set-Cookie") != "" && strings.Contains(p.Header.Get("Set-Cookie"), "petstore_session=") {
				t.Fatalf("GET %s set a session cookie: %s", path, p.Header.Get("Set-Cookie"))
			}
		}
	}
	// The login form works from that cookie-only token, a failed login included.
	wantStatus(t, b.Post(t, "/admin/login", url.Values{"username": {"ada"}, "password": {"wrong password!"}}), http.StatusUnauthorized)
	if got := sessions(); len(got) != 0 {
		t.Fatalf("anonymous visits stored %d sessions: %v", len(got), got)
	}
	b.Login(t, "ada", adminPassword)
	b.Get(t, "/admin/pets/new")
	if got := sessions(); len(got) != 1 {
		t.Fatalf("after one login %d sessions are stored, want 1", len(got))
	}
	// Signed in, forms carry the session's token and work.
	wantStatus(t, b.Post(t, "/admin/pets", url.Values{"name": {"Rex"}, "categoryId": {"1"}, "status": {"available"}}), http.StatusSeeOther)
}

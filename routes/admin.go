package routes

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"
	"github.com/gofiber/fiber/v2/middleware/session"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
	"github.com/valyala/fasthttp"
)

// Session keys.
const (
	sessStaffID = "staff_id"
	sessFlash   = "flash"
	// sessPasswordAt is the account's PasswordChangedAt when the session started (Unix
	// microseconds, 0 for never): a password changed since ends the session.
	sessPasswordAt = "password_at"
)

// storeClock is the service's clock, read in the store's time zone: its day is the admin pages'
// "today".
type storeClock struct {
	now  func() time.Time
	zone *time.Location
}

func (t storeClock) today() time.Time { return t.now().In(t.zone) }

// adminSessions are the admin pages' sessions: who is signed in, and the message a form post
// leaves for the page it redirects to.
type adminSessions struct{ store *session.Store }

// newAdminSessions keeps the sessions in storage, for timeout after they start (0: 8 hours).
// Without a storage, fiber keeps sessions in this instance's memory; its store then exposes that
// memory, where the login guard keeps the addresses accounts sign in from.
func newAdminSessions(storage fiber.Storage, timeout time.Duration) adminSessions {
	if timeout <= 0 {
		timeout = 8 * time.Hour
	}
	return adminSessions{session.New(session.Config{
		Storage:           storage,
		Expiration:        timeout,
		KeyLookup:         "cookie:petstore_session",
		CookiePath:        "/admin",
		CookieHTTPOnly:    true,
		CookieSameSite:    "Lax",
		CookieSessionOnly: true,
	})}
}

type csrfLocal struct{}

type meLocal struct{}

type flashLocal struct{}

// csrfCookie holds the CSRF token in the browser; forms post it back in the field _csrf
// (views.CSRFField).
const csrfCookie = "petstore_csrf"

// The admin pages' refusals are 403 pages with a sentence; no /v1 operation answers 403 but
// insufficient_scope, so they need no error code of their own.
var errCSRF = fiber.NewError(fiber.StatusForbidden, "This form has expired or did not come from this site. Go back, reload the page and try again.")

// csrf checks the token of every form post. A signed-in staff member's token is kept in their
// session (fiber's csrf middleware, which keeps its tokens on the server). A visitor without
// one, on the login form, gets the token in a cookie only and posts it back (a double submit):
// reading the login page stores nothing on the server, however often it is read.
func (s adminSessions) csrf() fiber.Handler {
	inSession := csrf.New(csrf.Config{
		KeyLookup:         "form:_csrf",
		CookieName:        csrfCookie,
		CookiePath:        "/admin",
		CookieHTTPOnly:    true,
		CookieSameSite:    "Lax",
		CookieSessionOnly: true,
		Expiration:        s.store.Expiration,
		Session:           s.store,
		ContextKey:        csrfLocal{},
		ErrorHandler:      func(*fiber.Ctx, error) error { return errCSRF },
	})
	return func(c *fiber.Ctx) error {
		sess, err := s.store.Get(c)
		if err != nil {
			return err
		}
		if id, _ := sess.Get(sessStaffID).(int64); id != 0 {
			return inSession(c)
		}
		return anonymousCSRF(c)
	}
}

// anonymousCSRF is the double-submit check for visitors without a session: the form's token
// must equal the cookie's, which another site can neither read nor set. Over TLS the post must
// also come from this site's own pages (its Referer), as fiber's middleware requires.
func anonymousCSRF(c *fiber.Ctx) error {
	token := c.Cookies(csrfCookie)
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions, fiber.MethodTrace:
		if !csrfTokenShape.MatchString(token) {
			token = newCSRFToken()
			c.Cookie(&fiber.Cookie{Name: csrfCookie, Value: token, Path: "/admin", HTTPOnly: true, SameSite: "Lax", SessionOnly: true})
		}
	default:
		if c.Protocol() == "https" && !sameOriginReferer(c) {
			return errCSRF
		}
		posted := c.FormValue("_csrf")
		if token == "" || subtle.ConstantTimeCompare([]byte(posted), []byte(token)) != 1 {
			return errCSRF
		}
	}
	c.Locals(csrfLocal{}, utils.CopyString(token))
	return c.Next()
}

var csrfTokenShape = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// newCSRFToken returns 256 random bits, URL-safe.
func newCSRFToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func sameOriginReferer(c *fiber.Ctx) bool {
	u, err := url.Parse(strings.ToLower(c.Get(fiber.HeaderReferer)))
	return err == nil && u.Scheme == c.Protocol() && u.Host == c.Hostname()
}

// adminResponses sets what every admin response needs: pages show private data, so no cache
// keeps them; and every cookie is Secure when the request came over TLS (directly, or through
// a proxy that says so in X-Forwarded-Proto).
func adminResponses(c *fiber.Ctx) error {
	// Errors become their HTML page here, so the headers below apply to those pages too.
	if err := c.Next(); err != nil {
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			return herr
		}
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	// The CSRF check compares the Referer's origin over TLS, so browsers must send it.
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
	if c.Protocol() == "https" {
		var cookies []*fasthttp.Cookie
		c.Response().Header.VisitAllCookie(func(_, value []byte) {
			ck := fasthttp.AcquireCookie()
			if ck.ParseBytes(value) == nil {
				cookies = append(cookies, ck)
			}
		})
		for _, ck := range cookies {
			ck.SetSecure(true)
			c.Response().Header.SetCookie(ck)
			fasthttp.ReleaseCookie(ck)
		}
	}
	return nil
}

// requireStaff lets a request through only with the session of an active staff member; anyone
// else is sent to the login page, which brings them back here afterwards. The request then
// acts as that staff member, its tables' counts spend at most countBudget, and its pages show
// times in zone.
func requireStaff(s adminSessions, staff *models.StaffStore, countBudget time.Duration, zone *time.Location) fiber.Handler {
	return func(c *fiber.Ctx) error {
		sess, err := s.store.Get(c)
		if err != nil {
			return err
		}
		id, _ := sess.Get(sessStaffID).(int64)
		if id == 0 {
			return toLogin(c)
		}
		st, err := staff.Get(c.UserContext(), id)
		if models.ErrorCode(err) == models.ENotFound || (err == nil && (!st.Active() || sessionPasswordAt(sess) != passwordAt(st))) {
			if err := sess.Destroy(); err != nil {
				return err
			}
			return toLogin(c)
		}
		if err != nil {
			return err
		}
		// A one-time password opens only the page that replaces it (and logging out).
		if st.MustChangePassword && c.Path() != "/admin/account" && c.Path() != "/admin/account/password" && c.Path() != "/admin/logout" {
			return c.Redirect("/admin/account", fiber.StatusSeeOther)
		}
		if flash, _ := sess.Get(sessFlash).(string); flash != "" {
			sess.Delete(sessFlash)
			if err := sess.Save(); err != nil {
				return err
			}
			c.Locals(flashLocal{}, flash)
		}
		c.Locals(meLocal{}, st)
		ctx := models.WithCountBudget(models.WithActor(c.UserContext(), models.StaffActor(st.Username)), countBudget)
		c.SetUserContext(views.WithZone(ctx, zone))
		return c.Next()
	}
}

// passwordAt is when the account's password last changed, as sessions keep it.
func passwordAt(st *models.Staff) int64 {
	if st.PasswordChangedAt == nil {
		return 0
	}
	return st.PasswordChangedAt.UnixMicro()
}

func sessionPasswordAt(sess *session.Session) int64 {
	at, _ := sess.Get(sessPasswordAt).(int64)
	return at
}

// startSession gives the browser a new session id for st, dropping the old one and everything
// kept under it (its CSRF token included), so an id planted before (session fixation) is worth
// nothing after.
func (s adminSessions) startSession(c *fiber.Ctx, st *models.Staff, flash string) error {
	sess, err := s.store.Get(c)
	if err != nil {
		return err
	}
	if err := sess.Reset(); err != nil {
		return err
	}
	sess.Set(sessStaffID, st.ID)
	sess.Set(sessPasswordAt, passwordAt(st))
	if flash != "" {
		sess.Set(sessFlash, flash)
	}
	return sess.Save()
}

func toLogin(c *fiber.Ctx) error {
	next := "/admin"
	if c.Method() == fiber.MethodGet {
		next = c.OriginalURL()
	}
	return c.Redirect("/admin/login?next="+url.QueryEscape(safeNext(next)), fiber.StatusSeeOther)
}

// may lets through only staff whose role has right (models.Rights); the pages and forms of a
// right a role lacks are hidden from it, and refused here if asked for all the same.
func may(right models.Right) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if me := currentStaff(c); me == nil || !me.Role.May(right) {
			return fiber.NewError(fiber.StatusForbidden, "Your role may not do this. Ask an admin if you need it done.")
		}
		return c.Next()
	}
}

// currentStaff is the signed-in staff member, or nil before requireStaff.
func currentStaff(c *fiber.Ctx) *models.Staff {
	st, _ := c.Locals(meLocal{}).(*models.Staff)
	return st
}

func csrfToken(c *fiber.Ctx) string {
	t, _ := c.Locals(csrfLocal{}).(string)
	return t
}

// page is the layout's props for the current request.
func page(c *fiber.Ctx, title, section string) views.Page {
	p := views.Page{Title: title, Section: section, CSRF: csrfToken(c)}
	if st := currentStaff(c); st != nil {
		p.Me = &views.Me{ID: st.ID, Username: st.Username, Admin: st.IsAdmin(), Role: st.Role}
	}
	p.Flash, _ = c.Locals(flashLocal{}).(string)
	return p
}

// render writes a templ component as the HTML response, with the status already set. templ stops
// on a done context; the request's context ends with its database deadline, which must not keep
// the page that reports that very timeout from rendering.
func render(c *fiber.Ctx, component templ.Component) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return component.Render(context.WithoutCancel(c.UserContext()), c.Response().BodyWriter())
}

// redirectWithFlash ends a successful form post: the message shows once on the next page, and
// reloading that page does not post the form again.
func (s adminSessions) redirectWithFlash(c *fiber.Ctx, to, flash string) error {
	sess, err := s.store.Get(c)
	if err != nil {
		return err
	}
	sess.Set(sessFlash, flash)
	if err := sess.Save(); err != nil {
		return err
	}
	return c.Redirect(to, fiber.StatusSeeOther)
}

// safeNext keeps the after-login redirect inside the admin pages, so the login form cannot be
// used to send someone to another site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n") ||
		(u.Path != "/admin" && !strings.HasPrefix(u.Path, "/admin/")) ||
		u.Path == "/admin/login" || u.Path == "/admin/logout" {
		return "/admin"
	}
	return u.RequestURI()
}

// adminError renders any error under /admin as an HTML page, with the same status the API
// would answer.
func adminError(c *fiber.Ctx, err error, body Error) error {
	e := views.ErrorProps{Status: body.Status, Message: views.Sentence("", body.Message)}
	var fe *fiber.Error
	switch {
	case body.Status == http.StatusNotFound && errors.As(err, &fe):
		e.Title, e.Message = "Page not found", "There is no page at "+c.Path()+"."
	case body.Status == http.StatusNotFound:
		e.Title, e.Message = "Not found", notFoundSentence(body.Message)
	case body.Status == http.StatusBadRequest && c.Method() == fiber.MethodGet:
		e.Title, e.Message = addressRefusal(body.Message)
	case body.Status == http.StatusForbidden:
		e.Title = "Not allowed"
	case body.Status == http.StatusConflict:
		e.Title = "That cannot be done now"
	case body.Status == http.StatusServiceUnavailable:
		e.Title = "The database is unavailable"
	case body.Status >= 500:
		e.Title, e.Message = "Something went wrong", "The error has been logged. Try again; if it keeps happening, tell whoever runs this service."
	case body.Status == http.StatusMethodNotAllowed:
		e.Title, e.Message = "Not allowed", "That address does not take a "+c.Method()+" request."
	default:
		e.Title = "That did not work"
	}
	c.Status(body.Status)
	return render(c, views.ErrorPage(page(c, e.Title, ""), e))
}

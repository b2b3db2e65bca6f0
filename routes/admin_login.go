package routes

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// loginThrottle slows down password guessing: after a few failed logins for one username, or
// many from one address, each further attempt must wait twice as long as the one before, and is
// refused without checking the password until then. Its counters live in the session storage,
// so with Redis every instance sees the same count.
type loginThrottle struct {
	store fiber.Storage
	now   func() time.Time
}

// What the throttle allows: failures that cost nothing, the first wait after them, the longest
// wait, and how long a count of failures is remembered after the last one.
const (
	freeFailuresPerUser = 5
	freeFailuresPerIP   = 20
	firstLoginWait      = 30 * time.Second
	longestLoginWait    = 15 * time.Minute
	failureMemory       = time.Hour
)

type loginFailures struct {
	N    int       `json:"n"`
	Last time.Time `json:"last"`
}

type throttleKey struct {
	key  string
	free int
}

func loginKeys(username, ip string) []throttleKey {
	return []throttleKey{
		{"login-failures:user:" + strings.ToLower(strings.TrimSpace(username)), freeFailuresPerUser},
		{"login-failures:ip:" + ip, freeFailuresPerIP},
	}
}

func (t *loginThrottle) get(key string) loginFailures {
	var f loginFailures
	if raw, err := t.store.Get(key); err == nil && raw != nil {
		_ = json.Unmarshal(raw, &f)
	}
	return f
}

// wait returns how long the caller must still wait before the next attempt.
func (t *loginThrottle) wait(keys []throttleKey) time.Duration {
	var longest time.Duration
	for _, k := range keys {
		f := t.get(k.key)
		if f.N < k.free {
			continue
		}
		d := firstLoginWait << min(f.N-k.free, 10)
		d = min(d, longestLoginWait)
		if left := f.Last.Add(d).Sub(t.now()); left > longest {
			longest = left
		}
	}
	return longest
}

// fail counts a failed attempt. Two attempts at the same moment may count once; the throttle
// only needs to make guessing slow, not to be exact.
func (t *loginThrottle) fail(keys []throttleKey) error {
	for _, k := range keys {
		f := t.get(k.key)
		f.N++
		f.Last = t.now()
		raw, _ := json.Marshal(f)
		if err := t.store.Set(k.key, raw, failureMemory); err != nil {
			return err
		}
	}
	return nil
}

// succeed forgets the username's failures; the address's stay, so one good account cannot be
// used to reset the count of guesses against others.
func (t *loginThrottle) succeed(keys []throttleKey) error {
	return t.store.Delete(keys[0].key)
}

// loginForm shows the sign-in form, or sends a signed-in staff member straight on.
func (a *admin) loginForm(c *fiber.Ctx) error {
	next := safeNext(c.Query("next"))
	sess, err := a.sessions.Get(c)
	if err != nil {
		return err
	}
	if id, _ := sess.Get(sessStaffID).(int64); id != 0 {
		return c.Redirect(next, fiber.StatusSeeOther)
	}
	p := views.LoginProps{CSRF: csrfToken(c), Next: next}
	if c.Query("logged_out") != "" {
		p.Notice = "You have been logged out."
	}
	return render(c, views.Login(p))
}

// login checks the password and starts a session under a new id, so an id planted in the
// browser before login (session fixation) is worth nothing after it.
func (a *admin) login(c *fiber.Ctx) error {
	username := c.FormValue("username")
	next := safeNext(c.FormValue("next"))
	form := views.LoginProps{CSRF: csrfToken(c), Next: next, Username: username}
	keys := loginKeys(username, c.IP())
	if wait := a.throttle.wait(keys); wait > 0 {
		a.log.Warn("staff login throttled", "request_id", requestID(c), "username", username, "ip", c.IP(), "wait", wait.Round(time.Second).String())
		form.Error = fmt.Sprintf("Too many failed logins for this account or from this address. Try again in %s.", roundWait(wait))
		c.Set(fiber.HeaderRetryAfter, fmt.Sprint(int((wait+time.Second-1)/time.Second)))
		c.Status(fiber.StatusTooManyRequests)
		return render(c, views.Login(form))
	}
	st, err := a.staff.Authenticate(c.UserContext(), username, c.FormValue("password"))
	if err == models.ErrBadLogin {
		a.log.Warn("staff login failed", "request_id", requestID(c), "username", username, "ip", c.IP())
		if err := a.throttle.fail(keys); err != nil {
			return err
		}
		form.Error = models.ErrBadLogin.Message
		c.Status(fiber.StatusUnauthorized)
		return render(c, views.Login(form))
	}
	if err != nil {
		return err
	}
	if err := a.throttle.succeed(keys); err != nil {
		return err
	}
	if err := a.startSession(c, st, ""); err != nil {
		return err
	}
	a.log.Info("staff login", "request_id", requestID(c), "username", st.Username, "ip", c.IP())
	return c.Redirect(next, fiber.StatusSeeOther)
}

func roundWait(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s < 120 {
		return fmt.Sprintf("%d seconds", s)
	}
	return fmt.Sprintf("%d minutes", (s+59)/60)
}

// logoutConfirm answers a GET of the logout address with a button, since only a form post
// (with its CSRF token) logs out.
func logoutConfirm(c *fiber.Ctx) error {
	return render(c, views.LogoutConfirm(page(c, "Log out", "")))
}

// logout ends the session everywhere: its data is deleted from the storage, not just the cookie.
func (a *admin) logout(c *fiber.Ctx) error {
	sess, err := a.sessions.Get(c)
	if err != nil {
		return err
	}
	if err := sess.Destroy(); err != nil {
		return err
	}
	return c.Redirect("/admin/login?logged_out=1", fiber.StatusSeeOther)
}

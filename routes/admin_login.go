package routes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/ratelimit"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// loginGuard decides which password checks run at all. Every attempt is counted before its
// password is checked, atomically in the limiter's counters (shared through Redis when it is
// configured), so a burst of any size checks at most what the budgets leave:
//   - an account from one address (a /64 for IPv6) has pairBudget; the attempt that uses it up
//     locks that pair out, and only that pair: the account's owner elsewhere is not locked out;
//   - an account from addresses it has not signed in from lately has the slower accountBudget,
//     so guesses spread over many addresses stay slow, while the addresses its owner uses keep
//     only their pair's budget;
//   - an address has addressBudget over every account it tries.
//
// The checks that pass run in slots (bcrypt takes a core for tens of milliseconds), at most half
// the cores at once and two per address; the rest wait a little or are refused, so a flood of
// logins cannot take the API's latency with it.
type loginGuard struct {
	limiter ratelimit.Limiter
	// known holds the addresses each account signed in from in the last knownAddressFor.
	known fiber.Storage
	slots *ratelimit.Slots
	// now is the service's clock, from which a lockout runs.
	now func() time.Time
}

// maxUsernameLength is the longest username the login form reads; a longer one is refused before
// it is counted, logged or shown back (accounts' names have at most 64 characters).
const maxUsernameLength = 64

var (
	pairBudget    = ratelimit.Budget{Max: 5, Window: 15 * time.Minute, Lockout: 15 * time.Minute}
	accountBudget = ratelimit.Budget{Max: 10, Window: time.Minute}
	addressBudget = ratelimit.Budget{Max: 50, Window: 15 * time.Minute}
)

const (
	knownAddressFor = 30 * 24 * time.Hour
	// slotWait is how long a check waits for a slot before it is refused with a 503.
	slotWait          = 2 * time.Second
	slotsPerAddress   = 2
	slotQueuePerSlots = 4
)

func newLoginGuard(limiter ratelimit.Limiter, known fiber.Storage, now func() time.Time) *loginGuard {
	slots := max(1, runtime.GOMAXPROCS(0)/2)
	return &loginGuard{limiter: limiter, known: known, now: now,
		slots: ratelimit.NewSlots(slots, slotsPerAddress, slotQueuePerSlots*slots)}
}

// loginTry is one attempt: the account as the store normalises names, and the client's address
// as the limits count it.
type loginTry struct{ account, address string }

func newLoginTry(username, ip string) loginTry {
	return loginTry{account: strings.ToLower(strings.TrimSpace(username)), address: ratelimit.AddressClient(ip)}
}

func (t loginTry) pairKey() string    { return "login:pair:" + t.address + " " + t.account }
func (t loginTry) accountKey() string { return "login:account:" + t.account }
func (t loginTry) addressKey() string { return "login:address:" + t.address }
func (t loginTry) knownKey() string   { return "login-known:" + t.address + " " + t.account }

// loginRefused is an attempt that gets no password check.
type loginRefused struct {
	status int
	wait   time.Duration
	why    string
}

// admit counts the attempt and waits for a slot to check it in. With no refusal, the caller
// checks the password, then calls release; last says this attempt took the pair's last one, so
// its failure locks the pair out.
func (g *loginGuard) admit(ctx context.Context, t loginTry) (release func(), last bool, refused *loginRefused, err error) {
	a, err := g.limiter.TakeAttempt(ctx, t.addressKey(), addressBudget)
	if err != nil {
		return nil, false, nil, err
	}
	if !a.Allowed {
		return nil, false, &loginRefused{fiber.StatusTooManyRequests, a.RetryAfter, "Too many logins from this address."}, nil
	}
	pair, err := g.limiter.TakeAttempt(ctx, t.pairKey(), pairBudget)
	if err != nil {
		return nil, false, nil, err
	}
	if !pair.Allowed {
		return nil, false, &loginRefused{fiber.StatusTooManyRequests, pair.RetryAfter, "Too many failed logins for this account from this address."}, nil
	}
	known, err := g.known.Get(t.knownKey())
	if err != nil {
		return nil, false, nil, err
	}
	if known == nil {
		a, err := g.limiter.TakeAttempt(ctx, t.accountKey(), accountBudget)
		if err != nil {
			return nil, false, nil, err
		}
		if !a.Allowed {
			return nil, false, &loginRefused{fiber.StatusTooManyRequests, a.RetryAfter, "Too many logins for this account from new addresses."}, nil
		}
	}
	wait, cancel := context.WithTimeout(ctx, slotWait)
	defer cancel()
	release, err = g.slots.Acquire(wait, t.address)
	switch {
	case err != nil && ctx.Err() != nil:
		// The request's own deadline passed: the error page, not a refusal the login form explains.
		return nil, false, nil, &models.Error{Code: models.EUnavailable, Message: "The request ran out of time; try again shortly."}
	case errors.Is(err, ratelimit.ErrBusyClient):
		return nil, false, &loginRefused{fiber.StatusTooManyRequests, time.Second, "Another login from this address is being checked."}, nil
	case errors.Is(err, ratelimit.ErrBusy):
		return nil, false, &loginRefused{fiber.StatusServiceUnavailable, time.Second, "Too many logins are being checked right now."}, nil
	case err != nil:
		return nil, false, nil, err
	}
	return release, pair.Last, nil, nil
}

// succeeded forgets the pair's attempts, and remembers the address as one the account uses.
// The address's and the account's counts stay, so one good account cannot reset the count of
// guesses against others.
func (g *loginGuard) succeeded(ctx context.Context, t loginTry) error {
	if err := g.limiter.ForgetAttempts(ctx, t.pairKey()); err != nil {
		return err
	}
	return g.known.Set(t.knownKey(), []byte{1}, knownAddressFor)
}

// refuse answers an attempt that gets no check, with when to try again.
func refuse(c *fiber.Ctx, r *loginRefused) string {
	c.Set(fiber.HeaderRetryAfter, fmt.Sprint(int(ratelimit.CeilSeconds(r.wait)/time.Second)))
	c.Status(r.status)
	return fmt.Sprintf("%s Try again in %s.", r.why, roundWait(r.wait))
}

// loginForm shows the sign-in form, or sends a signed-in staff member straight on.
func loginForm(sessions adminSessions) fiber.Handler {
	return func(c *fiber.Ctx) error {
		next := safeNext(c.Query("next"))
		sess, err := sessions.store.Get(c)
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
}

// login checks the password and starts a session under a new id, so an id planted in the
// browser before login (session fixation) is worth nothing after it.
func login(sessions adminSessions, staff *models.StaffStore, logins *loginGuard, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		username := c.FormValue("username")
		next := safeNext(c.FormValue("next"))
		form := views.LoginProps{CSRF: csrfToken(c), Next: next}
		if utf8.RuneCountInString(username) > maxUsernameLength {
			log.Warn("staff login refused: username too long", "request_id", requestID(c), "ip", c.IP(), "bytes", len(username))
			form.Error = fmt.Sprintf("A username has at most %d characters.", maxUsernameLength)
			c.Status(fiber.StatusBadRequest)
			return render(c, views.Login(form))
		}
		form.Username = username
		ctx, try := c.UserContext(), newLoginTry(username, c.IP())
		release, last, refused, err := logins.admit(ctx, try)
		if err != nil {
			return err
		}
		if refused != nil {
			log.Warn("staff login refused", "request_id", requestID(c), "username", try.account, "ip", c.IP(), "status", refused.status, "wait", refused.wait.String())
			form.Error = refuse(c, refused)
			return render(c, views.Login(form))
		}
		st, err := func() (*models.Staff, error) {
			defer release()
			return staff.Authenticate(ctx, username, c.FormValue("password"), c.IP())
		}()
		if err == models.ErrBadLogin {
			log.Warn("staff login failed", "request_id", requestID(c), "username", try.account, "ip", c.IP())
			if last {
				if err := logins.lockedOut(c, staff, log, try); err != nil {
					return err
				}
			}
			form.Error = models.ErrBadLogin.Message
			c.Status(fiber.StatusUnauthorized)
			return render(c, views.Login(form))
		}
		if err != nil {
			return err
		}
		if err := logins.succeeded(ctx, try); err != nil {
			return err
		}
		if err := sessions.startSession(c, st, ""); err != nil {
			return err
		}
		log.Info("staff login", "request_id", requestID(c), "username", st.Username, "ip", c.IP())
		return c.Redirect(next, fiber.StatusSeeOther)
	}
}

// lockedOut logs and audits the failure that used up an account's attempts from an address.
func (g *loginGuard) lockedOut(c *fiber.Ctx, staff *models.StaffStore, log *slog.Logger, t loginTry) error {
	until := g.now().Add(pairBudget.Lockout)
	log.Warn("staff login locked out", "request_id", requestID(c), "username", t.account, "ip", c.IP(), "until", until.UTC().Format(time.RFC3339))
	return staff.RecordLockOut(c.UserContext(), t.account, c.IP(), until)
}

func roundWait(d time.Duration) string {
	s := int(ratelimit.CeilSeconds(d) / time.Second)
	switch {
	case s == 1:
		return "a second"
	case s < 120:
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
func logout(sessions adminSessions, staff *models.StaffStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		sess, err := sessions.store.Get(c)
		if err != nil {
			return err
		}
		id, _ := sess.Get(sessStaffID).(int64)
		if err := sess.Destroy(); err != nil {
			return err
		}
		if id != 0 {
			if err := staff.RecordLogOut(c.UserContext(), id, c.IP()); err != nil {
				return err
			}
		}
		return c.Redirect("/admin/login?logged_out=1", fiber.StatusSeeOther)
	}
}

package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/headless"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// chrome drives a headless Chromium through the admin pages and saves a screenshot of each at
// desktop and phone widths under the test's artifact folder (kept with go test -artifacts).
type chrome struct {
	t    *testing.T
	ctx  context.Context
	base string
	dir  string
}

func newChrome(t *testing.T, base string) *chrome {
	t.Helper()
	return &chrome{t: t, ctx: headless.Chromium(t, 1280, 800), base: base, dir: t.ArtifactDir()}
}

func (c *chrome) do(steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, steps...); err != nil {
		c.t.Fatal(err)
	}
}

func (c *chrome) open(path string) {
	c.t.Helper()
	c.do(chromedp.Navigate(c.base + path))
}

// submit clicks a button or link and waits for the page it leads to; it returns that page's status.
func (c *chrome) submit(sel string) int64 {
	c.t.Helper()
	res, err := chromedp.RunResponse(c.ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		c.t.Fatalf("click %s: %v", sel, err)
	}
	return res.Status
}

func (c *chrome) fill(sel, value string) {
	c.t.Helper()
	c.do(chromedp.SetValue(chromedp.CSS(sel), value, chromedp.NodeVisible))
}

func (c *chrome) text(sel string) string {
	c.t.Helper()
	s, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		c.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func (c *chrome) count(sel string) int {
	c.t.Helper()
	n, err := chromedp.Run(c.ctx, chromedp.Evaluate[int]("document.querySelectorAll("+jsString(sel)+").length"))
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

func (c *chrome) location() string {
	c.t.Helper()
	u, err := chromedp.Run(c.ctx, chromedp.Location())
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimPrefix(u, c.base)
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// view is one way of looking at a page: a window's size, a device, a colour scheme, and
// whether axe-core checks it.
type view struct {
	suffix        string
	width, height int64
	opts          []chromedp.EmulateViewportOption
	scheme        string
	axe           bool
}

// views are the ways shot looks at a page: a phone, a desktop, and a desktop in dark mode (the
// browser's prefers-color-scheme), the last two also checked with axe-core.
var views = []view{
	{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}, "light", false},
	{"desktop-dark", 1280, 800, nil, "dark", true},
	{"desktop", 1280, 800, nil, "light", true},
}

// shot shows the current page as each of views does, ending at desktop width in light mode,
// saving a screenshot of each under -artifacts, and checks it with axe-core: no admin page may
// break an accessibility rule, in either scheme. No page may be wider than the window either, at
// a phone's width or a desktop's.
func (c *chrome) shot(name string) {
	c.t.Helper()
	c.shotIn(name, views)
}

// shotIn is shot in the views given, ending in the last.
func (c *chrome) shotIn(name string, in []view) {
	c.t.Helper()
	for _, v := range in {
		c.do(chromedp.EmulateViewport(v.width, v.height, v.opts...))
		media := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v.scheme}}}
		if _, err := chromedp.Call(c.ctx, emulation.SetEmulatedMedia, media); err != nil {
			c.t.Fatal(err)
		}
		c.fits(name+" ("+v.suffix+")", v.width)
		if headless.KeepsArtifacts() {
			png, err := chromedp.Run(c.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				c.t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(c.dir, name+"-"+v.suffix+".png"), png, 0o644); err != nil {
				c.t.Fatal(err)
			}
		}
		if !v.axe {
			continue
		}
		violations, err := headless.Axe(c.ctx)
		if err != nil {
			c.t.Fatal(err)
		}
		for _, f := range violations {
			c.t.Errorf("%s (%s): %s", name, v.suffix, f)
		}
	}
}

// fits fails the test when the page is wider than the window, width px: it would scroll
// sideways. (A phone's browser widens its layout to the page, so the page is measured against
// the width the window was given.)
func (c *chrome) fits(what string, width int64) {
	c.t.Helper()
	if w := eval[int64](c, `document.documentElement.scrollWidth`); w > width {
		wide := eval[string](c, fmt.Sprintf(`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > %[1]d &&
			![...e.children].some(k => k.getBoundingClientRect().right > %[1]d)).slice(0, 5).map(e => e.outerHTML.slice(0, 120)).join("\n    ")`, width))
		c.t.Errorf("%s is %d px wide in a %d px window; sticking out:\n    %s", what, w, width, wide)
	}
}

// at views the page at a phone's width, or at desktop width when phone is false.
func (c *chrome) at(phone bool) {
	c.t.Helper()
	v := views[2]
	if phone {
		v = views[0]
	}
	c.do(chromedp.EmulateViewport(v.width, v.height, v.opts...))
}

// eval runs a script in the page and returns its value.
func eval[T any](c *chrome, script string) T {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[T](script))
	if err != nil {
		c.t.Fatalf("%s: %v", script, err)
	}
	return v
}

// seedPets gives the pages something to show.
func seedPets(t *testing.T, s *apptest.Server) {
	t.Helper()
	names := []string{"Rex", "Bella", "Tom", "Kiwi", "Nemo", "Spike", "Coco", "Max", "Luna", "Pip", "Shadow", "Daisy"}
	pets := make([]models.Pet, len(names))
	for i, n := range names {
		pets[i] = models.Pet{Name: n, CategoryID: int64(i%6 + 1), Status: models.PetStatuses[i%3]}
	}
	if err := s.DB.Create(&pets).Error; err != nil {
		t.Fatal(err)
	}
}

func TestStaffWorkThroughTheAdminPagesInABrowser(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	seedPets(t, s)
	c := newChrome(t, s.URL)

	// A visitor is sent to the login page and, after it, to the page asked for.
	c.open("/admin/pets?status=available")
	c.shot("01-login")
	c.fill("#username", "ada")
	c.fill("#password", "not the password")
	if status := c.submit(`[data-testid="login-form"] button[type="submit"]`); status != 401 {
		t.Fatalf("wrong password answered %d", status)
	}
	c.shot("02-login-failed")
	c.fill("#password", adminPassword)
	c.submit(`[data-testid="login-form"] button[type="submit"]`)
	if loc := c.location(); loc != "/admin/pets?status=available" {
		t.Fatalf("after login the browser is at %s", loc)
	}
	if c.count(`[data-testid="pet-row"]`) != 4 {
		t.Fatalf("available pets: %d rows, want 4", c.count(`[data-testid="pet-row"]`))
	}

	// Filter the pets table.
	c.fill("#q", "rex")
	c.fill("#f-category", "1")
	c.submit(`[data-testid="pet-filters"] button[type="submit"]`)
	if loc := c.location(); loc != "/admin/pets?q=rex&tag=&status=available&category=1&show=&sort=" {
		t.Fatalf("filtered view at %s", loc)
	}
	if got := c.text(`[data-testid="pet-name"]`); got != "Rex" || c.count(`[data-testid="pet-row"]`) != 1 {
		t.Fatalf("filtered pets: first %q of %d, want just Rex", got, c.count(`[data-testid="pet-row"]`))
	}
	c.shot("03-pets-filtered")
	c.open("/admin/pets")
	c.shot("04-pets")
	// On a phone the header leaves the screen to the page, and every cell keeps clear of the
	// card's edge.
	c.at(true)
	if h := eval[float64](c, `document.querySelector(".sidebar").getBoundingClientRect().height`); h > 110 {
		t.Errorf("on a 390 px phone the header takes %.0f px, want at most 110", h)
	}
	if n := eval[int](c, `[...document.querySelectorAll("table.responsive td")].filter(td =>
		td.getBoundingClientRect().right > td.closest(".card").getBoundingClientRect().right - 12).length`); n != 0 {
		t.Errorf("on a phone %d table cells run within 12 px of the card's edge", n)
	}
	c.at(false)

	// Create a pet: first with a mistake, then right.
	c.submit(`[data-testid="new-pet"]`)
	c.fill("#name", "   ")
	if status := c.submit(`[data-testid="save-pet"]`); status != 400 {
		t.Fatalf("an empty name answered %d", status)
	}
	if msg := c.text(`[data-testid="error-name"]`); msg != "Name must not be empty." {
		t.Fatalf("error beside the name: %q", msg)
	}
	c.shot("05-pet-form-errors")
	c.fill("#name", "<script>alert(1)</script> Biscuit")
	c.fill("#categoryId", "2")
	c.submit(`[data-testid="save-pet"]`)
	if got := c.text(`[data-testid="page-title"]`); got != "<script>alert(1)</script> Biscuit" {
		t.Fatalf("new pet's page title %q", got)
	}
	if got := c.text(`[data-testid="flash"]`); !strings.HasPrefix(got, "Added <script>") {
		t.Fatalf("flash %q", got)
	}
	c.shot("06-pet")

	// Place an order for it, then approve and deliver it.
	c.fill("#shipDate", time.Now().UTC().AddDate(0, 0, 30).Format(time.DateOnly))
	c.submit(`[data-testid="place-order-submit"]`)
	if got := c.text(`[data-testid="order-fields"] [data-testid="status"]`); got != "placed" {
		t.Fatalf("new order's status %q", got)
	}
	c.shot("07-order-placed")
	// Cancelling asks first, in words that cannot be taken for closing the question.
	if got := c.text(`[data-testid="confirm-cancel"]`); got != "Cancel order…" {
		t.Fatalf("the cancel button reads %q", got)
	}
	c.do(chromedp.Click(chromedp.CSS(`[data-testid="confirm-cancel"]`), chromedp.NodeVisible))
	if got := c.text(`[data-testid="keep-cancel"]`); got != "Keep the order" || c.text(`[data-testid="action-cancel"]`) != "Cancel order" {
		t.Fatalf("the confirmation offers %q and %q", c.text(`[data-testid="action-cancel"]`), got)
	}
	c.shot("07b-order-cancel-confirm")
	c.do(chromedp.Click(chromedp.CSS(`[data-testid="keep-cancel"]`), chromedp.NodeVisible))
	if open := eval[bool](c, `document.querySelector("details.confirm").open`); open || c.location() != "/admin/orders/1" {
		t.Fatalf("Keep the order left the confirmation open (%v) or the page (%s)", open, c.location())
	}
	c.submit(`[data-testid="action-approve"]`)
	c.submit(`[data-testid="action-deliver"]`)
	// The order ships in 30 days: marking it delivered now asks first.
	if got := c.text(`[data-testid="confirm-early"] h2`); got != "Deliver before the ship date?" {
		t.Fatalf("delivering 30 days early asks %q", got)
	}
	c.shot("07c-order-deliver-early")
	c.submit(`[data-testid="deliver-early"]`)
	if got := c.text(`[data-testid="order-fields"] [data-testid="status"]`); got != "delivered" || c.count(`[data-testid^="action-"]`) != 0 {
		t.Fatalf("after delivery: status %q, %d actions offered", got, c.count(`[data-testid^="action-"]`))
	}
	c.shot("08-order-delivered")
	c.submit(`[data-testid="order-pet"]`)
	if got := c.text(`[data-testid="pet-fields"] [data-testid="status"]`); got != "sold" || c.count(`[data-testid="history-row"]`) != 3 {
		t.Fatalf("pet after delivery: %q with %d history rows", got, c.count(`[data-testid="history-row"]`))
	}
	c.shot("09-pet-sold")
	c.open("/admin/orders")
	c.shot("10-orders")
	c.open("/admin/orders?status=cancelled")
	if c.count(`[data-testid="empty"] h2`) != 1 {
		t.Fatal("an empty list's heading is not the level under the page's title")
	}
	c.shot("10b-orders-empty")

	// Issue an API key, see it once, and revoke it.
	c.open("/admin/keys")
	c.fill("#key-name", "Shop website")
	c.fill("#plan", "pro")
	c.submit(`[data-testid="create-key"]`)
	secret := c.text(`[data-testid="secret"]`)
	if !strings.HasPrefix(secret, "psk_") || c.count(`button[data-copy]:not([hidden])`) != 1 {
		t.Fatalf("new key %q, or no copy button (the optional script shows it)", secret)
	}
	c.shot("11-key-created")
	c.do(chromedp.Click(chromedp.CSS(`[data-testid="revoke"] summary`), chromedp.NodeVisible))
	c.submit(`[data-testid="revoke-submit"]`)
	if got := c.text(`[data-testid="key-fields"] [data-testid="status"]`); got != "revoked" {
		t.Fatalf("after revoking: %q", got)
	}
	if c.count(`[data-testid="secret"]`) != 0 {
		t.Fatal("the key was shown again")
	}
	c.shot("12-key-revoked")
	c.open("/admin/keys")
	c.shot("13-keys")

	c.open("/admin")
	c.shot("14-dashboard")
	c.open("/admin/categories")
	c.shot("15-categories")
	c.open("/admin/staff")
	c.shot("16-staff")
	// Opening "Disable…" in a row opens over the table: no column and no other row moves.
	const geometry = `[...document.querySelectorAll('[data-testid="staff-table"] tr')].map(r => {
		const b = r.getBoundingClientRect(); return [b.top, b.height, ...[...r.cells].map(c => c.getBoundingClientRect().width)].map(Math.round).join(" ");
	}).join(" / ")`
	before := eval[string](c, geometry)
	c.do(chromedp.Click(chromedp.CSS(`[data-testid="staff-row"] details.confirm summary`), chromedp.NodeVisible))
	if after := eval[string](c, geometry); after != before {
		t.Errorf("opening Disable… moved the table:\n before %s\n after  %s", before, after)
	}
	c.shot("16b-staff-disable-confirm")

	// An admin resets sam's password; the one-time password is shown once.
	c.open("/admin/staff")
	c.submit(`[data-testid="staff-row"]:nth-child(2) a.name`)
	if got := c.text(`[data-testid="page-title"]`); got != "sam" {
		t.Fatalf("the staff row led to %q", got)
	}
	c.shot("17-staff-member")
	c.do(chromedp.Click(chromedp.CSS(`[data-testid="reset-password"] summary`), chromedp.NodeVisible))
	c.submit(`[data-testid="reset-password-submit"]`)
	oneTime := c.text(`[data-testid="one-time-password"] [data-testid="secret"]`)
	if len(oneTime) < 20 {
		t.Fatalf("one-time password %q", oneTime)
	}
	c.shot("18-staff-password-reset")

	// Ada changes her own password on her account page.
	c.submit(`[data-testid="account-link"]`)
	c.fill("#current", "not my password")
	c.fill("#password", "the admin's new password")
	c.fill("#repeat", "the admin's new password")
	if status := c.submit(`[data-testid="change-password-submit"]`); status != 400 {
		t.Fatalf("a wrong current password answered %d", status)
	}
	if got := c.text(`[data-testid="error-current"]`); got != "That is not your current password." {
		t.Fatalf("beside the current password: %q", got)
	}
	c.shot("19-account-refused")
	c.fill("#current", adminPassword)
	c.fill("#password", "the admin's new password")
	c.fill("#repeat", "the admin's new password")
	c.submit(`[data-testid="change-password-submit"]`)
	if got := c.text(`[data-testid="flash"]`); !strings.HasPrefix(got, "Your password has been changed.") {
		t.Fatalf("after changing the password: %q", got)
	}
	c.shot("20-account-changed")

	// The audit log has all of it, with names that lead to their pages.
	c.open("/admin/audit")
	if got := c.text(`[data-testid="audit-row"] [data-testid="audit-action"]`); got != "changed the password" {
		t.Fatalf("the newest change is %q", got)
	}
	c.shot("21-audit")
	c.fill("#a-object", "pet")
	c.submit(`[data-testid="audit-filters"] button[type="submit"]`)
	if loc := c.location(); loc != "/admin/audit?actor=&object=pet&action=&date=" || c.count(`[data-testid="audit-row"]`) != 3 {
		t.Fatalf("filtered audit log at %s with %d rows, want the 3 changes of the pet added here", loc, c.count(`[data-testid="audit-row"]`))
	}
	c.shot("22-audit-pets")
	c.submit(`[data-testid="audit-row"] [data-testid="audit-actor"] a`)
	if got := c.text(`[data-testid="page-title"]`); got != "ada" {
		t.Fatalf("the actor's link led to %q", got)
	}

	c.open("/admin/pets/424242")
	c.shot("23-not-found")
	c.open("/admin/logout")
	c.shot("24-logout")

	c.submit(`[data-testid="logout"]`)
	if loc := c.location(); loc != "/admin/login?logged_out=1" {
		t.Fatalf("after logout the browser is at %s", loc)
	}
	c.open("/admin")
	if loc := c.location(); !strings.HasPrefix(loc, "/admin/login") {
		t.Fatalf("after logout /admin led to %s", loc)
	}

	// Sam logs in with the one-time password and must choose a new one before anything else.
	c.fill("#username", "sam")
	c.fill("#password", oneTime)
	c.submit(`[data-testid="login-form"] button[type="submit"]`)
	if loc := c.location(); loc != "/admin/account" || c.count(`[data-testid="must-change"]`) != 1 {
		t.Fatalf("after logging in with a one-time password the browser is at %s", loc)
	}
	c.shot("25-account-must-change")
	c.fill("#current", oneTime)
	c.fill("#password", "the clerk's own password")
	c.fill("#repeat", "the clerk's own password")
	c.submit(`[data-testid="change-password-submit"]`)
	c.open("/admin/pets")
	if loc := c.location(); loc != "/admin/pets" {
		t.Fatalf("after choosing a password sam is at %s", loc)
	}
}

package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest"
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
	ctx := apptest.Chromium(t, 1280, 800)
	c := &chrome{t: t, base: base, dir: t.ArtifactDir()}
	// A bound on the whole test, so a page that never loads fails instead of hanging.
	var cancel context.CancelFunc
	c.ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel)
	return c
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

// shot saves the current page at desktop width and at a phone's, then returns to desktop.
func (c *chrome) shot(name string) {
	c.t.Helper()
	for _, v := range []struct {
		suffix        string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}},
		{"desktop", 1280, 800, nil},
	} {
		c.do(chromedp.EmulateViewport(v.width, v.height, v.opts...))
		png, err := chromedp.Run(c.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(c.dir, name+"-"+v.suffix+".png"), png, 0o644); err != nil {
			c.t.Fatal(err)
		}
	}
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
	c.fill("#q", "e")
	c.fill("#f-category", "1")
	c.submit(`[data-testid="pet-filters"] button[type="submit"]`)
	if loc := c.location(); loc != "/admin/pets?q=e&status=available&category=1&show=" {
		t.Fatalf("filtered view at %s", loc)
	}
	if got := c.text(`[data-testid="pet-name"]`); got != "Rex" || c.count(`[data-testid="pet-row"]`) != 1 {
		t.Fatalf("filtered pets: first %q of %d, want just Rex", got, c.count(`[data-testid="pet-row"]`))
	}
	c.shot("03-pets-filtered")
	c.open("/admin/pets")
	c.shot("04-pets")

	// Create a pet: first with a mistake, then right.
	c.submit(`[data-testid="new-pet"]`)
	c.fill("#name", "   ")
	if status := c.submit(`[data-testid="save-pet"]`); status != 400 {
		t.Fatalf("an empty name answered %d", status)
	}
	if msg := c.text(`[data-testid="error-name"]`); msg != "must not be empty" {
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
	c.fill("#shipDate", "2026-12-24")
	c.submit(`[data-testid="place-order-submit"]`)
	if got := c.text(`[data-testid="order-fields"] [data-testid="status"]`); got != "placed" {
		t.Fatalf("new order's status %q", got)
	}
	c.shot("07-order-placed")
	c.submit(`[data-testid="action-approve"]`)
	c.submit(`[data-testid="action-deliver"]`)
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
	c.open("/admin/pets/424242")
	c.shot("17-not-found")

	c.submit(`[data-testid="logout"]`)
	if loc := c.location(); loc != "/admin/login?logged_out=1" {
		t.Fatalf("after logout the browser is at %s", loc)
	}
	c.open("/admin")
	if loc := c.location(); !strings.HasPrefix(loc, "/admin/login") {
		t.Fatalf("after logout /admin led to %s", loc)
	}
}

package app_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// everyView is each way staff see a page, every one checked with axe-core: a phone and a
// desktop, each in the light and the dark scheme.
var everyView = []view{
	{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}, "light", true},
	{"phone-dark", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}, "dark", true},
	{"desktop-dark", 1280, 800, nil, "dark", true},
	{"desktop", 1280, 800, nil, "light", true},
}

// shotEveryView is shot in every view of everyView, ending at desktop width in light mode.
func (c *chrome) shotEveryView(name string) {
	c.t.Helper()
	c.shotIn(name, everyView)
}

// tick ticks the row boxes of these orders on the orders table.
func (c *chrome) tick(ids ...int64) {
	c.t.Helper()
	for _, id := range ids {
		c.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="select-order"][value="%d"]`, id)), chromedp.NodeVisible))
	}
}

// The day's work as staff run it, in a store whose time zone is Atlantic/Reykjavik (UTC all
// year round, so the store's day is the test's whatever the hour): the dashboard's work and
// problems, each leading to its list; orders approved, delivered and cancelled in bulk with a
// result per order and the early delivery confirmed first; orders of a client and a pet's
// category picked from their suggestions with the keyboard. Every page in every view passes
// axe-core and fits its window.
func TestStaffRunTheDayFromTheDashboardWithBulkOrdersAndSuggestionsInABrowser(t *testing.T) {
	t.Parallel()
	zone, err := time.LoadLocation("Atlantic/Reykjavik")
	if err != nil {
		t.Fatal(err)
	}
	s := adminServerWith(t, testenv.SQLite, func(cfg *app.Config) { cfg.Timezone = zone })
	d := newStoreDayOn(t, s)
	ctx := models.WithActor(t.Context(), models.ActorCLI)
	// More clients than a page's suggestions hold, named to sort before the API's own client
	// ("apptest"), which the script has to ask for.
	for i := range models.MaxSuggestions + 5 {
		if _, err := models.NewClientStore(s.DB).Create(ctx, models.NewClient{Name: fmt.Sprintf("Kennel %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	c := newChrome(t, s.URL)
	c.login("ada", adminPassword)

	// The dashboard: the work waiting and the problems, the store's time zone said at the foot.
	c.open("/admin")
	for id, want := range map[string]string{"dash-work-waiting": "3", "dash-work-due-today": "1", "dash-work-overdue": "1",
		"dash-work-failing": "1", "dash-work-disabled": "1", "dash-work-banned": "1"} {
		if got := c.text(`[data-testid="` + id + `"] .stat-value`); got != want {
			t.Errorf("the dashboard's %s says %q, want %s", id, got, want)
		}
	}
	if got := c.text(`[data-testid="troubled-row"] [data-testid="status"]`); got != "failing" {
		t.Errorf("the first endpoint in trouble is %q", got)
	}
	if got := c.text(`[data-testid="time-zone"]`); got != "Times in Atlantic/Reykjavik" {
		t.Errorf("the dashboard's foot says %q", got)
	}
	c.shotEveryView("70-dashboard-work-and-problems")
	// Each problem is a link to its list.
	c.submit(`[data-testid="dash-work-failing"]`)
	if loc, got := c.location(), c.text(`[data-testid="troubled-row"] [data-testid="status"]`); loc != "/admin/webhooks?state=failing" || got != "failing" {
		t.Fatalf("the failing endpoints' number leads to %s, which shows %q", loc, got)
	}
	c.shotEveryView("71-webhooks-failing")
	c.open("/admin")
	c.submit(`[data-testid="dash-work-overdue"]`)
	if got := c.count(`[data-testid="order-row"]`); got != 1 || c.text(`[data-testid="order-link"]`) != "#"+itoa(d.overdue) {
		t.Fatalf("the overdue orders' list shows %d orders, first %q", got, c.text(`[data-testid="order-link"]`))
	}

	// Bulk: approve four live orders, one of them approved already.
	c.open("/admin/orders?status=live")
	c.tick(d.dueToday, d.waiting, d.later, d.overdue)
	c.fill("#orders-bulk-action", "approve")
	c.submit(`[data-testid="orders-bulk-submit"]`)
	if got := c.text(`[data-testid="page-title"]`); got != "Approve 4 orders?" {
		t.Fatalf("the confirmation asks %q", got)
	}
	c.shotEveryView("72-orders-bulk-approve-confirm")
	c.submit(`[data-testid="orders-bulk-confirm-submit"]`)
	if got, outcome := c.text(`[data-testid="orders-bulk-summary"]`), eval[string](c, `document.querySelector('[data-testid="orders-bulk-result"]').dataset.outcome`); got != "3 of 4 orders approved." || outcome != "warn" {
		t.Fatalf("the result says %q in a %q box", got, outcome)
	}
	if got := c.count(`[data-testid="orders-bulk-line"] a[href^="/admin/orders/"]`); got != 4 {
		t.Fatalf("the result links %d orders, want one line for each of 4", got)
	}
	c.shotEveryView("73-orders-bulk-approved")

	// Deliver two, one due in a week: the confirmation marks it early first.
	c.submit(`[data-testid="orders-bulk-back"]`)
	c.tick(d.later, d.dueToday)
	c.fill("#orders-bulk-action", "deliver")
	c.submit(`[data-testid="orders-bulk-submit"]`)
	if c.count(`[data-testid="bulk-early-order"]`) != 1 || !strings.Contains(c.text(`[data-testid="bulk-early"]`), "1 order of these is to ship after today") {
		t.Fatalf("the delivery's confirmation does not mark the early order: %q", c.text(`[data-testid="orders-bulk-confirm"]`))
	}
	c.shotEveryView("74-orders-bulk-deliver-early")
	c.submit(`[data-testid="orders-bulk-confirm-submit"]`)
	if got := c.text(`[data-testid="orders-bulk-summary"]`); got != "2 of 2 orders delivered." {
		t.Fatalf("the delivery says %q", got)
	}

	// Cancel the one left waiting; a delivered one stays delivered, in a red box when alone.
	c.submit(`[data-testid="orders-bulk-back"]`)
	c.tick(d.waiting)
	c.fill("#orders-bulk-action", "cancel")
	c.submit(`[data-testid="orders-bulk-submit"]`)
	c.submit(`[data-testid="orders-bulk-confirm-submit"]`)
	if got, outcome := c.text(`[data-testid="orders-bulk-summary"]`), eval[string](c, `document.querySelector('[data-testid="orders-bulk-result"]').dataset.outcome`); got != "1 of 1 order cancelled." || outcome != "ok" {
		t.Fatalf("the cancellation says %q in a %q box", got, outcome)
	}
	c.shotEveryView("75-orders-bulk-cancelled")

	// The client filter, by keyboard: typing part of a name brings the matching clients from
	// the server into the field's suggestions, and the full suggestion filters the orders.
	c.open("/admin/orders")
	api := fmt.Sprintf("apptest (#%d)", s.ClientID)
	if c.count(`#client-names option[value="`+api+`"]`) != 0 {
		t.Fatal("the page's own suggestions hold the API's client already: the script is not what brings it")
	}
	c.do(chromedp.Focus(chromedp.CSS("#f-client")), chromedp.KeyEvent("appt"))
	c.do(chromedp.WaitReady(chromedp.CSS(`#client-names option[value="` + api + `"]`)))
	if got := c.count(`#client-names option`); got != 1 {
		t.Fatalf("typing appt suggests %d clients, want the API's own", got)
	}
	c.shotEveryView("76-orders-client-suggested")
	_ = eval[string](c, `document.getElementById("f-client").value = ""`)
	c.do(chromedp.Focus(chromedp.CSS("#f-client")), chromedp.KeyEvent(api))
	if _, err := chromedp.RunResponse(c.ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if got := c.text(`[data-testid="client-filter"]`); got != fmt.Sprintf("Orders of apptest (client #%d).", s.ClientID) || c.count(`[data-testid="order-row"]`) != 4 {
		t.Fatalf("the orders of the API's client: %q, %d rows", got, c.count(`[data-testid="order-row"]`))
	}
	if got := eval[string](c, `document.getElementById("f-client").value`); got != api {
		t.Fatalf("the client filter shows %q", got)
	}
	c.shotEveryView("77-orders-of-a-client")

	// A new pet's category, typed and picked by keyboard alone.
	c.open("/admin/pets/new")
	if got := c.count(`#category-names option`); got != len(models.SeedCategories) {
		t.Fatalf("the category field suggests %d categories, want %d", got, len(models.SeedCategories))
	}
	c.do(chromedp.Focus(chromedp.CSS("#name")), chromedp.KeyEvent("Pebble"+kb.Tab+"fish"))
	if id := eval[string](c, `document.activeElement.id`); id != "categoryId" {
		t.Fatalf("Tab from the name reaches %q, want the category", id)
	}
	c.shotEveryView("78-pet-category-typed")
	if _, err := chromedp.RunResponse(c.ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if got := c.text(`[data-testid="pet-fields"] dd:nth-of-type(3)`); got != "Fish" {
		t.Fatalf("Pebble was added in %q, want Fish", got)
	}
}

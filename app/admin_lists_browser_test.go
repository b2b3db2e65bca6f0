package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// fetched is what the page's own fetch of a URL got: the status, two headers and the body.
type fetched struct {
	Status      int    `json:"status"`
	Type        string `json:"type"`
	Disposition string `json:"disposition"`
	Body        string `json:"body"`
}

func TestStaffSortSearchWorkInBulkAndExportInABrowser(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	seedPets(t, s)
	more := make([]models.Pet, 48)
	for i := range more {
		more[i] = models.Pet{Name: fmt.Sprintf("Foster %02d", i), CategoryID: int64(i%6 + 1), Status: models.PetAvailable}
	}
	if err := s.DB.Create(&more).Error; err != nil {
		t.Fatal(err)
	}
	orders := models.NewOrderStore(s.DB)
	ctx := context.Background()
	for i, id := range []int64{1, 4, 7, 10, 13, 16} {
		n := models.NewOrder{PetID: &id}
		if i%2 == 0 {
			ship := time.Now().UTC().AddDate(0, 0, 3+i).Truncate(24 * time.Hour)
			n.ShipDate = &ship
		}
		if _, err := orders.Place(ctx, n, models.StaffOwner, "test", nil); err != nil {
			t.Fatal(err)
		}
	}
	c := newChrome(t, s.URL)
	c.open("/admin/login")
	c.fill("#username", "ada")
	c.fill("#password", adminPassword)
	c.submit(`[data-testid="login-form"] button[type="submit"]`)

	// The catalogue says how many pets there are; a heading sorts by its column.
	c.open("/admin/pets")
	if got := c.text(`[data-testid="pager-summary"]`); got != "1–25 of 60 pets" {
		t.Fatalf("the pets list says %q", got)
	}
	c.submit(`[data-testid="sort-name"]`)
	if loc, first := c.location(), c.text(`[data-testid="pet-name"]`); loc != "/admin/pets?sort=name" || first != "Bella" {
		t.Fatalf("sorted by name at %s, first %q", loc, first)
	}
	if got := eval[string](c, `document.querySelector('th[aria-sort]').textContent.trim()`); !strings.HasPrefix(got, "Name") {
		t.Fatalf("the heading marked sorted reads %q", got)
	}
	c.submit(`[data-testid="next-page"]`)
	if got := c.text(`[data-testid="pager-summary"]`); got != "26–50 of 60 pets" {
		t.Fatalf("the second page by name says %q", got)
	}
	c.shot("30-pets-sorted-by-name")
	c.submit(`[data-testid="sort-name"]`)
	if loc, first := c.location(), c.text(`[data-testid="pet-name"]`); loc != "/admin/pets?sort=-name" || first != "Tom" {
		t.Fatalf("by name descending at %s, first %q", loc, first)
	}

	// Search by id or by name keeps the order chosen.
	c.fill("#q", "#7")
	c.submit(`[data-testid="pet-filters"] button[type="submit"]`)
	if got := c.text(`[data-testid="pet-name"]`); got != "Coco" || c.count(`[data-testid="pet-row"]`) != 1 {
		t.Fatalf("search #7 found %q and %d rows", got, c.count(`[data-testid="pet-row"]`))
	}
	c.fill("#q", "foster 1")
	c.submit(`[data-testid="pet-filters"] button[type="submit"]`)
	if loc := c.location(); loc != "/admin/pets?q=foster+1&tag=&status=&category=&show=&sort=-name" {
		t.Fatalf("the search's address is %s", loc)
	}
	if got := c.text(`[data-testid="pager-summary"]`); got != "1–10 of 10 pets" || c.text(`[data-testid="pet-name"]`) != "Foster 19" {
		t.Fatalf("search foster 1 says %q, first %q", got, c.text(`[data-testid="pet-name"]`))
	}
	c.shot("31-pets-search")

	// Tick three pets, two of them held by orders, and set them to sold.
	c.open("/admin/pets?sort=id")
	c.do(chromedp.Click(chromedp.CSS(`[data-testid="pet-row"]:nth-child(1) [data-testid="select-pet"]`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`[data-testid="pet-row"]:nth-child(2) [data-testid="select-pet"]`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`[data-testid="pet-row"]:nth-child(4) [data-testid="select-pet"]`), chromedp.NodeVisible))
	if eval[bool](c, `document.querySelector('[data-select-all]').indeterminate`) != true {
		t.Fatal("with some rows ticked, the select-all box is not half ticked")
	}
	c.fill("#bulk-action", "sold")
	c.shot("32-pets-selected")
	c.submit(`[data-testid="bulk-submit"]`)
	if got := c.text(`[data-testid="page-title"]`); got != "Set 3 pets to sold?" {
		t.Fatalf("the confirmation asks %q", got)
	}
	c.shot("33-bulk-confirm")
	c.submit(`[data-testid="bulk-confirm-submit"]`)
	if got := c.text(`[data-testid="bulk-summary"]`); got != "1 of 3 pets set to sold." || c.count(`[data-testid="bulk-refusal"]`) != 2 {
		t.Fatalf("after the bulk change: %q with %d refusals", got, c.count(`[data-testid="bulk-refusal"]`))
	}
	if got := c.text(`[data-testid="bulk-refusal"]`); !strings.HasPrefix(got, "Rex (#1) was not set to sold: order #1 (placed) holds it") {
		t.Fatalf("the first refusal reads %q", got)
	}
	c.shot("34-bulk-done")
	c.submit(`[data-testid="bulk-back"]`)
	if loc := c.location(); loc != "/admin/pets?sort=id" {
		t.Fatalf("back from the bulk change at %s", loc)
	}

	// The export link gives the filtered list as CSV.
	c.open("/admin/pets?status=sold&sort=name")
	href := eval[string](c, `document.querySelector('[data-testid="export-csv"]').getAttribute('href')`)
	got := fetchInPage(c, href)
	if got.Status != 200 || got.Type != "text/csv; charset=utf-8" || !strings.HasPrefix(got.Disposition, `attachment; filename="pets-`) {
		t.Fatalf("export: %+v", got)
	}
	lines := strings.Split(strings.TrimSpace(got.Body), "\r\n")
	if len(lines) != 6 || lines[0] != "id,name,category,status,description,tags,cover,created,updated,deleted" || !strings.HasPrefix(lines[1], "2,Bella,Cats,sold,") {
		t.Fatalf("the sold pets as CSV: %q", lines)
	}

	// Orders: newest first, sortable by ship date (those without one last), searchable by pet.
	c.open("/admin/orders")
	if got := c.text(`[data-testid="order-link"]`); got != "#6" || c.text(`[data-testid="pager-summary"]`) != "1–6 of 6 orders" {
		t.Fatalf("the orders list starts with %q and says %q", got, c.text(`[data-testid="pager-summary"]`))
	}
	c.submit(`[data-testid="sort-shipDate"]`)
	if got := c.text(`[data-testid="order-link"]`); got != "#5" {
		t.Fatalf("by ship date, newest first, the first order is %q", got)
	}
	c.shot("35-orders-by-ship-date")
	c.fill("#q", "kiwi")
	c.submit(`[data-testid="order-filters"] button[type="submit"]`)
	if c.count(`[data-testid="order-row"]`) != 1 || c.text(`[data-testid="order-pet-name"]`) != "Kiwi" {
		t.Fatalf("orders of kiwi: %d rows", c.count(`[data-testid="order-row"]`))
	}
	c.shot("36-orders-search")

	// The audit log counts its entries and exports them.
	c.open("/admin/audit?object=pet")
	// Six pets taken by orders, and the one set to sold in bulk.
	if got := c.text(`[data-testid="pager-summary"]`); got != "1–7 of 7 changes" {
		t.Fatalf("the audit log of pets says %q", got)
	}
	c.shot("37-audit-counted")
	audit := fetchInPage(c, eval[string](c, `document.querySelector('[data-testid="export-csv"]').getAttribute('href')`))
	if rows := strings.Split(strings.TrimSpace(audit.Body), "\r\n"); audit.Status != 200 || len(rows) != 8 || !strings.Contains(rows[1], ",staff:ada,pet,2,Bella,set_status,") {
		t.Fatalf("the audit export: %d %q", audit.Status, rows)
	}
}

// fetchInPage fetches a URL from the page, with its cookies, as a click on a download link would.
func fetchInPage(c *chrome, href string) fetched {
	c.t.Helper()
	script := `fetch(` + jsString(href) + `).then(async r => ({status: r.status, type: r.headers.get("Content-Type"),
		disposition: r.headers.get("Content-Disposition"), body: await r.text()}))`
	got, err := chromedp.Run(c.ctx, chromedp.Evaluate[fetched](script, chromedp.EvalAwaitPromise))
	if err != nil {
		c.t.Fatal(err)
	}
	return got
}

package app_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// orderPetFor places an order for a new pet through the API, to ship on ship (a day) when given.
func orderPetFor(t *testing.T, s *apptest.Server, name string, ship time.Time) int64 {
	t.Helper()
	p := createPetNamed(t, s, name)
	body := map[string]any{"petId": p.ID}
	if !ship.IsZero() {
		body["shipDate"] = ship.Format(time.RFC3339)
	}
	res := s.PostJSON(t, "/v1/store/orders", body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("place an order for %s: %d %s", name, res.StatusCode, res.Body)
	}
	var o struct{ ID int64 }
	res.JSON(t, &o)
	return o.ID
}

// dayOf is the calendar day of t, at UTC midnight, as ship dates are kept.
func dayOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// storeDay is a store with the day's work: orders waiting, due today and overdue, a failing and a
// disabled webhook endpoint and a banned key.
type storeDay struct {
	s                                 *apptest.Server
	waiting, dueToday, later, overdue int64
	failing, disabled                 endpoint
	failingSince                      time.Time
}

func newStoreDay(t *testing.T, store testenv.Store) *storeDay {
	t.Helper()
	return newStoreDayOn(t, adminServer(t, store))
}

// newStoreDayOn gives the admin server s the day's work.
func newStoreDayOn(t *testing.T, s *apptest.Server) *storeDay {
	t.Helper()
	d := &storeDay{s: s}
	today := dayOf(time.Now().UTC())
	d.dueToday = orderPetFor(t, s, "Rex", today)
	d.waiting = orderPetFor(t, s, "Bella", time.Time{})
	d.later = orderPetFor(t, s, "Tom", today.AddDate(0, 0, 7))
	d.overdue = orderPetFor(t, s, "Kiwi", today)
	ada := s.NewBrowser(t)
	ada.Login(t, "ada", adminPassword)
	ada.Get(t, "/admin/orders/"+itoa(d.overdue))
	wantStatus(t, ada.Post(t, "/admin/orders/"+itoa(d.overdue)+"/approve", nil), http.StatusSeeOther)
	// Kiwi's order was to ship three days ago.
	if err := s.DB.Model(&models.Order{}).Where("id = ?", d.overdue).Update("ship_date", today.AddDate(0, 0, -3)).Error; err != nil {
		t.Fatal(err)
	}
	d.failing = addEndpoint(t, s, "http://127.0.0.1:9/failing", "pet.created")
	d.disabled = addEndpoint(t, s, "http://127.0.0.1:9/disabled", "pet.created")
	d.failingSince = time.Date(2026, 11, 27, 9, 15, 0, 0, time.UTC)
	if err := s.DB.Model(&models.WebhookEndpoint{}).Where("id = ?", d.failing.ID).Update("failing_since", d.failingSince).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Model(&models.WebhookEndpoint{}).Where("id = ?", d.disabled.ID).
		Updates(map[string]any{"disabled_at": d.failingSince.Add(time.Hour), "disabled_reason": models.DisabledByFailing, "failing_since": d.failingSince}).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Model(&models.APIKey{}).Where("id = ?", s.KeyID).Update("banned_until", time.Now().Add(time.Hour)).Error; err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTheDashboardShowsTheDaysWorkAndProblemsEachLinkingToItsList(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		d := newStoreDay(t, store)
		ada := d.s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)
		dash := ada.Get(t, "/admin")
		wantStatus(t, dash, http.StatusOK)
		for key, want := range map[string]string{"waiting": "3", "due-today": "1", "overdue": "1", "failing": "1", "disabled": "1", "banned": "1"} {
			stat := dash.TestID("dash-work-" + key)
			if got := strings.TrimSpace(stat.Find(".stat-value").Text()); got != want {
				t.Errorf("the dashboard's %q says %q, want %s", strings.TrimSpace(stat.Find(".stat-label").Text()), got, want)
			}
		}
		// Each number opens the list it counts; the orders waiting longest come first.
		for key, want := range map[string][]int64{"waiting": {d.dueToday, d.waiting, d.later}, "due-today": {d.dueToday}, "overdue": {d.overdue}} {
			list := ada.Get(t, dash.TestID("dash-work-"+key).AttrOr("href", ""))
			wantStatus(t, list, http.StatusOK)
			if got := ordersShown(list); !equalIDs(got, want) {
				t.Errorf("%s leads to orders %v, want %v", key, got, want)
			}
		}
		if href := dash.TestID("dash-work-banned").AttrOr("href", ""); href != "/admin/keys?state=banned" {
			t.Errorf("banned keys lead to %q", href)
		} else if keys := ada.Get(t, href); keys.TestID("key-row").Length() != 1 {
			t.Errorf("the banned keys list shows %d keys, want 1", keys.TestID("key-row").Length())
		}
		// The endpoints in trouble are named, with since when, failing never called active.
		troubled := dash.TestID("troubled-row")
		if troubled.Length() != 2 || strings.TrimSpace(troubled.First().Find(`[data-testid="status"]`).Text()) != "failing" ||
			strings.Join(strings.Fields(troubled.First().Find(`[data-testid="troubled-since"]`).Text()), " ") != "2026-11-27 09:15" {
			t.Fatalf("the dashboard's endpoints in trouble: %q", strings.Join(strings.Fields(troubled.Text()), " "))
		}
		for _, target := range []string{dash.TestID("dash-work-failing").AttrOr("href", ""), "/admin/clients/" + itoa(d.s.ClientID),
			"/admin/clients/" + itoa(d.s.ClientID) + "/endpoints/" + itoa(d.failing.ID)} {
			p := ada.Get(t, target)
			wantStatus(t, p, http.StatusOK)
			row := p.Doc.Find(`tr[data-testid="endpoint-row"][data-id="` + itoa(d.failing.ID) + `"] [data-testid="status"], tr[data-testid="troubled-row"][data-id="` + itoa(d.failing.ID) + `"] [data-testid="status"]`)
			if target == "/admin/clients/"+itoa(d.s.ClientID)+"/endpoints/"+itoa(d.failing.ID) {
				row = p.TestID("endpoint-fields").Find(`[data-testid="status"]`)
			}
			if got := strings.TrimSpace(row.Text()); got != "failing" {
				t.Errorf("%s shows the failing endpoint as %q", target, got)
			}
		}
		if changes := dash.TestID("dash-changes").Find(`[data-testid="audit-table"] tbody tr`); changes.Length() != 5 {
			t.Errorf("the latest changes list %d entries, want 5", changes.Length())
		}

		// Staff see the orders' work; webhooks, keys and the audit log are the admins'.
		sam := d.s.NewBrowser(t)
		sam.Login(t, "sam", staffPassword)
		staffDash := sam.Get(t, "/admin")
		if staffDash.TestID("dash-work-waiting").Length() != 1 || staffDash.TestID("dash-work-failing").Length() != 0 || staffDash.TestID("dash-changes").Length() != 0 {
			t.Errorf("staff's dashboard: %q", strings.Join(strings.Fields(staffDash.TestID("dash-work").Text()), " "))
		}
		wantStatus(t, sam.Get(t, "/admin/webhooks"), http.StatusForbidden)
	})
}

func ordersShown(p *apptest.Page) []int64 {
	var out []int64
	for _, n := range p.TestID("order-link").Nodes {
		var id int64
		for _, c := range strings.TrimPrefix(strings.TrimSpace(n.FirstChild.Data), "#") {
			id = id*10 + int64(c-'0')
		}
		out = append(out, id)
	}
	return out
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStaffApproveDeliverAndCancelOrdersInBulkAndSeeWhatCameOfEach(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		d := newStoreDay(t, store)
		sam := d.s.NewBrowser(t)
		sam.Login(t, "sam", staffPassword)
		sam.Get(t, "/admin/orders?status=live")
		back := "/admin/orders?status=live"
		form := url.Values{"action": {"approve"}, "back": {back}, "id": {itoa(d.dueToday), itoa(d.overdue), itoa(d.later)}}
		confirm := sam.Post(t, "/admin/orders/bulk", form)
		wantStatus(t, confirm, http.StatusOK)
		if got := confirm.Text("page-title"); got != "Approve 3 orders?" {
			t.Fatalf("the confirmation asks %q", got)
		}
		form.Set("confirm", "yes")
		done := sam.Post(t, "/admin/orders/bulk", form)
		wantStatus(t, done, http.StatusOK)
		result := done.TestID("orders-bulk-result")
		if got := done.Text("orders-bulk-summary"); got != "2 of 3 orders approved." || result.AttrOr("data-outcome", "") != "warn" {
			t.Fatalf("the result says %q in a %q box", got, result.AttrOr("data-outcome", ""))
		}
		lines := done.TestID("orders-bulk-line")
		want := "Order #" + itoa(d.overdue) + " (Kiwi) was not approved: it is approved, which allows mark delivered or cancel order."
		if got := strings.Join(strings.Fields(lines.Eq(1).Text()), " "); got != want {
			t.Errorf("the refused order's line reads %q, want %q", got, want)
		}
		if href := lines.Eq(1).Find("a").AttrOr("href", ""); href != "/admin/orders/"+itoa(d.overdue) {
			t.Errorf("the refused order links to %q", href)
		}

		// Delivering Tom's order, due in a week, is early: the confirmation says so first.
		form = url.Values{"action": {"deliver"}, "back": {back}, "id": {itoa(d.later), itoa(d.dueToday)}}
		confirm = sam.Post(t, "/admin/orders/bulk", form)
		if early := confirm.TestID("bulk-early-order"); early.Length() != 1 || !strings.Contains(confirm.Text("bulk-early"), "1 order of these is to ship after today") {
			t.Fatalf("the delivery's confirmation: %q", strings.Join(strings.Fields(confirm.TestID("orders-bulk-confirm").Text()), " "))
		}
		form.Set("confirm", "yes")
		done = sam.Post(t, "/admin/orders/bulk", form)
		if got := done.Text("orders-bulk-summary"); got != "2 of 2 orders delivered." || done.TestID("orders-bulk-result").AttrOr("data-outcome", "") != "ok" {
			t.Fatalf("the delivery says %q", got)
		}
		// Cancelling what is delivered changes nothing, in a red box.
		done = sam.Post(t, "/admin/orders/bulk", url.Values{"action": {"cancel"}, "confirm": {"yes"}, "back": {back}, "id": {itoa(d.later)}})
		if got := done.Text("orders-bulk-summary"); got != "0 of 1 order cancelled." || done.TestID("orders-bulk-result").AttrOr("data-outcome", "") != "error" {
			t.Fatalf("cancelling a delivered order says %q", got)
		}
		wantStatus(t, sam.Post(t, "/admin/orders/bulk", url.Values{"action": {"ship"}, "id": {"1"}}), http.StatusBadRequest)
		wantStatus(t, sam.Post(t, "/admin/orders/bulk", url.Values{"action": {"approve"}}), http.StatusBadRequest)
	})
}

func TestDeliveringAnOrderBeforeItsShipDateAsksFirst(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	today := dayOf(time.Now().UTC())
	id := orderPetFor(t, s, "Nemo", today.AddDate(0, 0, 5))
	sam := s.NewBrowser(t)
	sam.Login(t, "sam", staffPassword)
	sam.Get(t, "/admin/orders/"+itoa(id))
	wantStatus(t, sam.Post(t, "/admin/orders/"+itoa(id)+"/approve", nil), http.StatusSeeOther)
	p := sam.Post(t, "/admin/orders/"+itoa(id)+"/deliver", nil)
	wantStatus(t, p, http.StatusOK)
	want := "Order #" + itoa(id) + " is to ship on " + today.AddDate(0, 0, 5).Format(time.DateOnly) + ". Mark it delivered now anyway? Nemo becomes sold."
	if got := strings.Join(strings.Fields(p.TestID("confirm-early").Find("p").Text()), " "); got != want {
		t.Fatalf("the order asks %q, want %q", got, want)
	}
	if o := orderStatus(t, s, id); o != models.OrderApproved {
		t.Fatalf("before the confirmation the order is %s", o)
	}
	wantStatus(t, sam.Post(t, "/admin/orders/"+itoa(id)+"/deliver", url.Values{"early": {"yes"}}), http.StatusSeeOther)
	if o := orderStatus(t, s, id); o != models.OrderDelivered {
		t.Fatalf("after the confirmation the order is %s", o)
	}
}

func orderStatus(t *testing.T, s *apptest.Server, id int64) models.OrderStatus {
	t.Helper()
	var o models.Order
	if err := s.DB.Take(&o, id).Error; err != nil {
		t.Fatal(err)
	}
	return o.Status
}

func TestOrdersFilterByClientAndByTheDaysPlacedAndToShipAndExportThem(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := parisServer(t, store)
		today := dayOf(time.Now().UTC())
		mine := orderPetFor(t, s, "Rex", today.AddDate(0, 0, 2))
		other, key := s.CreateKey(t, models.NewAPIKey{Name: "Kennel Co", Plan: "free", Scopes: []string{"pets:read", "pets:write", "orders:read", "orders:write"}})
		theirs := orderPetFor(t, s.As(key), "Bella", today.AddDate(0, 0, 4))
		// Rex's order was placed at 23:30 UTC on 26 November: the 27th in Paris.
		if err := s.DB.Model(&models.Order{}).Where("id = ?", mine).Update("created_at", time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)).Error; err != nil {
			t.Fatal(err)
		}
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)
		for target, want := range map[string][]int64{
			"/admin/orders?client=" + itoa(other.ClientID):                           {theirs},
			"/admin/orders?placedFrom=2026-11-27&placedTo=2026-11-27":                {mine},
			"/admin/orders?placedTo=2026-11-26":                                      nil,
			"/admin/orders?shipFrom=" + today.AddDate(0, 0, 3).Format(time.DateOnly): {theirs},
			"/admin/orders?shipTo=" + today.AddDate(0, 0, 2).Format(time.DateOnly):   {mine},
		} {
			p := ada.Get(t, target)
			wantStatus(t, p, http.StatusOK)
			if got := ordersShown(p); !equalIDs(got, want) {
				t.Errorf("%s lists %v, want %v", target, got, want)
			}
		}
		p := ada.Get(t, "/admin/orders")
		clients := p.TestID("order-client")
		if clients.Length() != 2 || strings.TrimSpace(clients.First().Text()) != "Kennel Co" || clients.First().Find("a").AttrOr("href", "") != "/admin/clients/"+itoa(other.ClientID) {
			t.Fatalf("the client column: %q", clients.Text())
		}
		rows := readCSV(t, ada, "/admin/orders?format=csv&client="+itoa(other.ClientID), "orders")
		if strings.Join(rows[0], ",") != "id,pet id,pet,status,ship date,placed,updated,client id,client" || len(rows) != 2 || rows[1][7] != itoa(other.ClientID) || rows[1][8] != "Kennel Co" {
			t.Fatalf("the client's orders as CSV: %q", rows)
		}
		rows = readCSV(t, ada, "/admin/orders?format=csv&placedFrom=2026-11-27&placedTo=2026-11-27", "orders")
		if len(rows) != 2 || rows[1][5] != "2026-11-27 00:30:00" {
			t.Fatalf("Rex's order as CSV: %q", rows)
		}
		for _, bad := range []string{"placedFrom=27.11.2026", "shipFrom=2026-12-05&shipTo=2026-12-01", "client=x", "status=open"} {
			wantStatus(t, ada.Get(t, "/admin/orders?"+bad), http.StatusBadRequest)
		}
	})
}

// A store whose pets' ids span more than the 50,000 counted exactly: the dashboard's and the
// categories page's counts are estimates from the newest 10,000 ids, and say so; a small store's
// are exact.
func TestTheDashboardAndCategoriesSayWhenTheirCountsAreEstimates(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		createPets(t, s, 3, "Early", models.PetAvailable)
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)
		statOf := func(p *apptest.Page, id string) string {
			return strings.TrimSpace(p.TestID(id).Find(".stat-value").Text())
		}
		if got := statOf(ada.Get(t, "/admin"), "dash-pets-available"); got != "3" {
			t.Fatalf("3 available pets are shown as %q", got)
		}
		// Two pets among the newest ids of a span of 200,000: about 20 each, in their category.
		late := []models.Pet{{ID: 199_999, Name: "Late", CategoryID: 2, Status: models.PetAvailable}, {ID: 200_000, Name: "Later", CategoryID: 2, Status: models.PetSold}}
		if err := s.DB.Create(&late).Error; err != nil {
			t.Fatal(err)
		}
		dash := ada.Get(t, "/admin")
		for id, want := range map[string]string{"dash-pets-available": "about 20", "dash-pets-sold": "about 20", "dash-pets-pending": "about 0"} {
			if got := statOf(dash, id); got != want {
				t.Errorf("%s says %q, want %q", id, got, want)
			}
		}
		cats := ada.Get(t, "/admin/categories")
		var counts []string
		cats.Doc.Find(`td[data-label="Pets"]`).Each(func(_ int, td *goquery.Selection) { counts = append(counts, strings.TrimSpace(td.Text())) })
		if len(counts) != 6 || counts[0] != "about 0" || counts[1] != "about 40" {
			t.Errorf("the categories' pets: %q, want about 0 for Dogs and about 40 for Cats", counts)
		}
	})
}

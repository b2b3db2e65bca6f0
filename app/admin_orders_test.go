package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

var orderPage = regexp.MustCompile(`^/admin/orders/(\d+)$`)

func actionsOffered(p *apptest.Page) string {
	var as []string
	p.Doc.Find(`[data-testid^="action-"]`).Each(func(_ int, s *goquery.Selection) {
		as = append(as, strings.TrimPrefix(s.AttrOr("data-testid", ""), "action-"))
	})
	return strings.Join(as, ",")
}

func historyTexts(p *apptest.Page) []string {
	var out []string
	p.TestID("history-row").Each(func(_ int, s *goquery.Selection) { out = append(out, strings.Join(strings.Fields(s.Text()), " ")) })
	return out
}

func addPet(t *testing.T, s *apptest.Server, name string, status models.PetStatus) int64 {
	t.Helper()
	p := models.Pet{Name: name, CategoryID: 1, Status: status}
	if err := s.DB.Create(&p).Error; err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func TestAnOrderMovesThroughItsLifecycleOnlyByTheActionsItAllows(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		petID := addPet(t, s, "Rex", models.PetAvailable)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		pet := b.Get(t, fmt.Sprintf("/admin/pets/%d", petID))
		if pet.TestID("place-order").Length() != 1 || pet.TestID("empty").Length() != 1 {
			t.Fatalf("an available pet's page offers no order form or shows orders\n%s", pet.Body)
		}

		day := time.Now().UTC().AddDate(0, 0, 30).Format(time.DateOnly)
		p := b.Post(t, fmt.Sprintf("/admin/pets/%d/orders", petID), url.Values{"shipDate": {day}})
		wantStatus(t, p, http.StatusSeeOther)
		m := orderPage.FindStringSubmatch(p.Location())
		if m == nil {
			t.Fatalf("after placing: Location %q", p.Location())
		}
		orderURL := p.Location()
		order := b.Follow(t, p)
		if got := actionsOffered(order); got != "approve,cancel" {
			t.Fatalf("a placed order offers %q, want approve,cancel", got)
		}
		if order.TestID("order-fields").Find(`[data-testid="status"]`).Text() != "placed" || !strings.Contains(order.TestID("order-fields").Text(), day) {
			t.Fatalf("order fields: %s", order.TestID("order-fields").Text())
		}

		// The order ships in 30 days: delivering it now is early, confirmed as such.
		for _, step := range []struct{ action, then, offers string }{
			{"approve", "approved", "deliver,cancel"},
			{"deliver", "delivered", ""},
		} {
			p := b.Post(t, orderURL+"/"+step.action, url.Values{"early": {"yes"}})
			wantStatus(t, p, http.StatusSeeOther)
			order = b.Follow(t, p)
			if got := order.Text("flash"); got != "Order #"+m[1]+" is now "+step.then+"." {
				t.Fatalf("after %s: flash %q", step.action, got)
			}
			if got := actionsOffered(order); got != step.offers {
				t.Fatalf("a %s order offers %q, want %q", step.then, got, step.offers)
			}
		}
		if !strings.Contains(order.Text("no-actions"), "delivered") {
			t.Fatal("a delivered order does not say why nothing can be done")
		}

		// A stale page's button is refused with the reason, and nothing changes.
		p = b.Post(t, orderURL+"/cancel", nil)
		wantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("form-error"), "was not cancelled: it is delivered now") || actionsOffered(p) != "" {
			t.Fatalf("stale cancel: %q", p.Text("form-error"))
		}

		pet = b.Get(t, fmt.Sprintf("/admin/pets/%d", petID))
		if pet.TestID("pet-fields").Find(`[data-testid="status"]`).Text() != "sold" || pet.TestID("place-order").Length() != 0 {
			t.Fatal("after delivery the pet is not sold, or still offers an order")
		}
		hist := historyTexts(pet)
		if len(hist) != 3 || !strings.Contains(hist[0], "Order #"+m[1]+" placed · pet available → pending") ||
			!strings.Contains(hist[1], "approved · pet stays pending") || !strings.Contains(hist[2], "delivered · pet pending → sold") ||
			!strings.Contains(hist[2], "by sam") {
			t.Fatalf("pet history:\n%s", strings.Join(hist, "\n"))
		}
		if pet.TestID("order-row").Length() != 1 {
			t.Fatal("the pet page does not list its order")
		}
	})
}

func TestOrderFormsRefuseWhatTheLifecycleRefuses(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	pending := addPet(t, s, "Tom", models.PetPending)
	b.Get(t, fmt.Sprintf("/admin/pets/%d", pending))
	p := b.Post(t, fmt.Sprintf("/admin/pets/%d/orders", pending), nil)
	wantStatus(t, p, http.StatusConflict)
	if !strings.Contains(p.Text("form-error"), "no longer available") || p.TestID("place-order").Length() != 0 {
		t.Fatalf("ordering a pending pet: %q", p.Text("form-error"))
	}
	avail := addPet(t, s, "Kiwi", models.PetAvailable)
	p = b.Post(t, fmt.Sprintf("/admin/pets/%d/orders", avail), url.Values{"shipDate": {"next week"}})
	wantStatus(t, p, http.StatusBadRequest)
	if p.Text("error-shipDate") == "" || p.Doc.Find("#shipDate").AttrOr("value", "") != "next week" {
		t.Fatalf("bad ship date: %q", p.Text("error-shipDate"))
	}
	// The date picker offers today (UTC) and later; an earlier day is refused all the same.
	today := time.Now().UTC().Format(time.DateOnly)
	if min := p.Doc.Find("#shipDate").AttrOr("min", ""); min != today {
		t.Fatalf("the ship date's earliest choice is %q, want today, %s", min, today)
	}
	p = b.Post(t, fmt.Sprintf("/admin/pets/%d/orders", avail), url.Values{"shipDate": {"2020-01-01"}})
	wantStatus(t, p, http.StatusBadRequest)
	if got := p.Text("error-shipDate"); got != "Ship date must not be before today ("+today+", UTC)." {
		t.Fatalf("a past ship date: %q", got)
	}
	var n int64
	s.DB.Model(&models.Order{}).Count(&n)
	if n != 0 {
		t.Fatalf("refused forms placed %d orders", n)
	}
}

func TestStaffSetAPetsStatusByHandAndItIsRecorded(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		petID := addPet(t, s, "Luna", models.PetAvailable)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		target := fmt.Sprintf("/admin/pets/%d", petID)
		b.Get(t, target)
		p := b.Post(t, target+"/status", url.Values{"status": {"sold"}})
		wantStatus(t, p, http.StatusSeeOther)
		pet := b.Follow(t, p)
		if pet.Text("flash") != "Luna is now sold." {
			t.Fatalf("flash %q", pet.Text("flash"))
		}
		if hist := historyTexts(pet); len(hist) != 1 || !strings.Contains(hist[0], "Status set by hand · pet available → sold") || !strings.Contains(hist[0], "by sam") {
			t.Fatalf("history %q", hist)
		}
		wantStatus(t, b.Post(t, target+"/status", url.Values{"status": {"available"}}), http.StatusSeeOther)

		p = b.Post(t, target+"/status", url.Values{"status": {"lost"}})
		wantStatus(t, p, http.StatusBadRequest)
		if p.Text("error-status") == "" {
			t.Fatal("an unknown status is refused without a word beside the field")
		}

		// Once an order holds the pet, only the order's actions move it: the page offers no
		// status by hand, says which order decides, and a form from a stale page is refused.
		stale := b.Get(t, target)
		if stale.TestID("set-status").Length() != 1 || stale.TestID("held-by-order").Length() != 0 {
			t.Fatal("a pet without an order does not offer its status by hand")
		}
		o, err := models.NewOrderStore(s.DB).Place(context.Background(), models.NewOrder{PetID: &petID}, models.StaffOwner, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		held := b.Get(t, target)
		if held.TestID("set-status").Length() != 0 || !strings.Contains(held.Text("held-by-order"), fmt.Sprintf("Order #%d (placed) holds Luna", o.ID)) {
			t.Fatalf("a held pet's page: set-status %d, %q", held.TestID("set-status").Length(), held.Text("held-by-order"))
		}
		p = b.Post(t, target+"/status", url.Values{"status": {"sold"}})
		wantStatus(t, p, http.StatusConflict)
		if got := p.Text("form-error"); got != "The status was not changed: an order now decides it (see below)." || p.TestID("held-by-order").Length() != 1 {
			t.Fatalf("status of a held pet: %q", got)
		}
		// A pet sold through an order stays sold, and its page says so.
		for _, act := range []models.Action{models.ActionApprove, models.ActionDeliver} {
			if _, err := models.NewOrderStore(s.DB).Apply(context.Background(), o.ID, act, "test"); err != nil {
				t.Fatal(err)
			}
		}
		sold := b.Get(t, target)
		if sold.TestID("set-status").Length() != 0 || !strings.Contains(sold.Text("held-by-order"), fmt.Sprintf("Luna was sold through order #%d, so it stays sold", o.ID)) {
			t.Fatalf("a pet sold through an order: %q", sold.Text("held-by-order"))
		}
	})
}

func TestOrdersTableFiltersAndPages(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	orders := models.NewOrderStore(s.DB)
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		id := addPet(t, s, fmt.Sprintf("Pet %02d", i), models.PetAvailable)
		o, err := orders.Place(ctx, models.NewOrder{PetID: &id}, models.StaffOwner, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := orders.Cancel(ctx, o.ID, "test"); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	p := b.Get(t, "/admin/orders")
	if n := p.TestID("order-row").Length(); n != 25 || p.TestID("next-page").Length() != 1 {
		t.Fatalf("first page: %d rows", n)
	}
	next := b.Get(t, p.TestID("next-page").AttrOr("href", ""))
	if n := next.TestID("order-row").Length(); n != 5 || next.TestID("next-page").Length() != 0 {
		t.Fatalf("second page: %d rows", n)
	}
	p = b.Get(t, "/admin/orders?status=cancelled")
	if n := p.TestID("order-row").Length(); n != 10 {
		t.Fatalf("cancelled: %d rows, want 10", n)
	}
	if !strings.Contains(p.TestID("order-row").First().Text(), "Pet 27") {
		t.Fatalf("the newest cancelled order, first, lacks its pet's name: %s", p.TestID("order-row").First().Text())
	}
	p = b.Get(t, "/admin/orders?status=delivered")
	if !strings.Contains(p.Text("empty"), "No delivered orders") {
		t.Fatalf("empty filtered list:\n%s", p.Body)
	}
	if p := b.Get(t, "/admin/orders?status=lost"); p.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad status filter: %d", p.StatusCode)
	}
	dash := b.Get(t, "/admin")
	if dash.Text("dash-orders-placed") != "placed 20" || dash.Text("dash-orders-cancelled") != "cancelled 10" {
		t.Fatalf("dashboard orders: %q %q", dash.Text("dash-orders-placed"), dash.Text("dash-orders-cancelled"))
	}
}

func TestEmptyOrdersListSaysWhereOrdersComeFrom(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	if p := b.Get(t, "/admin/orders"); !strings.Contains(p.Text("empty"), "No orders yet") {
		t.Fatalf("empty orders page:\n%s", p.Body)
	}
}

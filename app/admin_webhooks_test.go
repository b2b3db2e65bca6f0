package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// failingEndpoint starts a server that delivers (one retry, at once), with staff, and an
// endpoint of its client whose receiver answers 503 until told otherwise.
func failingEndpoint(t *testing.T, store testenv.Store, clock *testenv.Clock) (*apptest.Server, *apptest.Receiver, endpoint) {
	t.Helper()
	s := apptest.New(t, webhookConfig(t, store, 10*time.Millisecond), apptest.WithClock(clock), apptest.WithDeliveries())
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	r := apptest.NewReceiver(t)
	r.Answer(func(string, int) int { return 503 })
	return s, r, addEndpoint(t, s, r.URL+"/petstore", "pet.created")
}

// endpointState reads an endpoint through the API once it is settled as want says.
func waitEndpoint(t *testing.T, s *apptest.Server, id int64, done func(endpoint) bool) endpoint {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var e endpoint
		s.Get(t, fmt.Sprintf("/v1/webhook-endpoints/%d", id)).JSON(t, &e)
		if done(e) || time.Now().After(deadline) {
			return e
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStaffSeeAClientsEndpointsTheirAttemptsAndEnableOneThatKeptFailing(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		clock := testenv.NewClock(time.Now().Truncate(time.Second))
		s, r, ep := failingEndpoint(t, store, clock)
		createPetNamed(t, s, "Rex")
		first := r.Wait(t, 2, 20*time.Second)[0] // the attempt and its one retry
		// Five days of failures later, the next failure disables the endpoint.
		clock.Advance(models.FailingEndpointDisabledAfter)
		createPetNamed(t, s, "Tom")
		if e := waitEndpoint(t, s, ep.ID, func(e endpoint) bool { return e.Disabled }); !e.Disabled || e.DisabledReason != "failing" {
			t.Fatalf("after 5 days of failures the endpoint is %+v", e)
		}

		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)
		client := b.Get(t, fmt.Sprintf("/admin/clients/%d", s.ClientID))
		row := client.TestID("endpoint-row")
		if row.Length() != 1 || row.Find(`[data-testid="endpoint-url"]`).Text() != ep.URL || row.Find(`[data-testid="status"]`).Text() != "disabled" {
			t.Fatalf("the client's page lists endpoints %q", row.Text())
		}
		href, _ := row.Find(`[data-testid="endpoint-url"]`).Attr("href")
		page := b.Get(t, href)
		wantStatus(t, page, http.StatusOK)
		if why := page.Text("disabled-why"); why != "after 5 days of failed deliveries" {
			t.Fatalf("disabled %q", why)
		}
		attempts := page.TestID("attempt-row")
		if attempts.Length() < 3 || page.TestID("resend").Length() != 0 {
			t.Fatalf("%d attempts, %d resend buttons on a disabled endpoint's page", attempts.Length(), page.TestID("resend").Length())
		}
		if got := attempts.First().Find(`[data-testid="attempt-status"]`).Text(); got != "503" {
			t.Fatalf("the latest attempt's status %q", got)
		}
		if !strings.Contains(page.TestID("audit-trail").Text(), "webhook deliveries") {
			t.Fatalf("the audit trail does not say the deliveries disabled it: %q", page.TestID("audit-trail").Text())
		}

		// Enabled again by staff, it takes deliveries; an earlier event is sent again.
		r.Answer(func(string, int) int { return 200 })
		p := b.Post(t, href+"/enable", url.Values{})
		wantStatus(t, p, http.StatusSeeOther)
		page = b.Follow(t, p)
		if page.TestID("enable").Length() != 0 || !strings.Contains(page.Text("flash"), "Enabled") || !strings.Contains(page.TestID("audit-trail").Text(), "ada") {
			t.Fatalf("after enabling: flash %q, trail %q", page.Text("flash"), page.TestID("audit-trail").Text())
		}
		var e models.Event
		if err := s.DB.Order("id").First(&e).Error; err != nil {
			t.Fatal(err)
		}
		wantStatus(t, b.Post(t, href+"/resend", url.Values{"event": {fmt.Sprint(e.ID)}}), http.StatusSeeOther)
		// (Tom's retry, waiting when the endpoint was enabled again, may arrive too.)
		var again apptest.Delivery
		for n := len(r.Deliveries()); again.Status != 200; n++ {
			if d := r.Wait(t, n, 20*time.Second)[n-1]; d.ID() == first.ID() && d.Status == 200 {
				again = d
			}
		}
		// Signed now, on the clock five days on: the signature holds, the time is the clock's.
		wh, _ := standardwebhooks.NewWebhook(ep.Secret)
		if err := wh.VerifyIgnoringTimestamp(again.Body, again.Header); err != nil || again.Header.Get("webhook-timestamp") != fmt.Sprint(clock.Now().Unix()) {
			t.Fatalf("sent again: %v, webhook-timestamp %s", err, again.Header.Get("webhook-timestamp"))
		}
		// The audit log links the endpoint to its page under its client.
		if p := b.Get(t, fmt.Sprintf("/admin/webhook-endpoints/%d", ep.ID)); p.StatusCode != http.StatusSeeOther || p.Location() != href {
			t.Fatalf("the audit log's link: %d to %q, want %s", p.StatusCode, p.Location(), href)
		}
		// Another client's endpoint is not under this one.
		if p := b.Get(t, fmt.Sprintf("/admin/clients/%d/endpoints/%d", s.ClientID+1000, ep.ID)); p.StatusCode != http.StatusNotFound {
			t.Fatalf("under another client: %d", p.StatusCode)
		}
	})
}

func TestStaffReadAnEndpointsAttemptsAndSendAnEventAgainInABrowser(t *testing.T) {
	t.Parallel() // its own servers and receivers
	clock := testenv.NewClock(time.Now().Truncate(time.Second))
	s, r, ep := failingEndpoint(t, testenv.SQLite, clock)
	createPetNamed(t, s, "Rex")
	r.Wait(t, 2, 20*time.Second)
	r.Answer(func(string, int) int { return 200 })
	createPetNamed(t, s, "Tom")
	r.Wait(t, 3, 20*time.Second)

	c := newChrome(t, s.URL)
	c.open("/admin/login")
	c.fill("#username", "ada")
	c.fill("#password", adminPassword)
	c.submit(`[data-testid="login-form"] button[type="submit"]`)
	c.open(fmt.Sprintf("/admin/clients/%d", s.ClientID))
	if got := c.text(`[data-testid="endpoint-url"]`); got != ep.URL {
		t.Fatalf("the client's endpoint reads %q", got)
	}
	c.shot("40-client-with-webhook-endpoint")
	c.submit(`[data-testid="endpoint-url"]`)
	if n := c.count(`[data-testid="attempt-row"]`); n != 3 {
		t.Fatalf("%d attempts shown, want 3", n)
	}
	c.shot("41-webhook-endpoint-attempts")
	c.submit(`[data-testid="resend"]`)
	if got := c.text(`[data-testid="flash"]`); !strings.Contains(got, "Queued the event") {
		t.Fatalf("after sending again: %q", got)
	}
	r.Wait(t, 4, 20*time.Second)
	c.shot("42-webhook-event-sent-again")
}

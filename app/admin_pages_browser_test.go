package app_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/headless"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// longEndpointPath is the path and query of a receiver's URL as integrators write them: long,
// and with a token that has nowhere to break.
var longEndpointPath = "/hooks/petstore/v1/events/receiver-with-a-rather-long-path-segment?token=" + strings.Repeat("0123456789abcdef", 3)

// storePages is a server with data as a store has it: the demo seed; a client with a long name
// and no e-mail, with a key that has some scopes; a webhook endpoint with a long URL and failed
// deliveries; a deleted pet; and a pet held by a placed order.
type storePages struct {
	s          *apptest.Server
	client     *models.Client
	endpoint   endpoint
	gone, held int64
}

func newStorePages(t *testing.T) *storePages {
	t.Helper()
	s := apptest.New(t, webhookConfig(t, testenv.SQLite, time.Hour), apptest.WithDeliveries())
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	s.CreateStaff(t, "sam", staffPassword, models.RoleStaff)
	ctx := models.WithActor(context.Background(), models.ActorCLI)
	if _, err := models.Seed(ctx, s.DB, models.SeedOptions{Pets: 120, Orders: 60, Rand: rand.New(rand.NewPCG(17, 17))}); err != nil { // #nosec G404 -- demo data
		t.Fatal(err)
	}
	p := &storePages{s: s}
	var err error
	if p.client, err = models.NewClientStore(s.DB).Create(ctx, models.NewClient{Name: "A very long client name for an integrator that writes long names, Ltd."}); err != nil {
		t.Fatal(err)
	}
	s.CreateKey(t, models.NewAPIKey{Name: "Kennel sync job", ClientID: p.client.ID, Plan: "free", Scopes: []string{"pets:read", "orders:read"}})
	r := apptest.NewReceiver(t)
	r.Answer(func(string, int) int { return 503 })
	p.endpoint = addEndpoint(t, s, r.URL+longEndpointPath, "pet.created", "pet.updated", "pet.deleted", "order.placed", "order.approved", "order.delivered", "order.cancelled")
	p.gone = createPetNamed(t, s, "Biscuit the Brave").ID
	if res := deletePet(t, s, p.gone); res.StatusCode != 204 {
		t.Fatalf("delete pet %d: %d", p.gone, res.StatusCode)
	}
	r.Wait(t, 2, 20*time.Second)
	if err := s.DB.Model(&models.Order{}).Where("status = ?", models.OrderPlaced).Order("id").Limit(1).Pluck("pet_id", &p.held).Error; err != nil || p.held == 0 {
		t.Fatalf("a pet held by a placed order: %d, %v", p.held, err)
	}
	return p
}

// browse logs in to a new browser as username.
func (p *storePages) browse(t *testing.T, username, password string) *chrome {
	t.Helper()
	c := newChrome(t, p.s.URL)
	c.login(username, password)
	return c
}

func (c *chrome) login(username, password string) {
	c.t.Helper()
	c.open("/admin/login")
	c.fill("#username", username)
	c.fill("#password", password)
	if status := c.submit(`[data-testid="login-form"] button[type="submit"]`); status != 200 {
		c.t.Fatalf("login as %s: %d", username, status)
	}
}

// shotEach opens each page and shoots it, as name-00, name-01, ...
func (c *chrome) shotEach(name string, paths ...string) {
	c.t.Helper()
	for i, path := range paths {
		c.open(path)
		c.shot(fmt.Sprintf("%s-%02d", name, i))
	}
}

// These tests open every page kind the workflow tests do not reach, with a store's data, as an
// admin, as staff and signed out. shot fails on a page wider than its window at a phone's or a
// desktop's width, and on any axe-core violation in either colour scheme.

func TestPetAndOrderPagesOfEveryKindFitTheirWindowAndPassAxeInABrowser(t *testing.T) {
	t.Parallel()
	p := newStorePages(t)
	c := p.browse(t, "ada", adminPassword)
	c.shotEach("50-pets",
		"/admin/pets?sort=-updated",
		"/admin/pets?show=deleted",
		fmt.Sprintf("/admin/pets/%d", p.gone),
		fmt.Sprintf("/admin/pets/%d", p.held),
		fmt.Sprintf("/admin/pets/%d/edit", p.held),
		"/admin/pets/new",
		"/admin/orders?sort=shipDate",
		"/admin/pets?status=lost",
		"/admin/orders?sort=placed&cursor=made-up",
	)
	if got := c.text(`[data-testid="error-message"]`); !strings.HasPrefix(got, "The link was made for another view of the list") {
		t.Errorf("a made-up page link is refused with %q", got)
	}
}

func TestClientKeyAndAuditPagesOfEveryKindFitTheirWindowAndPassAxeInABrowser(t *testing.T) {
	t.Parallel()
	p := newStorePages(t)
	c := p.browse(t, "ada", adminPassword)
	c.shotEach("51-clients",
		"/admin/clients",
		fmt.Sprintf("/admin/clients/%d", p.client.ID),
		fmt.Sprintf("/admin/clients/%d", p.s.ClientID),
		fmt.Sprintf("/admin/clients/%d/endpoints/%d", p.s.ClientID, p.endpoint.ID),
		"/admin/keys",
		"/admin/audit",
	)
}

func TestStaffAndVisitorPagesFitTheirWindowAndPassAxeInABrowser(t *testing.T) {
	t.Parallel()
	p := newStorePages(t)
	// Staff see no admin pages: the dashboard without them, and a refusal.
	c := p.browse(t, "sam", staffPassword)
	c.shotEach("52-staff", "/admin", "/admin/keys")
	if got := c.text(`[data-testid="error-message"]`); !strings.HasPrefix(got, "Your role may not do this.") {
		t.Errorf("staff on an admin page read %q", got)
	}
	c.submit(`[data-testid="logout"]`)

	// Signed out: a login form posted without its token is refused on a page of its own.
	c.open("/admin/login")
	if _, err := chromedp.Call(c.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	c.fill("#username", "sam")
	c.fill("#password", staffPassword)
	if status := c.submit(`[data-testid="login-form"] button[type="submit"]`); status != 403 {
		t.Fatalf("a login without its CSRF cookie answered %d", status)
	}
	c.shot("52-visitor-00")
}

// docsRules are the axe-core rules Swagger UI 5 and Redoc 2 break in their own markup (method
// badges' contrast, buttons inside summaries, no main landmark, ...): the docs pages may break
// these and no other, so a change to the pages the service writes around them is caught.
var docsRules = map[string]map[string]bool{
	"/docs": {"color-contrast": true, "landmark-one-main": true, "nested-interactive": true, "page-has-heading-one": true,
		"region": true, "select-name": true},
	"/docs/redoc": {"heading-order": true, "label-content-name-mismatch": true, "landmark-one-main": true, "region": true,
		"scrollable-region-focusable": true},
}

func TestTheDocsPagesFitTheirWindowAndBreakOnlyTheirLibrariesAxeRulesInABrowser(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	c := newChrome(t, s.URL)
	for _, tc := range []struct{ path, ready string }{
		{"/docs", "#operations-animals-listPets"},
		{"/docs/redoc", ".api-content h2"},
	} {
		c.open(tc.path)
		c.do(chromedp.WaitVisible(chromedp.CSS(tc.ready)))
		for _, v := range views {
			c.do(chromedp.EmulateViewport(v.width, v.height, v.opts...))
			c.fits(tc.path+" ("+v.suffix+")", v.width)
		}
		violations, err := headless.Axe(c.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range violations {
			if !docsRules[tc.path][f.ID] {
				t.Errorf("%s: %s", tc.path, f)
			}
		}
	}
}

package app_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
)

var clientPage = regexp.MustCompile(`^/admin/clients/(\d+)$`)

func TestAdminsAddAClientIssueItAScopedKeyAndChangeTheScopes(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)
		if list := b.Get(t, "/admin/clients"); list.TestID("client-row").Length() != 1 || list.Text("client-name") != "apptest" {
			t.Fatalf("clients page lists %d clients (%q), want the test key's own", list.TestID("client-row").Length(), list.Text("client-name"))
		}

		for _, tc := range []struct {
			form        url.Values
			field, says string
		}{
			{url.Values{"name": {" "}}, "name", "must not be empty"},
			{url.Values{"name": {"Acme"}, "email": {"acme"}}, "email", "plain e-mail address"},
		} {
			p := b.Post(t, "/admin/clients", tc.form)
			wantStatus(t, p, http.StatusBadRequest)
			if !strings.Contains(p.Text("error-"+tc.field), tc.says) {
				t.Fatalf("%v: beside %s %q, want %q", tc.form, tc.field, p.Text("error-"+tc.field), tc.says)
			}
		}
		p := b.Post(t, "/admin/clients", url.Values{"name": {"Acme Pets"}, "email": {"ops@acme.example"}})
		wantStatus(t, p, http.StatusSeeOther)
		if clientPage.FindStringSubmatch(p.Location()) == nil {
			t.Fatalf("after adding a client: Location %q", p.Location())
		}
		page := b.Follow(t, p)
		if !strings.Contains(page.Text("flash"), "Added the client Acme Pets") || page.TestID("client-keys").Find(`[data-testid="empty"]`).Length() != 1 {
			t.Fatalf("new client page: flash %q", page.Text("flash"))
		}
		if trail := page.TestID("audit-trail").Text(); !strings.Contains(trail, "ada") || !strings.Contains(trail, "created") {
			t.Fatalf("the client's audit trail: %q, want its creation by ada", trail)
		}
		clientURL := p.Location()

		// A key for the client, with two of the five scopes ticked.
		wantStatus(t, b.Post(t, clientURL+"/keys", url.Values{"name": {"Shop"}, "plan": {"free"}}), http.StatusBadRequest)
		p = b.Post(t, clientURL+"/keys", url.Values{"name": {"Shop"}, "plan": {"pro"}, "scopes": {"pets:read", "orders:write"}})
		wantStatus(t, p, http.StatusSeeOther)
		keyURL := p.Location()
		if keyPage.FindStringSubmatch(keyURL) == nil {
			t.Fatalf("after issuing: Location %q", keyURL)
		}
		page = b.Follow(t, p)
		secret := page.Text("secret")
		if page.Text("key-scopes") != "pets:read, orders:write" || page.Text("key-client") != "Acme Pets" || !strings.HasPrefix(secret, "psk_") {
			t.Fatalf("key page: scopes %q, client %q", page.Text("key-scopes"), page.Text("key-client"))
		}

		c := s.As(secret)
		pet := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		o := placeOrder(t, c, map[string]any{"petId": pet.ID})
		wantError(t, c.Get(t, "/v1/store/orders"), http.StatusForbidden, "insufficient_scope", "")
		page = b.Get(t, clientURL)
		if page.TestID("key-row").Length() != 1 || page.TestID("client-orders").Find(`[data-testid="orders-table"] tbody tr`).Length() != 1 ||
			!strings.Contains(page.TestID("client-orders").Text(), itoa(o.ID)) {
			t.Fatalf("client page: %d keys, orders %q; want the key and its order", page.TestID("key-row").Length(), page.TestID("client-orders").Text())
		}

		// Changing the scopes applies to the key's next request.
		wantStatus(t, b.Post(t, keyURL+"/scopes", nil), http.StatusBadRequest)
		wantStatus(t, b.Post(t, keyURL+"/scopes", url.Values{"scopes": {"orders:read"}}), http.StatusSeeOther)
		if page = b.Get(t, keyURL); page.Text("key-scopes") != "orders:read" || page.Text("flash") != "Shop now has the scopes orders:read." {
			t.Fatalf("after the change: scopes %q, flash %q", page.Text("key-scopes"), page.Text("flash"))
		}
		if res := c.Get(t, "/v1/store/orders"); res.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/store/orders with orders:read now: %d", res.StatusCode)
		}
		wantError(t, c.Get(t, "/v1/pets"), http.StatusForbidden, "insufficient_scope", "")

		if list := b.Get(t, "/admin/clients"); list.TestID("client-row").Length() != 2 || !strings.Contains(list.TestID("clients-table").Text(), "ops@acme.example") {
			t.Fatalf("clients page after adding Acme: %q", list.TestID("clients-table").Text())
		}
		staff := s.NewBrowser(t)
		staff.Login(t, "sam", staffPassword)
		wantStatus(t, staff.Get(t, "/admin/clients"), http.StatusForbidden)
	})
}

package app_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

var keyPage = regexp.MustCompile(`^/admin/keys/(\d+)$`)

// callWithKey sends GET /v1/pets with the given key.
func callWithKey(t *testing.T, s *apptest.Server, key string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, http.MethodGet, "/v1/pets", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	return s.Do(t, req)
}

func TestAdminsIssueAKeySeenOnceThenChangeAndRevokeIt(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)
		b.Get(t, "/admin/keys")

		for _, tc := range []struct {
			form  url.Values
			field string
			says  string
		}{
			{url.Values{"name": {" "}, "plan": {"free"}}, "name", "must not be empty"},
			{url.Values{"name": {"Shop"}, "plan": {"enterprise"}}, "perMinute", "enterprise key needs a limit"},
			{url.Values{"name": {"Shop"}, "plan": {"free"}, "perDay": {"5"}}, "perDay", "Only enterprise"},
			{url.Values{"name": {"Shop"}, "plan": {"free"}, "perDay": {"lots"}}, "perDay", "whole number"},
			{url.Values{"name": {"Shop"}, "plan": {"gold"}}, "plan", "must be one of"},
			{url.Values{"name": {"Shop"}, "plan": {"free"}, "expiresOn": {"2001-01-01"}}, "expiresOn", "in the future"},
			{url.Values{"name": {"Shop"}, "plan": {"free"}}, "scopes", "must name at least one"},
		} {
			p := b.Post(t, "/admin/keys", tc.form)
			wantStatus(t, p, http.StatusBadRequest)
			if !strings.Contains(p.Text("error-"+tc.field), tc.says) {
				t.Fatalf("%v: beside %s %q, want %q", tc.form, tc.field, p.Text("error-"+tc.field), tc.says)
			}
			if v := p.Doc.Find("#key-name").AttrOr("value", ""); v != tc.form.Get("name") {
				t.Fatalf("the form lost the name: %q", v)
			}
		}

		// A browser sends the scopes' boxes as they are: all ticked, unless unticked.
		p := b.Post(t, "/admin/keys", url.Values{"name": {"Shop website"}, "plan": {"pro"}, "scopes": models.AllScopes.Strings()})
		wantStatus(t, p, http.StatusSeeOther)
		m := keyPage.FindStringSubmatch(p.Location())
		if m == nil {
			t.Fatalf("after issuing: Location %q", p.Location())
		}
		page := b.Follow(t, p)
		secret := page.Text("secret")
		if !strings.HasPrefix(secret, "psk_") || page.Text("flash") != "Issued the key Shop website." {
			t.Fatalf("new key page: secret %q flash %q", secret, page.Text("flash"))
		}
		if page.Doc.Find(`button[data-copy="secret-key"]`).Length() != 1 {
			t.Fatal("no copy button beside the new key")
		}
		if again := b.Get(t, p.Location()); again.TestID("secret").Length() != 0 || strings.Contains(string(again.Body), secret) {
			t.Fatal("the key was shown a second time")
		}
		if list := b.Get(t, "/admin/keys"); strings.Contains(string(list.Body), secret) || list.TestID("key-row").Length() != 2 {
			t.Fatal("the keys list shows a secret, or lacks the new key")
		}

		if res := callWithKey(t, s, secret); res.StatusCode != http.StatusOK {
			t.Fatalf("the new key: GET /v1/pets answered %d", res.StatusCode)
		}
		page = b.Get(t, p.Location())
		if !strings.HasPrefix(page.Text("key-used"), "1 of 10,000") {
			t.Fatalf("usage today %q, want 1 of the Pro plan's 10,000", page.Text("key-used"))
		}

		wantStatus(t, b.Post(t, p.Location()+"/plan", url.Values{"plan": {"enterprise"}, "perMinute": {"5"}, "perDay": {"4"}}), http.StatusBadRequest)
		wantStatus(t, b.Post(t, p.Location()+"/plan", url.Values{"plan": {"enterprise"}, "perMinute": {"5000"}, "perDay": {"2000000"}}), http.StatusSeeOther)
		page = b.Get(t, p.Location())
		if page.Text("flash") != "Shop website is now on the enterprise plan." || !strings.Contains(page.TestID("key-fields").Text(), "5,000/min · 2,000,000/day") {
			t.Fatalf("after the plan change: %q\n%s", page.Text("flash"), page.TestID("key-fields").Text())
		}

		wantStatus(t, b.Post(t, p.Location()+"/revoke", nil), http.StatusSeeOther)
		page = b.Get(t, p.Location())
		if page.TestID("key-fields").Find(`[data-testid="status"]`).Text() != "revoked" || page.TestID("revoke").Length() != 0 || page.TestID("change-plan").Length() != 0 {
			t.Fatal("a revoked key still offers changes")
		}
		res := callWithKey(t, s, secret)
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusUnauthorized || code != "invalid_api_key" {
			t.Fatalf("the revoked key: %d %s", res.StatusCode, code)
		}
	})
}

func TestAdminsLiftATemporaryBan(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	k, _ := s.CreateKey(t, newFreeKey("Noisy client"))
	if _, err := s.Keys.Ban(context.Background(), k.ID, time.Now().Add(15*time.Minute)); err != nil {
		t.Fatal(err)
	}
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	target := "/admin/keys/" + itoa(k.ID)
	page := b.Get(t, target)
	if page.TestID("key-fields").Find(`[data-testid="status"]`).Text() != "banned" || page.TestID("unban").Length() != 1 {
		t.Fatalf("a banned key's page:\n%s", page.TestID("key-fields").Text())
	}
	if list := b.Get(t, "/admin/keys"); !strings.Contains(list.Doc.Find(`[data-testid="key-row"][data-id="`+itoa(k.ID)+`"]`).Text(), "banned") {
		t.Fatal("the list does not show the ban")
	}
	wantStatus(t, b.Post(t, target+"/unban", nil), http.StatusSeeOther)
	page = b.Get(t, target)
	if page.Text("flash") != "Lifted the ban on Noisy client." || page.TestID("unban").Length() != 0 ||
		page.TestID("key-fields").Find(`[data-testid="status"]`).Text() != "active" {
		t.Fatalf("after unban: %q", page.Text("flash"))
	}
}

func TestDashboardShowsTodaysAPITraffic(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	for i := 0; i < 3; i++ {
		s.Get(t, "/v1/pets")
	}
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	dash := b.Get(t, "/admin")
	if got := dash.Text("dash-traffic-admitted"); !strings.HasSuffix(got, " 3") {
		t.Fatalf("requests served today: %q, want 3", got)
	}
	if got := dash.Text("dash-traffic-refused"); !strings.HasSuffix(got, " 0") {
		t.Fatalf("refused today: %q", got)
	}
}

func TestStaffCannotOpenTheAPIKeysPage(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	for _, path := range []string{"/admin/keys", "/admin/keys/1"} {
		if p := b.Get(t, path); p.StatusCode != http.StatusForbidden {
			t.Fatalf("GET %s as staff: %d, want 403", path, p.StatusCode)
		}
	}
	b.Get(t, "/admin")
	for _, path := range []string{"/admin/keys", "/admin/keys/1/revoke", "/admin/keys/1/unban", "/admin/keys/1/plan"} {
		if p := b.Post(t, path, url.Values{"name": {"x"}, "plan": {"free"}}); p.StatusCode != http.StatusForbidden {
			t.Fatalf("POST %s as staff: %d, want 403", path, p.StatusCode)
		}
	}
	if k, err := s.Keys.Get(context.Background(), s.KeyID); err != nil || k.RevokedAt != nil {
		t.Fatalf("the staff role changed a key: %v %+v", err, k)
	}
}

func newFreeKey(name string) models.NewAPIKey {
	return models.NewAPIKey{Name: name, Plan: string(models.PlanFree)}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

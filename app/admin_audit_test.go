package app_test

import (
	"fmt"
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

// auditEntry is one row of an audit table as a reader sees it.
type auditEntry struct {
	actor, actorURL, object, objectURL, action, changes string
}

func auditEntries(p *apptest.Page) []auditEntry {
	var out []auditEntry
	p.TestID("audit-row").Each(func(_ int, row *goquery.Selection) {
		cell := func(id string) *goquery.Selection { return row.Find(`[data-testid="` + id + `"]`) }
		text := func(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
		var changes []string
		cell("audit-changes").Find("li").Each(func(_ int, li *goquery.Selection) {
			li.Find(".visually-hidden").Remove() // what a screen reader says between the values
			changes = append(changes, text(li))
		})
		out = append(out, auditEntry{
			actor: text(cell("audit-actor")), actorURL: cell("audit-actor").Find("a").AttrOr("href", ""),
			object: text(cell("audit-object")), objectURL: cell("audit-object").Find("a").AttrOr("href", ""),
			action: text(cell("audit-action")), changes: strings.Join(changes, "; "),
		})
	})
	return out
}

func staffID(t *testing.T, s *apptest.Server, username string) int64 {
	t.Helper()
	var st models.Staff
	if err := s.DB.Where("username = ?", username).Take(&st).Error; err != nil {
		t.Fatal(err)
	}
	return st.ID
}

func TestTheAuditLogShowsEveryChangeByStaffAndTheAPIWithWhoAndWhat(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)

		// Through the API, with the server's own key (named apptest).
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		// In the admin pages.
		ada.Get(t, fmt.Sprintf("/admin/pets/%d/edit", p.ID))
		wantStatus(t, ada.Post(t, fmt.Sprintf("/admin/pets/%d", p.ID), url.Values{"name": {"Max"}, "categoryId": {"2"}}), http.StatusSeeOther)
		ada.Get(t, "/admin/categories")
		wantStatus(t, ada.Post(t, "/admin/categories", url.Values{"name": {"Horses"}}), http.StatusSeeOther)
		samID := staffID(t, s, "sam")
		ada.Get(t, "/admin/staff")
		wantStatus(t, ada.Post(t, fmt.Sprintf("/admin/staff/%d/disable", samID), nil), http.StatusSeeOther)

		log := ada.Get(t, "/admin/audit")
		wantStatus(t, log, http.StatusOK)
		got := auditEntries(log)
		adaURL := fmt.Sprintf("/admin/staff/%d", staffID(t, s, "ada"))
		want := []auditEntry{
			{"ada", adaURL, "Staff #" + itoa(samID) + " · sam", "/admin/staff/" + itoa(samID), "disabled", "Disabled no → yes"},
			{"ada", adaURL, "Category #7 · Horses", "/admin/categories", "created", "Name Horses"},
			{"ada", adaURL, fmt.Sprintf("Pet #%d · Max", p.ID), fmt.Sprintf("/admin/pets/%d", p.ID), "changed", "Category Dogs → Cats; Name Rex → Max"},
			{"apptest (API key)", "/admin/keys/" + itoa(s.KeyID), fmt.Sprintf("Pet #%d · Rex", p.ID), fmt.Sprintf("/admin/pets/%d", p.ID), "created", "Category Dogs; Name Rex; Status available"},
		}
		if len(got) < len(want) {
			t.Fatalf("the audit log shows %d entries, want at least %d:\n%+v", len(got), len(want), got)
		}
		for i, w := range want {
			if got[i] != w {
				t.Errorf("entry %d:\n got %+v\nwant %+v", i, got[i], w)
			}
		}
		// Filters narrow it, and a filtered view is a link.
		today := time.Now().UTC().Format(time.DateOnly)
		for query, n := range map[string]int{
			"actor=staff:ada":                                4, // her login and her three changes
			"actor=Ada":                                      4,
			"object=pet&action=create":                       1,
			fmt.Sprintf("object=pet&id=%d", p.ID):            2,
			"date=" + today + "&object=category":             1,
			"date=2020-01-01":                                0,
			"actor=api-key:" + itoa(s.KeyID) + "&object=pet": 1,
		} {
			page := ada.Get(t, "/admin/audit?"+query)
			wantStatus(t, page, http.StatusOK)
			if got := len(auditEntries(page)); got != n {
				t.Errorf("?%s: %d entries, want %d", query, got, n)
			}
			if n == 0 && page.TestID("empty").Length() != 1 {
				t.Errorf("?%s: no entries and no empty state", query)
			}
		}
		for _, bad := range []string{"object=unicorn", "action=fly", "date=yesterday", "id=3", "object=pet&id=x", "cursor=bad"} {
			wantStatus(t, ada.Get(t, "/admin/audit?"+bad), http.StatusBadRequest)
		}

		// Each object's page shows its own entries, newest first, and links to all of them.
		pet := ada.Get(t, fmt.Sprintf("/admin/pets/%d", p.ID))
		if trail := auditEntries(pet); len(trail) != 2 || trail[0].action != "changed" || trail[1].actor != "apptest (API key)" {
			t.Fatalf("the pet's own entries: %+v", trail)
		}
		if href := pet.TestID("audit-all").AttrOr("href", ""); href != fmt.Sprintf("/admin/audit?id=%d&object=pet", p.ID) {
			t.Fatalf("the pet's link to its entries: %q", href)
		}
		if trail := auditEntries(ada.Get(t, "/admin/staff/"+itoa(samID))); len(trail) < 2 || trail[0].action != "disabled" || trail[len(trail)-1].action != "created" {
			t.Fatalf("sam's own entries: %+v", trail)
		}
		if trail := auditEntries(ada.Get(t, "/admin/keys/"+itoa(s.KeyID))); len(trail) != 1 || trail[0].action != "created" || trail[0].actor != "command line" {
			t.Fatalf("the key's own entries: %+v", trail)
		}

		// Staff see a pet's entries too, with names but no links to the admins' pages; the
		// whole log is for admins.
		staff := s.NewBrowser(t)
		s.CreateStaff(t, "tom", staffPassword, models.RoleStaff)
		staff.Login(t, "tom", staffPassword)
		trail := auditEntries(staff.Get(t, fmt.Sprintf("/admin/pets/%d", p.ID)))
		if len(trail) != 2 || trail[0].actor != "ada" || trail[0].actorURL != "" || trail[1].actorURL != "" {
			t.Fatalf("the pet's entries as staff see them: %+v", trail)
		}
		wantStatus(t, staff.Get(t, "/admin/audit"), http.StatusForbidden)
	})
}

func TestTheAuditLogPagesNewestFirst(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	for i := range 30 {
		createPet(t, s, map[string]any{"name": fmt.Sprintf("Pet %02d", i), "categoryId": 1})
	}
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	var seen []string
	for target := "/admin/audit?object=pet"; target != ""; {
		p := b.Get(t, target)
		for _, e := range auditEntries(p) {
			seen = append(seen, e.object)
		}
		target = p.TestID("next-page").AttrOr("href", "")
	}
	if len(seen) != 30 || !strings.HasSuffix(seen[0], "Pet 29") || !strings.HasSuffix(seen[29], "Pet 00") {
		t.Fatalf("walked %d entries, first %q, want 30 newest first", len(seen), seen[0])
	}
}

// The log writes values as people read them: what an object does not have (a client's e-mail,
// a key's own limits on a standard plan) is left out of its creation, lists are written out, ids
// of other objects read #N, and a long name is cut in the Object column but whole in the changes.
func TestTheAuditLogWritesValuesForPeople(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "ada", adminPassword)
	b.Get(t, "/admin/clients")
	client := b.Post(t, "/admin/clients", url.Values{"name": {"Kennel Connect"}})
	wantStatus(t, client, http.StatusSeeOther)
	b.Get(t, client.Location())
	key := b.Post(t, client.Location()+"/keys", url.Values{"name": {"Sync job"}, "plan": {"pro"}, "scopes": {"pets:read", "orders:write"}})
	wantStatus(t, key, http.StatusSeeOther)
	b.Get(t, key.Location())
	wantStatus(t, b.Post(t, key.Location()+"/scopes", url.Values{"scopes": {"orders:read"}}), http.StatusSeeOther)
	long := "http://127.0.0.1:9/hooks/petstore/v1/events/receiver?token=" + strings.Repeat("0123456789abcdef", 4)
	ep := addEndpoint(t, s, long, "pet.created", "order.placed")

	got := auditEntries(b.Get(t, "/admin/audit"))
	if len(got) < 4 {
		t.Fatalf("the audit log shows %d entries, want at least 4: %+v", len(got), got)
	}
	clientID := strings.TrimPrefix(client.Location(), "/admin/clients/")
	for i, want := range []struct{ object, changes string }{
		{"Webhook endpoint #" + itoa(ep.ID) + " · " + strings.Split(long, "?")[0],
			"Client #" + itoa(s.ClientID) + "; Description test receiver; Events pet.created, order.placed; URL " + strings.Split(long, "?")[0]},
		{"API key #", "Scopes pets:read, orders:write → orders:read"},
		{"API key #", "Client #" + clientID + "; Name Sync job; Plan pro; Scopes pets:read, orders:write"},
		{"Client #" + clientID + " · Kennel Connect", "Name Kennel Connect"},
	} {
		if !strings.HasPrefix(got[i].object, want.object) || got[i].changes != want.changes {
			t.Errorf("entry %d: %q with %q\nwant %q… with %q", i, got[i].object, got[i].changes, want.object, want.changes)
		}
	}
	// One object's changes say whose they are, and lead to those of its kind.
	keyID := strings.TrimPrefix(key.Location(), "/admin/keys/")
	one := b.Get(t, "/admin/audit?object=api_key&id="+keyID)
	if got := strings.Join(strings.Fields(one.Text("audit-one-object")), " "); got != "Only the changes of API key #"+keyID+". Show those of every API key" ||
		one.TestID("audit-one-object").Find("a").AttrOr("href", "") != "/admin/audit?object=api_key" || len(auditEntries(one)) != 2 {
		t.Errorf("one key's changes: %q, %d entries", got, len(auditEntries(one)))
	}
}

package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// render renders a component and parses the HTML, as a browser would read it.
func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func testID(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

var (
	staffPage = views.Page{Title: "Pets", Section: views.SectionPets, CSRF: "tok-123", Me: &views.Me{ID: 2, Username: "sam", Role: models.RoleStaff}}
	adminPage = views.Page{Title: "Pets", Section: views.SectionPets, CSRF: "tok-123", Me: &views.Me{ID: 1, Username: "ada", Admin: true, Role: models.RoleAdmin}}
)

func TestNavigationGroupsPagesAsTheAPIDocsDoAndHidesAdminPagesFromStaff(t *testing.T) {
	for _, tc := range []struct {
		page      views.Page
		wantAdmin bool
	}{{staffPage, false}, {adminPage, true}} {
		doc := render(t, views.Layout(tc.page))
		groups := []string{}
		testID(doc, "nav").Find(".nav-group h2").Each(func(_ int, s *goquery.Selection) { groups = append(groups, s.Text()) })
		want := "Pets,Store"
		if tc.wantAdmin {
			want += ",Admin"
		}
		if got := strings.Join(groups, ","); got != want {
			t.Fatalf("admin %v: nav groups %s, want %s", tc.wantAdmin, got, want)
		}
		if got := testID(doc, "nav-pets").Find("a").Length(); got != 2 {
			t.Fatalf("admin %v: the Pets group has %d links, want pets and categories (both roles add categories)", tc.wantAdmin, got)
		}
		if cur := doc.Find(`nav a[aria-current="page"]`); cur.Length() != 1 || cur.Text() != "Pets" {
			t.Fatalf("current page link %q, want Pets", cur.Text())
		}
		if v, _ := doc.Find(`form[action="/admin/logout"] input[name="_csrf"]`).Attr("value"); v != "tok-123" {
			t.Fatalf("logout form's CSRF token %q", v)
		}
		if testID(doc, "me").Text() != tc.page.Me.Username {
			t.Fatal("the layout does not say who is signed in")
		}
	}
}

func TestLayoutWithoutAStaffMemberHasNoNavigation(t *testing.T) {
	doc := render(t, views.ErrorPage(views.Page{Title: "Not found"}, views.ErrorProps{Status: 404, Title: "Not found", Message: "No such page."}))
	if testID(doc, "nav").Length() != 0 || doc.Find(`form[action="/admin/logout"]`).Length() != 0 {
		t.Fatal("a page for nobody in particular shows the navigation")
	}
	if testID(doc, "error-message").Text() != "No such page." || !strings.Contains(testID(doc, "error-page").Text(), "404") {
		t.Fatal("the error page lacks its status or message")
	}
	if doc.Find(`a[href="/admin/login"]`).Length() != 1 {
		t.Fatal("the error page for nobody offers no way to log in")
	}
}

func TestFieldShowsItsErrorBesideItAndTellsScreenReaders(t *testing.T) {
	in := views.Input{ID: "name", Name: "name", Label: "Name", Value: "  typed  ", Hint: "1 to 100 characters."}
	doc := render(t, views.Field(in, views.FormErrors{"name": "must not be empty"}))
	input := doc.Find("input#name")
	if v, _ := input.Attr("value"); v != "  typed  " {
		t.Fatalf("value %q, want what was typed", v)
	}
	if input.AttrOr("aria-invalid", "") != "true" || input.AttrOr("aria-describedby", "") != "name-error" {
		t.Fatal("the invalid input is not tied to its message")
	}
	if msg := testID(doc, "error-name"); msg.Text() != "Name must not be empty." || msg.AttrOr("id", "") != "name-error" {
		t.Fatalf("error %q", msg.Text())
	}
	if doc.Find(`label[for="name"]`).Text() != "Name" {
		t.Fatal("the input has no label")
	}

	doc = render(t, views.Field(in, nil))
	if doc.Find("input#name").AttrOr("aria-invalid", "") != "" || doc.Find("#name-hint").Text() != "1 to 100 characters." {
		t.Fatal("a valid field shows its hint and is not marked invalid")
	}
}

func TestPetsListShowsRowsPagerAndEmptyStates(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	props := views.PetsListProps{
		Filter:     views.PetFilter{Status: "sold", Q: "re", Category: "Cats"},
		Categories: []string{"Cats", "Dogs"},
		Rows:       []views.PetRow{{ID: 7, Name: "Rex", Category: "Dogs", Status: "sold", UpdatedAt: now}},
		Pager:      views.Pager{Shown: 1, NextURL: "/admin/pets?cursor=abc&status=sold", FirstURL: "/admin/pets?status=sold"},
	}
	doc := render(t, views.PetsList(staffPage, props))
	row := testID(doc, "pet-row")
	if row.Length() != 1 || row.Find(`a[href="/admin/pets/7"]`).Text() != "Rex" || row.Find(`[data-testid="status"]`).Text() != "sold" {
		t.Fatalf("row: %s", row.Text())
	}
	if doc.Find(`#f-status option[selected]`).AttrOr("value", "") != "sold" || doc.Find("#q").AttrOr("value", "") != "re" {
		t.Fatal("the filter form does not show the current filter")
	}
	// The category is typed, with every category's name suggested.
	category := doc.Find("#f-category")
	if category.AttrOr("value", "") != "Cats" || category.AttrOr("list", "") != "category-names" ||
		doc.Find("datalist#category-names option").Length() != 2 || doc.Find("label[for=f-category]").Text() != "Category" {
		t.Fatal("the category filter is not a labelled field suggesting the categories")
	}
	if testID(doc, "next-page").AttrOr("href", "") != props.Pager.NextURL || testID(doc, "first-page").AttrOr("href", "") != props.Pager.FirstURL {
		t.Fatal("pager links")
	}
	if doc.Find(`form[data-testid="pet-filters"]`).AttrOr("method", "") != "get" {
		t.Fatal("filters must be a GET form, so a filtered view can be bookmarked")
	}

	props.Rows = nil
	doc = render(t, views.PetsList(staffPage, props))
	if !strings.Contains(testID(doc, "empty").Text(), "No pets match") || testID(doc, "pets-table").Length() != 0 {
		t.Fatal("filtered empty state")
	}
	props.Filter = views.PetFilter{}
	doc = render(t, views.PetsList(staffPage, props))
	if !strings.Contains(testID(doc, "empty").Text(), "No pets yet") {
		t.Fatal("unfiltered empty state")
	}
	// Under the page's h1, an empty state's heading is an h2: no level is skipped.
	if testID(doc, "empty").Find("h2").Length() != 1 || doc.Find("h3").Length() != 0 {
		t.Fatal("the empty state's heading skips a level")
	}
}

func TestAPetPageOffersTheStatusByHandOnlyWhenNoOrderHoldsThePet(t *testing.T) {
	pet := views.PetRow{ID: 3, Name: "Rex", Status: "pending"}
	doc := render(t, views.PetDetail(staffPage, views.PetDetailProps{Pet: pet, Today: "2026-11-23"}))
	if testID(doc, "set-status").Length() != 1 || testID(doc, "held-by-order").Length() != 0 {
		t.Fatal("a pet without an order does not offer its status by hand")
	}
	var offered []string
	doc.Find("#set-status-value option").Each(func(_ int, s *goquery.Selection) { offered = append(offered, s.AttrOr("value", "")) })
	if strings.Join(offered, ",") != "available,sold" {
		t.Fatalf("a pending pet may be set to %v, want the other statuses", offered)
	}
	for status, says := range map[string]string{"placed": "Order #8 (placed) holds Rex", "delivered": "Rex was sold through order #8, so it stays sold"} {
		doc := render(t, views.PetDetail(staffPage, views.PetDetailProps{Pet: pet, Holder: views.OrderRow{ID: 8, Status: status}}))
		held := testID(doc, "held-by-order")
		if testID(doc, "set-status").Length() != 0 || !strings.Contains(strings.Join(strings.Fields(held.Text()), " "), says) ||
			held.Find(`a[href="/admin/orders/8"]`).Length() != 1 {
			t.Fatalf("a pet held by a %s order: %q", status, held.Text())
		}
	}
	pet.Status = "available"
	doc = render(t, views.PetDetail(staffPage, views.PetDetailProps{Pet: pet, Today: "2026-11-23"}))
	if doc.Find("#shipDate").AttrOr("min", "") != "2026-11-23" {
		t.Fatal("the ship date offers days before today")
	}
}

func TestTypedTextIsEscapedEverywhereItIsShown(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	page := staffPage
	page.Flash = "Added " + evil + "."
	row := views.PetRow{ID: 1, Name: evil, Category: evil, Status: "available"}
	for name, c := range map[string]templ.Component{
		"list":   views.PetsList(page, views.PetsListProps{Rows: []views.PetRow{row}, Filter: views.PetFilter{Q: evil}}),
		"detail": views.PetDetail(page, views.PetDetailProps{Pet: row}),
		"form":   views.PetForm(page, views.PetFormProps{ID: 1, Name: evil, Errors: views.FormErrors{"name": evil}}),
		"login":  views.Login(views.LoginProps{Username: evil, Error: evil, Next: `"><script>x</script>`}),
	} {
		var buf bytes.Buffer
		if err := c.Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "<script>alert") || strings.Contains(buf.String(), "<script>x") {
			t.Fatalf("%s: typed markup is in the HTML unescaped", name)
		}
		doc, _ := goquery.NewDocumentFromReader(&buf)
		if doc.Find("script:not([src])").Length() != 0 || doc.Find("[style]").Length() != 0 {
			t.Fatalf("%s: an inline script or style attribute", name)
		}
	}
}

func TestPetFormKeepsWhatWasTyped(t *testing.T) {
	f := views.PetFormProps{Name: "Rex", Category: "Cts", Status: "pending",
		Categories: []string{"Cats", "Dogs"},
		Errors:     views.FormErrors{"categoryId": `there is no category named "Cts"; choose one of the suggestions`}}
	doc := render(t, views.PetForm(staffPage, f))
	if doc.Find("form").Last().AttrOr("action", "") != "/admin/pets" {
		t.Fatal("the add form posts elsewhere")
	}
	if doc.Find("#categoryId").AttrOr("value", "") != "Cts" || doc.Find("#status option[selected]").Text() != "pending" {
		t.Fatal("the form lost what was typed")
	}
	if got := testID(doc, "error-categoryId").Text(); got != `There is no category named "Cts"; choose one of the suggestions.` {
		t.Fatalf("category error %q", got)
	}
	if doc.Find("#categoryId").AttrOr("aria-describedby", "") != "categoryId-error" || doc.Find(`datalist#category-names option[value="Cats"]`).Length() != 1 {
		t.Fatal("the refusal is not tied to the field, or the categories are not suggested")
	}
	f.ID = 9
	doc = render(t, views.PetForm(staffPage, f))
	if doc.Find(`form[data-testid="pet-form"]`).AttrOr("action", "") != "/admin/pets/9" || doc.Find("#status").Length() != 0 {
		t.Fatal("the edit form posts to the pet and does not change its status")
	}
}

func TestLoginFormNeverEchoesThePassword(t *testing.T) {
	doc := render(t, views.Login(views.LoginProps{CSRF: "t", Next: "/admin/pets", Username: "ada", Error: "Wrong username or password."}))
	if doc.Find("#password").AttrOr("value", "") != "" || doc.Find("#username").AttrOr("value", "") != "ada" {
		t.Fatal("login form values")
	}
	if testID(doc, "form-error").Text() != "Wrong username or password." {
		t.Fatal("login error")
	}
	if doc.Find(`input[name="next"]`).AttrOr("value", "") != "/admin/pets" || doc.Find(`input[name="_csrf"]`).AttrOr("value", "") != "t" {
		t.Fatal("hidden fields")
	}
}

func TestDashboardCardsLinkToTheirLists(t *testing.T) {
	d := views.DashboardProps{Pets: []views.Stat{{Key: "sold", Badge: true, N: 3, URL: "/admin/pets?status=sold"}}}
	doc := render(t, views.Dashboard(staffPage, d))
	s := testID(doc, "dash-pets-sold")
	if s.AttrOr("href", "") != "/admin/pets?status=sold" || s.Find(".stat-value").Text() != "3" {
		t.Fatalf("stat: %s", s.Text())
	}
	if testID(doc, "dash-orders").Length() != 0 {
		t.Fatal("an absent section shows")
	}
}

func TestOrderPageOffersExactlyTheActionsItIsGiven(t *testing.T) {
	d := views.OrderDetailProps{Order: views.OrderRow{ID: 4, PetID: 9, PetName: "Rex", Status: "approved"},
		Actions: []views.OrderAction{{Action: "deliver", Label: "Mark delivered"}, {Action: "cancel", Label: "Cancel", Danger: true}}}
	doc := render(t, views.OrderDetail(staffPage, d))
	var got []string
	doc.Find(`form button[data-testid^="action-"]`).Each(func(_ int, s *goquery.Selection) {
		got = append(got, s.Closest("form").AttrOr("action", ""))
	})
	if strings.Join(got, ",") != "/admin/orders/4/deliver,/admin/orders/4/cancel" {
		t.Fatalf("action forms %v", got)
	}
	if doc.Find(`details.confirm [data-testid="action-cancel"]`).Length() != 1 {
		t.Fatal("cancelling is not behind a confirmation")
	}
	d.Actions[1] = views.OrderAction{Action: "cancel", Label: "Cancel order", Danger: true, Keep: "Keep the order"}
	doc = render(t, views.OrderDetail(staffPage, d))
	if got := testID(doc, "confirm-cancel").Text(); got != "Cancel order…" || testID(doc, "keep-cancel").Text() != "Keep the order" ||
		testID(doc, "keep-cancel").AttrOr("href", "") != "/admin/orders/4" {
		t.Fatalf("the confirmation reads %q / %q", got, testID(doc, "keep-cancel").Text())
	}
	d.Actions = nil
	d.Order.Status = "delivered"
	doc = render(t, views.OrderDetail(staffPage, d))
	if doc.Find(`[data-testid^="action-"]`).Length() != 0 || !strings.Contains(testID(doc, "no-actions").Text(), "delivered") {
		t.Fatal("a finished order offers actions")
	}
}

func TestAKeysSecretAppearsOnlyWhenGiven(t *testing.T) {
	k := views.KeyRow{ID: 3, Name: "Shop", Prefix: "psk_abcdefgh", Plan: "pro", PerMinute: 300, PerDay: 10000, State: "active"}
	doc := render(t, views.KeyDetail(adminPage, views.KeyDetailProps{Key: k, Secret: "psk_abcdefgh_secret"}))
	if testID(doc, "secret").Text() != "psk_abcdefgh_secret" || doc.Find(`button[data-copy="secret-key"][hidden]`).Length() != 1 {
		t.Fatal("the new key, or its copy button (hidden until the script shows it), is missing")
	}
	if !strings.Contains(testID(doc, "key-fields").Text(), "300/min · 10,000/day") {
		t.Fatalf("limits: %s", testID(doc, "key-fields").Text())
	}
	doc = render(t, views.KeyDetail(adminPage, views.KeyDetailProps{Key: k}))
	if testID(doc, "secret").Length() != 0 || strings.Contains(doc.Text(), "secret") {
		t.Fatal("a key's page shows a secret it was not given")
	}
	k.State = "revoked"
	now := time.Now()
	k.RevokedAt = &now
	doc = render(t, views.KeyDetail(adminPage, views.KeyDetailProps{Key: k}))
	if testID(doc, "revoke").Length() != 0 || testID(doc, "change-plan").Length() != 0 || testID(doc, "revoked-note").Length() != 1 {
		t.Fatal("a revoked key offers changes")
	}
}

// A page says which rows of how many it shows; past what is counted exactly, "about" a rounded
// number; where its place is not known, no range.
func TestPagerSummarySaysWhichRowsOfHowMany(t *testing.T) {
	for _, tc := range []struct {
		p    views.Pager
		want string
	}{
		{views.Pager{Shown: 25, Total: 2770, Exact: true, From: 1}, "1–25 of 2,770 pets"},
		{views.Pager{Shown: 20, Total: 2770, Exact: true, From: 2751}, "2,751–2,770 of 2,770 pets"},
		{views.Pager{Shown: 1, Total: 1, Exact: true, From: 1}, "1 of 1 pet"},
		{views.Pager{Shown: 25, Total: 1_000_347, From: 26}, "26–50 of about 1,000,000 pets"},
		{views.Pager{Shown: 25, Total: 251_300}, "Showing 25 of about 250,000 pets"},
		{views.Pager{Shown: 25, Total: 5_149}, "Showing 25 of about 5,100 pets"},
		{views.Pager{Shown: 25}, "Showing 25 pets"},
	} {
		if got := tc.p.Summary("pets"); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestRefusalsReadAsSentencesThatNameTheirField(t *testing.T) {
	for _, tc := range []struct{ subject, msg, want string }{
		{"Name", "must not be empty", "Name must not be empty."},
		{"Ship date (optional)", "must not be before today (2026-11-27, UTC)", "Ship date must not be before today (2026-11-27, UTC)."},
		{"Category", "is required", "Category is required."},
		{"Current password", "that is not your current password", "That is not your current password."},
		{"Name", `a category named "Dogs" already exists`, `A category named "Dogs" already exists.`},
		{"", "Wrong username or password.", "Wrong username or password."},
		{"", "", ""},
	} {
		if got := views.Sentence(tc.subject, tc.msg); got != tc.want {
			t.Errorf("Sentence(%q, %q) = %q, want %q", tc.subject, tc.msg, got, tc.want)
		}
	}
}

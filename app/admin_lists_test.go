package app_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// cells are the texts of one column of a table, by the cells' data-label.
func cells(p *apptest.Page, label string) []string {
	var out []string
	p.Doc.Find(`tbody td[data-label="` + label + `"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.Join(strings.Fields(s.Text()), " "))
	})
	return out
}

// sortedBy is the heading's aria-sort for each sortable column of the page.
func sortedBy(p *apptest.Page) map[string]string {
	out := map[string]string{}
	p.Doc.Find(`th a.sort`).Each(func(_ int, a *goquery.Selection) {
		if v, ok := a.Parent().Attr("aria-sort"); ok {
			out[strings.TrimPrefix(a.AttrOr("data-testid", ""), "sort-")] = v
		}
	})
	return out
}

func TestPetsTableSortsByEachColumnAndSaysHowManyOfHowMany(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		pets := make([]models.Pet, 60)
		for i := range pets {
			// Names out of id order, with ties; statuses in every order.
			pets[i] = models.Pet{Name: fmt.Sprintf("Pet %02d", (i*7)%20), CategoryID: 1, Status: models.PetStatuses[(i/2)%3]}
		}
		if err := s.DB.Create(&pets).Error; err != nil {
			t.Fatal(err)
		}
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)

		p := b.Get(t, "/admin/pets")
		if got := p.Text("pager-summary"); got != "1–25 of 60 pets" {
			t.Fatalf("first page says %q", got)
		}
		if got := sortedBy(p); got["id"] != "ascending" || len(got) != 1 {
			t.Fatalf("by default the table says it is sorted by %v, want id ascending", got)
		}
		// A heading links to the table sorted by its column, on the first page of the same filters.
		href := p.TestID("sort-name").AttrOr("href", "")
		if href != "/admin/pets?sort=name" {
			t.Fatalf("the Name heading links to %q", href)
		}
		for _, tc := range []struct {
			heading, label string
			want           func(a, b models.Pet) bool
		}{
			{"name", "Name", func(a, b models.Pet) bool { return a.Name < b.Name || a.Name == b.Name && a.ID < b.ID }},
			{"status", "Status", func(a, b models.Pet) bool { return a.Status < b.Status || a.Status == b.Status && a.ID < b.ID }},
		} {
			want := slices.Clone(pets)
			slices.SortStableFunc(want, func(a, b models.Pet) int {
				if tc.want(a, b) {
					return -1
				}
				return 1
			})
			for _, desc := range []bool{false, true} {
				target := "/admin/pets?sort=" + tc.heading
				if desc {
					slices.Reverse(want)
					target = "/admin/pets?sort=-" + tc.heading
				}
				var got []string
				for page := 0; target != ""; page++ {
					p := b.Get(t, target)
					wantStatus(t, p, http.StatusOK)
					got = append(got, cells(p, tc.label)...)
					if summary := p.Text("pager-summary"); summary != fmt.Sprintf("%d–%d of 60 pets", page*25+1, min(page*25+25, 60)) {
						t.Fatalf("sorted by %s, page %d says %q", target, page+1, summary)
					}
					target = p.TestID("next-page").AttrOr("href", "")
				}
				var wantCol []string
				for _, pet := range want {
					wantCol = append(wantCol, map[string]string{"Name": pet.Name, "Status": string(pet.Status)}[tc.label])
				}
				if !slices.Equal(got, wantCol) {
					t.Errorf("sorted by %s (desc %v): %v, want %v", tc.heading, desc, got, wantCol)
				}
			}
		}
		// The current column's heading turns the order round; dates start with the newest.
		byName := b.Get(t, "/admin/pets?sort=name&status=sold")
		if got := byName.TestID("sort-name").AttrOr("href", ""); got != "/admin/pets?sort=-name&status=sold" {
			t.Fatalf("sorted by name, its heading links to %q", got)
		}
		if got := byName.TestID("sort-updated").AttrOr("href", ""); got != "/admin/pets?sort=-updated&status=sold" {
			t.Fatalf("the Updated heading links to %q, want newest first", got)
		}
		if got := sortedBy(byName); got["name"] != "ascending" || len(got) != 1 {
			t.Fatalf("sorted by name, the headings say %v", got)
		}
		if v := byName.Doc.Find(`#f-sort option[selected]`).AttrOr("value", ""); v != "name" {
			t.Fatalf("the filter form forgets the order: %q", v)
		}
		last := b.Get(t, byName.TestID("last-page").AttrOr("href", ""))
		if byName.TestID("last-page").Length() != 0 {
			if got := last.Text("pager-summary"); !strings.HasSuffix(got, "of 20 pets") {
				t.Fatalf("the last page of 20 sold pets says %q", got)
			}
		} else if got := byName.Text("pager-summary"); got != "1–20 of 20 pets" {
			t.Fatalf("20 sold pets on one page: %q", got)
		}
		// Newest change first: the pet renamed last leads.
		if _, err := models.NewPetStore(s.DB).Update(models.WithActor(context.Background(), "test"), pets[10].ID, models.PetPatch{Name: ptrTo("Zed"), CategoryID: ptrTo[int64](1)}, "test"); err != nil {
			t.Fatal(err)
		}
		if got := cells(b.Get(t, "/admin/pets?sort=-updated"), "Name"); got[0] != "Zed" {
			t.Fatalf("newest change first: %v", got[:3])
		}
		for _, bad := range []string{"sort=colour", "sort=-", "sort=name&cursor=" + models.Cursor{ID: 3}.Encode()} {
			wantStatus(t, b.Get(t, "/admin/pets?"+bad), http.StatusBadRequest)
		}
	})
}

func TestPetsSearchFindsAnIDOrPartOfAName(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		rex := addPet(t, s, "Rex", models.PetAvailable)
		addPet(t, s, "Rexie", models.PetSold)
		addPet(t, s, "Tom", models.PetAvailable)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		for q, want := range map[string]string{
			"rex": "Rex,Rexie", itoa(rex): "Rex", "#" + itoa(rex): "Rex", "4242": "", "-1": "",
		} {
			p := b.Get(t, "/admin/pets?q="+url.QueryEscape(q))
			wantStatus(t, p, http.StatusOK)
			if got := strings.Join(petNames(p), ","); got != want {
				t.Errorf("search %q: %q, want %q", q, got, want)
			}
			if n := len(petNames(p)); n > 1 && p.Text("pager-summary") != fmt.Sprintf("1–%d of %d pets", n, n) || n == 1 && p.Text("pager-summary") != "1 of 1 pet" {
				t.Errorf("search %q says %q", q, p.Text("pager-summary"))
			}
		}
	})
}

func TestOrdersTableIsNewestFirstSortsSearchesAndCounts(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		orders := models.NewOrderStore(s.DB)
		ctx := context.Background()
		day := time.Now().UTC().AddDate(0, 0, 5).Truncate(24 * time.Hour)
		var ids []int64
		for i := range 30 {
			petID := addPet(t, s, fmt.Sprintf("Pet %02d", i), models.PetAvailable)
			n := models.NewOrder{PetID: &petID}
			if i%2 == 0 {
				ship := day.AddDate(0, 0, (30-i)%7)
				n.ShipDate = &ship
			}
			o, err := orders.Place(ctx, n, models.StaffOwner, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, o.ID)
		}
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		p := b.Get(t, "/admin/orders")
		if got := cells(p, "Order"); got[0] != "#"+itoa(ids[29]) || got[24] != "#"+itoa(ids[5]) {
			t.Fatalf("the orders page starts %v, want the newest first", got[:3])
		}
		if got := p.Text("pager-summary"); got != "1–25 of 30 orders" {
			t.Fatalf("orders page says %q", got)
		}
		if got := sortedBy(p); got["placed"] != "descending" || len(got) != 1 {
			t.Fatalf("by default the headings say %v, want placed descending", got)
		}
		if href := p.TestID("sort-placed").AttrOr("href", ""); href != "/admin/orders?sort=placed" {
			t.Fatalf("the Placed heading links to %q, want oldest first", href)
		}
		// By ship date: the soonest first, orders without one last, in both directions.
		for _, target := range []string{"/admin/orders?sort=shipDate", "/admin/orders?sort=-shipDate"} {
			var dates []string
			for next := target; next != ""; {
				page := b.Get(t, next)
				dates = append(dates, cells(page, "Ship date")...)
				next = page.TestID("next-page").AttrOr("href", "")
			}
			withDate := dates[:15]
			if len(dates) != 30 || slices.Contains(withDate, "—") || slices.ContainsFunc(dates[15:], func(d string) bool { return d != "—" }) {
				t.Fatalf("%s: %v, want 15 dates then 15 without", target, dates)
			}
			sorted := slices.IsSorted(withDate)
			if strings.Contains(target, "-") {
				sorted = slices.IsSortedFunc(withDate, func(a, b string) int { return strings.Compare(b, a) })
			}
			if !sorted {
				t.Fatalf("%s: dates out of order: %v", target, withDate)
			}
		}
		// Search: an order's number, or part of its pet's name.
		for q, want := range map[string][]string{
			itoa(ids[3]): {"#" + itoa(ids[3])}, "#" + itoa(ids[4]): {"#" + itoa(ids[4])},
			"pet 1": {"#" + itoa(ids[19]), "#" + itoa(ids[18]), "#" + itoa(ids[17]), "#" + itoa(ids[16]), "#" + itoa(ids[15]),
				"#" + itoa(ids[14]), "#" + itoa(ids[13]), "#" + itoa(ids[12]), "#" + itoa(ids[11]), "#" + itoa(ids[10])},
			"nobody": nil,
		} {
			page := b.Get(t, "/admin/orders?q="+url.QueryEscape(q))
			wantStatus(t, page, http.StatusOK)
			if got := cells(page, "Order"); !slices.Equal(got, want) {
				t.Errorf("search %q: %v, want %v", q, got, want)
			}
			if want == nil && !strings.Contains(page.Text("empty"), "No orders match this search") {
				t.Errorf("search %q found nothing and says %q", q, page.Text("empty"))
			}
		}
		if v := b.Get(t, "/admin/orders?q=pet&sort=status").Doc.Find(`#f-sort option[selected]`).AttrOr("value", ""); v != "status" {
			t.Fatalf("the filter form forgets the order: %q", v)
		}
		wantStatus(t, b.Get(t, "/admin/orders?sort=pet"), http.StatusBadRequest)
	})
}

// readCSV fetches an export and checks what every export shares: a CSV attachment named after
// the list and today, starting with the byte-order mark that makes Excel read UTF-8, nothing to
// run in a spreadsheet.
func readCSV(t *testing.T, b *apptest.Browser, target, name string) [][]string {
	t.Helper()
	p := b.Get(t, target)
	wantStatus(t, p, http.StatusOK)
	if ct := p.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("%s: Content-Type %q", target, ct)
	}
	// Dated in the store's time zone: in Paris the 29th starts at 23:00 UTC on the 28th.
	want := `attachment; filename="` + name + "-" + b.Server().Today() + `.csv"`
	if cd := p.Header.Get("Content-Disposition"); cd != want {
		t.Fatalf("%s: Content-Disposition %q, want %q", target, cd, want)
	}
	body, ok := strings.CutPrefix(string(p.Body), "\uFEFF")
	if !ok {
		t.Fatalf("%s: no UTF-8 byte-order mark: Excel would read it in the machine's code page:\n%.80q", target, p.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("%s: not CSV: %v\n%s", target, err, p.Body)
	}
	for _, row := range rows {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("%s: a spreadsheet would run the cell %q", target, cell)
			}
		}
	}
	return rows
}

func TestCSVExportsAreTheWholeFilteredListInTheTablesOrderAndRunNothing(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		risky := []string{"=HYPERLINK(\"http://x\",\"y\")", "+1 555", "-2", "@SUM(A1)", "Rex, \"the\" dog"}
		for _, name := range risky {
			createPet(t, s, map[string]any{"name": name, "categoryId": 2})
		}
		pets := make([]models.Pet, 1100)
		for i := range pets {
			pets[i] = models.Pet{Name: fmt.Sprintf("Bulk %04d", i), CategoryID: 1, Status: models.PetSold}
		}
		if err := s.DB.CreateInBatches(pets, 500).Error; err != nil {
			t.Fatal(err)
		}
		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)

		// The page's link exports its filters and order, from the first row.
		page := b.Get(t, "/admin/pets?category=2&sort=-name&cursor="+models.Cursor{Sort: models.Sort{Key: "name", Desc: true}, ID: 1, Value: "Z"}.Encode())
		href := page.TestID("export-csv").AttrOr("href", "")
		if href != "/admin/pets?category=2&format=csv&sort=-name" {
			t.Fatalf("the export link is %q", href)
		}
		rows := readCSV(t, b, href, "pets")
		if strings.Join(rows[0], ",") != "id,name,category,status,description,tags,cover,created,updated,deleted" || len(rows) != 6 {
			t.Fatalf("pets of category 2: %q", rows)
		}
		var names []string
		for _, r := range rows[1:] {
			names = append(names, r[1])
			if r[2] != "Cats" || r[3] != "available" || r[9] != "" {
				t.Errorf("row %q: want category Cats, available, not deleted", r)
			}
		}
		want := []string{"Rex, \"the\" dog", "'@SUM(A1)", "'=HYPERLINK(\"http://x\",\"y\")", "'-2", "'+1 555"}
		if !slices.Equal(names, want) {
			t.Fatalf("names, by name descending: %q, want %q", names, want)
		}
		// More than one page of the export: every pet, once, in id order.
		all := readCSV(t, b, "/admin/pets?format=csv&status=sold", "pets")
		if len(all) != 1101 || all[1][1] != "Bulk 0000" || all[1100][1] != "Bulk 1099" {
			t.Fatalf("sold pets: %d rows, first %q, last %q", len(all), all[1], all[len(all)-1])
		}

		o := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": pets[0].ID - 1})
		wantStatus(t, &apptest.Page{Response: o}, http.StatusCreated)
		orders := readCSV(t, b, "/admin/orders?format=csv", "orders")
		if strings.Join(orders[0], ",") != "id,pet id,pet,status,ship date,placed,updated,client id,client" || len(orders) != 2 || orders[1][2] != "Rex, \"the\" dog" || orders[1][3] != "placed" {
			t.Fatalf("orders: %q", orders)
		}
		audit := readCSV(t, b, "/admin/audit?format=csv&object=order", "audit")
		if len(audit) != 2 || audit[1][3] != "api-key:"+itoa(s.KeyID) || audit[1][7] != "place" || audit[1][8] != "placed" || !strings.Contains(audit[1][9], "Status: placed") {
			t.Fatalf("the audit log's orders: %q", audit)
		}
		keys := readCSV(t, b, "/admin/keys?format=csv", "api-keys")
		if len(keys) != 2 || keys[1][1] != "apptest" || keys[1][8] != "active" || keys[1][5] != "pets:read pets:write orders:read orders:write webhooks" {
			t.Fatalf("keys: %q", keys)
		}
		if strings.Contains(strings.Join(keys[1], ","), strings.TrimPrefix(s.APIKey, "Bearer ")) {
			t.Fatalf("the export shows a key's secret: %q", keys[1])
		}
		clients := readCSV(t, b, "/admin/clients?format=csv", "clients")
		if strings.Join(clients[0], ",") != "id,name,email,created,keys,active keys,orders" || len(clients) != 2 || clients[1][4] != "1" || clients[1][6] != "1" {
			t.Fatalf("clients: %q", clients)
		}
		wantStatus(t, b.Get(t, "/admin/pets?format=xlsx"), http.StatusBadRequest)
		// What staff may not open, they may not export.
		sam := s.NewBrowser(t)
		sam.Login(t, "sam", staffPassword)
		wantStatus(t, sam.Get(t, "/admin/audit?format=csv"), http.StatusForbidden)
		wantStatus(t, sam.Get(t, "/admin/keys?format=csv"), http.StatusForbidden)
		wantStatus(t, sam.Get(t, "/admin/clients?format=csv"), http.StatusForbidden)
	})
}

func TestBulkActionsConfirmHowManyApplyEachPetsRulesAndListTheRefusals(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		ctx := context.Background()
		orders := models.NewOrderStore(s.DB)
		free := addPet(t, s, "Free", models.PetAvailable)
		pending := addPet(t, s, "Reserved", models.PetPending)
		already := addPet(t, s, "Gone", models.PetSold)
		held := addPet(t, s, "Held", models.PetAvailable)
		o, err := orders.Place(ctx, models.NewOrder{PetID: &held}, models.StaffOwner, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		soldThrough := addPet(t, s, "Sold", models.PetAvailable)
		o2, err := orders.Place(ctx, models.NewOrder{PetID: &soldThrough}, models.StaffOwner, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, act := range []models.Action{models.ActionApprove, models.ActionDeliver} {
			if _, err := orders.Apply(ctx, o2.ID, act, "test"); err != nil {
				t.Fatal(err)
			}
		}
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		list := b.Get(t, "/admin/pets?sort=name")
		if n := list.TestID("select-pet").Length(); n != 5 {
			t.Fatalf("%d rows can be selected, want 5", n)
		}
		chosen := url.Values{"action": {"available"}, "back": {"/admin/pets?sort=name"}}
		for _, id := range []int64{free, pending, already, held, soldThrough} {
			chosen.Add("id", itoa(id))
		}

		confirm := b.Post(t, "/admin/pets/bulk", chosen)
		wantStatus(t, confirm, http.StatusOK)
		if got := confirm.Text("page-title"); got != "Set 5 pets to available?" {
			t.Fatalf("the confirmation asks %q", got)
		}
		if got := confirm.Text("bulk-confirm-submit"); got != "Set 5 pets to available" || confirm.TestID("bulk-keep").AttrOr("href", "") != "/admin/pets?sort=name" {
			t.Fatalf("the confirmation offers %q and %q", got, confirm.TestID("bulk-keep").AttrOr("href", ""))
		}
		if got := confirm.TestID("bulk-pets").Find("li").Length(); got != 5 {
			t.Fatalf("the confirmation names %d pets", got)
		}
		if p, _ := models.NewPetStore(s.DB).Get(ctx, pending); p.Status != models.PetPending {
			t.Fatal("the confirmation changed a pet")
		}

		chosen.Set("confirm", "yes")
		done := b.Post(t, "/admin/pets/bulk", chosen)
		wantStatus(t, done, http.StatusOK)
		if got := done.Text("bulk-summary"); got != "2 of 5 pets set to available. 1 was available already." {
			t.Fatalf("after the bulk change: %q\n%s", got, done.Body)
		}
		var refusals []string
		done.TestID("bulk-refusal").Each(func(_ int, s *goquery.Selection) { refusals = append(refusals, s.Text()) })
		want := []string{
			fmt.Sprintf("Held (#%d) was not set to available: order #%d (placed) holds it; approve or cancel that order to move it on.", held, o.ID),
			fmt.Sprintf("Sold (#%d) was not set to available: it was sold through order #%d and stays sold.", soldThrough, o2.ID),
		}
		if !slices.Equal(refusals, want) {
			t.Fatalf("refusals:\n%q\nwant\n%q", refusals, want)
		}
		// Some changed, some were refused: the result is a warning, and names the orders as links.
		if got := done.TestID("bulk-outcome").AttrOr("data-outcome", ""); got != "warn" {
			t.Fatalf("2 changed and 2 refused shows as %q, want warn", got)
		}
		var links []string
		done.TestID("bulk-refusal-order").Each(func(_ int, a *goquery.Selection) { links = append(links, a.AttrOr("href", "")) })
		if want := []string{fmt.Sprintf("/admin/orders/%d", o.ID), fmt.Sprintf("/admin/orders/%d", o2.ID)}; !slices.Equal(links, want) {
			t.Fatalf("the refusals link %v, want %v", links, want)
		}
		if done.TestID("bulk-back").AttrOr("href", "") != "/admin/pets?sort=name" {
			t.Fatalf("back leads to %q", done.TestID("bulk-back").AttrOr("href", ""))
		}

		// Deleting: the pet a live order holds stays.
		del := url.Values{"action": {"delete"}, "confirm": {"yes"}, "id": {itoa(free), itoa(held)}, "back": {"https://evil.example/admin/pets"}}
		done = b.Post(t, "/admin/pets/bulk", del)
		if got := done.Text("bulk-summary"); got != "Deleted 1 of 2 pets." || done.TestID("bulk-back").AttrOr("href", "") != "/admin/pets" {
			t.Fatalf("bulk delete: %q, back to %q", got, done.TestID("bulk-back").AttrOr("href", ""))
		}
		if got := done.Text("bulk-refusal"); got != fmt.Sprintf("Held (#%d) was not deleted: order #%d (placed) holds it. Cancel or deliver that order first.", held, o.ID) {
			t.Fatalf("bulk delete refusal: %q", got)
		}

		// Every change is in the audit log, as sam's (besides the sign-in).
		var entries []models.AuditEntry
		if err := s.DB.Where("actor = ? AND action <> ?", "staff:sam", models.AuditLogIn).Order("id").Find(&entries).Error; err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Action+" "+e.ObjectName)
		}
		if wantLog := []string{"set_status Reserved", "set_status Gone", "delete Free"}; !slices.Equal(got, wantLog) {
			t.Fatalf("sam's audit entries: %q, want %q", got, wantLog)
		}

		nothing := b.Post(t, "/admin/pets/bulk", url.Values{"action": {"sold"}})
		wantStatus(t, nothing, http.StatusBadRequest)
		if nothing.Text("page-title") != "No pets selected" {
			t.Fatalf("a bulk action without pets: %q", nothing.Text("page-title"))
		}
		wantStatus(t, b.Post(t, "/admin/pets/bulk", url.Values{"action": {"paint"}, "id": {itoa(free)}}), http.StatusBadRequest)
	})
}

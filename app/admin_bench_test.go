package app_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"github.com/valyala/fasthttp"
	"gorm.io/gorm"
)

// BenchmarkAdminMillionPets reads every admin page on PostgreSQL holding 1,000,000 pets and
// 10,000 orders: the pets list, with its total, pages jumped to by their number, and its CSV
// export; the dashboard, as an admin sees it (every count of its work and problems), the orders
// lists it links to, and each other page. Each request goes through the whole middleware chain
// with a staff session, as BenchmarkListPets does for the API. The export reports the most heap
// the process had in use meanwhile (peak-heap-MB, against heap-before-MB when it started): a
// million rows must stream, not pile up.
//
// It seeds a schema of its own (several minutes on a loaded machine), or reads the one
// PETSTORE_BENCH_MILLION_URL names, which `petstore seed --pets 1000000 --orders 10000` filled:
//
//	go test -run '^$' -bench BenchmarkAdminMillionPets -benchtime 20x ./app/
func BenchmarkAdminMillionPets(b *testing.B) {
	cfg := apptest.Config(b, testenv.Postgres)
	if u := os.Getenv("PETSTORE_BENCH_MILLION_URL"); u != "" {
		cfg.DatabaseURL = u
	}
	cfg.AdminCountBudget = models.DefaultCountBudget // as in production
	cfg.CountsMaxAge = 10 * time.Second              // PETSTORE_COUNTS_MAX_AGE's default
	s := apptest.New(b, cfg, apptest.WithLog(app.NewLogger(cfg, io.Discard)))
	ctx := context.Background()
	// Seeding tops a database up to its numbers: nothing to do in one seeded before.
	if _, err := models.Seed(ctx, s.DB, models.SeedOptions{Pets: 1_000_000, Orders: 10_000}); err != nil {
		b.Fatal(err)
	}
	// Statistics, and the pages marked all-visible (which index-only scans need), as autovacuum
	// leaves a live database.
	err := s.DB.Connection(func(conn *gorm.DB) error {
		// Longer than the service's statement timeout, and outside a transaction.
		if err := conn.Exec("SET statement_timeout = 0").Error; err != nil {
			return err
		}
		if err := conn.Exec("VACUUM (ANALYZE) pets, orders").Error; err != nil {
			return err
		}
		return conn.Exec("RESET statement_timeout").Error
	})
	if err != nil {
		b.Fatal(err)
	}
	// Accounts of this run's own, so a seeded database serves run after run.
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	sam, ada := "sam-"+run, "ada-"+run
	s.CreateStaff(b, sam, staffPassword, models.RoleStaff)
	adaAccount := s.CreateStaff(b, ada, adminPassword, models.RoleAdmin)
	cookieOf := func(name, password string) string {
		browser := s.NewBrowser(b)
		browser.Login(b, name, password)
		return "petstore_session=" + browser.Cookie("petstore_session")
	}
	cookie, adminCookie := cookieOf(sam, staffPassword), cookieOf(ada, adminPassword)
	h := s.App.Handler()
	var getAs func(rc *fasthttp.RequestCtx, uri, cookie string)

	get := func(rc *fasthttp.RequestCtx, uri string) { getAs(rc, uri, cookie) }
	getAs = func(rc *fasthttp.RequestCtx, uri, cookie string) {
		rc.Request.Reset()
		rc.Response.Reset()
		rc.ResetUserValues()
		rc.Request.Header.SetMethod("GET")
		rc.Request.SetRequestURI(uri)
		rc.Request.Header.Set("Cookie", cookie)
		h(rc)
		if got := rc.Response.StatusCode(); got != 200 {
			b.Fatalf("GET %s: status %d: %s", uri, got, rc.Response.Body())
		}
	}
	for _, page := range []struct{ name, uri, says string }{
		{"first-page", "/admin/pets", "1–25 of about 1,000,000 pets"},
		{"by-name", "/admin/pets?sort=name", "1–25 of about 1,000,000 pets"},
		{"last-page-newest-first", "/admin/pets?sort=-updated&cursor=" + models.Cursor{Sort: models.Sort{Key: "updated", Desc: true}, Last: true}.Encode(), "Showing 25 of about 1,000,000 pets"},
		{"sold", "/admin/pets?status=sold", ""},
		// Page jumps: the deepest a number reaches (401, past 10,000 rows), by id and by name, and
		// in a filtered list.
		{"page-401", "/admin/pets?page=401", "10,001–10,025 of about 1,000,000 pets"},
		{"page-401-by-name", "/admin/pets?sort=name&page=401", "10,001–10,025 of about 1,000,000 pets"},
		{"page-401-sold", "/admin/pets?status=sold&page=401", ""},
		// The page after a jump, by its link: its place is counted.
		{"after-page-400-by-name", "", "10,001–10,025 of about 1,000,000 pets"},
	} {
		b.Run(page.name, func(b *testing.B) {
			rc := newRequestCtx()
			if page.uri == "" { // before the loop, which times only itself
				get(rc, "/admin/pets?sort=name&page=400")
				next := nextPage.FindSubmatch(rc.Response.Body())
				if next == nil {
					b.Fatal("page 400 by name links no next page")
				}
				page.uri = html.UnescapeString(string(next[1]))
			}
			b.ReportAllocs()
			for b.Loop() {
				get(rc, page.uri)
			}
			// What was measured is the page with its total.
			summary := pagerSummary.FindSubmatch(rc.Response.Body())
			if summary == nil || page.says != "" && string(summary[1]) != page.says {
				b.Fatalf("GET %s says %q, want %q", page.uri, summary, page.says)
			}
			b.Logf("GET %s: %s", page.uri, summary[1])
		})
	}
	today := time.Now().UTC().Format(time.DateOnly)
	var order, pet int64
	if err := s.DB.Model(&models.Order{}).Select("MAX(id)").Row().Scan(&order); err != nil {
		b.Fatal(err)
	}
	if err := s.DB.Model(&models.Pet{}).Select("MAX(id)").Row().Scan(&pet); err != nil {
		b.Fatal(err)
	}
	client, key := strconv.FormatInt(s.ClientID, 10), strconv.FormatInt(s.KeyID, 10)
	for _, page := range []struct{ name, uri, testid string }{
		{"dashboard", "/admin", "dash-work-overdue"},
		{"orders", "/admin/orders", "orders-table"},
		{"orders-overdue", "/admin/orders?status=live&shipTo=" + today, "orders-table"},
		{"orders-waiting", "/admin/orders?status=placed&sort=placed", "orders-table"},
		{"orders-of-a-client", "/admin/orders?client=" + url.QueryEscape("apptest (#"+client+")"), "client-filter"},
		{"order", "/admin/orders/" + strconv.FormatInt(order, 10), "order-fields"},
		{"pet", "/admin/pets/" + strconv.FormatInt(pet/2, 10), "pet-fields"},
		{"pet-edit", "/admin/pets/" + strconv.FormatInt(pet/2, 10) + "/edit", "pet-form"},
		{"pet-new", "/admin/pets/new", "pet-form"},
		{"pets-of-a-category", "/admin/pets?category=Cats", "pets-table"},
		{"categories", "/admin/categories", "categories-table"},
		{"clients", "/admin/clients", "clients-table"},
		{"client", "/admin/clients/" + client, "client-fields"},
		{"keys", "/admin/keys", "keys-table"},
		{"key", "/admin/keys/" + key, "key-fields"},
		{"webhooks", "/admin/webhooks", "webhooks-list"},
		{"staff", "/admin/staff", "staff-table"},
		{"staff-member", "/admin/staff/" + strconv.FormatInt(adaAccount.ID, 10), "staff-fields"},
		{"audit", "/admin/audit", "audit-table"},
		{"account", "/admin/account", "account-fields"},
		{"suggest-categories", "/admin/suggest/categories?q=s", ""},
		{"suggest-clients", "/admin/suggest/clients?q=app", ""},
	} {
		b.Run(page.name, func(b *testing.B) {
			rc := newRequestCtx()
			b.ReportAllocs()
			for b.Loop() {
				getAs(rc, page.uri, adminCookie)
			}
			if page.testid == "" {
				if !bytes.HasPrefix(rc.Response.Body(), []byte(`["`)) {
					b.Fatalf("GET %s suggests nothing: %s", page.uri, rc.Response.Body())
				}
			} else if !bytes.Contains(rc.Response.Body(), []byte(`data-testid="`+page.testid+`"`)) {
				b.Fatalf("GET %s shows no %s", page.uri, page.testid)
			}
		})
	}
	b.Run("csv", func(b *testing.B) {
		rc := newRequestCtx()
		b.ReportAllocs()
		runtime.GC()
		var peak atomic.Uint64
		stop := samplePeakHeap(&peak)
		before := peak.Load()
		defer stop()
		for b.Loop() {
			get(rc, "/admin/pets?format=csv")
			lines := &lineCounter{}
			if err := rc.Response.BodyWriteTo(lines); err != nil {
				b.Fatal(err)
			}
			if lines.n != 1_000_001 {
				b.Fatalf("the export has %d lines, want a header and 1,000,000 pets", lines.n)
			}
		}
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(before)/(1<<20), "heap-before-MB")
	})
}

// nextPage finds the link to the next page under a table.
var nextPage = regexp.MustCompile(`href="([^"]*)" rel="next"`)

// pagerSummary finds the line under a table that says which rows of how many it shows.
var pagerSummary = regexp.MustCompile(`data-testid="pager-summary">([^<]*)<`)

// lineCounter counts the lines written to it, and keeps none of them.
type lineCounter struct{ n int }

func (l *lineCounter) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			l.n++
		}
	}
	return len(p), nil
}

// samplePeakHeap records the most heap in use, every 5 ms, until stop is called.
func samplePeakHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	read()
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

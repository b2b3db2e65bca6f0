package app_test

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"github.com/valyala/fasthttp"
)

// BenchmarkAdminMillionPets reads the admin pets list, with its total, jumps to pages by their
// number, and exports it as CSV, on PostgreSQL holding 1,000,000 pets and 10,000 orders (seeding
// them takes a minute or so); and the dashboard, as an admin sees it (every count of its work
// and problems), and the orders lists it links to. Each request goes through
// the whole middleware chain with a staff session, as BenchmarkListPets does for the API. The
// export reports the most heap the process had in use meanwhile (peak-heap-MB, against
// heap-before-MB when it started): a million rows must stream, not pile up.
//
//	go test -run '^$' -bench BenchmarkAdminMillionPets -benchtime 20x ./app/
func BenchmarkAdminMillionPets(b *testing.B) {
	cfg := apptest.Config(b, testenv.Postgres)
	cfg.AdminCountBudget = models.DefaultCountBudget // as in production
	s := apptest.New(b, cfg, apptest.WithLog(app.NewLogger(cfg, io.Discard)))
	ctx := context.Background()
	if _, err := models.Seed(ctx, s.DB, models.SeedOptions{Pets: 1_000_000, Orders: 10_000}); err != nil {
		b.Fatal(err)
	}
	// Statistics, as autovacuum would gather them on a live database.
	if err := s.DB.Exec("ANALYZE pets, orders").Error; err != nil {
		b.Fatal(err)
	}
	s.CreateStaff(b, "sam", staffPassword, models.RoleStaff)
	s.CreateStaff(b, "ada", adminPassword, models.RoleAdmin)
	cookieOf := func(name, password string) string {
		browser := s.NewBrowser(b)
		browser.Login(b, name, password)
		return "petstore_session=" + browser.Cookie("petstore_session")
	}
	cookie, adminCookie := cookieOf("sam", staffPassword), cookieOf("ada", adminPassword)
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
		// Page jumps: the deepest a number reaches (2,001, past 50,000 rows), by id and by name, and
		// one in a filtered list.
		{"page-2001", "/admin/pets?page=2001", "50,001–50,025 of about 1,000,000 pets"},
		{"page-2001-by-name", "/admin/pets?sort=name&page=2001", "50,001–50,025 of about 1,000,000 pets"},
		{"page-400-sold", "/admin/pets?status=sold&page=400", ""},
	} {
		b.Run(page.name, func(b *testing.B) {
			rc := newRequestCtx()
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
	for _, page := range []struct{ name, uri, testid string }{
		{"dashboard", "/admin", "dash-work-overdue"},
		{"orders-overdue", "/admin/orders?status=live&shipTo=" + today, "orders-table"},
		{"orders-waiting", "/admin/orders?status=placed&sort=placed", "orders-table"},
	} {
		b.Run(page.name, func(b *testing.B) {
			rc := newRequestCtx()
			b.ReportAllocs()
			for b.Loop() {
				getAs(rc, page.uri, adminCookie)
			}
			if !bytes.Contains(rc.Response.Body(), []byte(`data-testid="`+page.testid+`"`)) {
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

package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/headless"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// browser starts a headless Chromium for the test; without one the test is skipped, or fails
// under CI.
func browser(t *testing.T) context.Context {
	t.Helper()
	return headless.Chromium(t, 1280, 1024)
}

// requestLog records every request the page sends and how each ended.
type requestLog struct {
	mu      sync.Mutex
	sent    []*network.EventRequestWillBeSent
	ended   map[network.RequestID]bool // finished or failed
	changed chan struct{}
}

func watchRequests(ctx context.Context) *requestLog {
	l := &requestLog{ended: map[network.RequestID]bool{}, changed: make(chan struct{}, 1)}
	record := func(f func()) {
		l.mu.Lock()
		f()
		l.mu.Unlock()
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}
	sent := chromedp.Events(ctx, network.RequestWillBeSent)
	finished := chromedp.Events(ctx, network.LoadingFinished)
	failed := chromedp.Events(ctx, network.LoadingFailed)
	go func() {
		for ev, err := range sent {
			if err != nil {
				return
			}
			record(func() { l.sent = append(l.sent, &ev) })
		}
	}()
	go func() {
		for ev, err := range finished {
			if err != nil {
				return
			}
			record(func() { l.ended[ev.RequestID] = true })
		}
	}()
	go func() {
		for ev, err := range failed {
			if err != nil {
				return
			}
			record(func() {
				l.ended[ev.RequestID] = true
			})
		}
	}()
	return l
}

// lastTo is the last request sent to a URL with this prefix.
func (l *requestLog) lastTo(prefix string) *network.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var last *network.Request
	for _, ev := range l.sent {
		if strings.HasPrefix(ev.Request.URL, prefix) {
			last = ev.Request
		}
	}
	return last
}

// offsite waits until every request the page made to another host has ended, and lists them
// all: the pages must work with no network, and try none (a request the page's policy refused
// never left the browser, but it is an error in the console all the same).
func (l *requestLog) offsite(ctx context.Context, base string) ([]string, error) {
	for {
		var out []string
		pending := false
		l.mu.Lock()
		for _, ev := range l.sent {
			u := ev.Request.URL
			if strings.HasPrefix(u, base+"/") || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") {
				continue
			}
			pending = pending || !l.ended[ev.RequestID]
			out = append(out, u)
		}
		l.mu.Unlock()
		if !pending {
			return out, nil
		}
		select {
		case <-l.changed:
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

func TestSwaggerUIListsTheOperationsAndTriesOneOutWithABearerKey(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	// apptest sends a real key once authentication is in place; until then any key is answered.
	key := strings.TrimPrefix(s.Headers.Get("Authorization"), "Bearer ")
	if key == "" {
		key = "any-key-until-authentication"
	}
	log := watchRequests(ctx)

	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/docs")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"animals-listPets", "animals-createPet", "animals-getPet", "animals-listCategories",
		"store-listOrders", "store-createOrder", "store-getOrder"} {
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#operations-"+id))); err != nil {
			t.Fatalf("operation %s is not listed: %v", id, err)
		}
	}
	// The first screen shows Authorize and the first operation: the description above them is a
	// few lines, and the guide (Redoc's first section) is not shown as an empty group of operations.
	type positions struct{ Authorize, FirstOperation, LastTag, Guide, Height float64 }
	screen, err := chromedp.Run(ctx, chromedp.Evaluate[positions](`(() => {
		const top = s => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().top : -1; };
		return {Authorize: top("button.authorize"), FirstOperation: top("#operations-animals-listPets"),
			LastTag: top("#operations-tag-events"), Guide: (e => e && e.getClientRects().length ? e.getBoundingClientRect().top : -1)(document.querySelector("#operations-tag-guide")), Height: window.innerHeight};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if screen.Authorize < 0 || screen.Authorize >= screen.Height || screen.FirstOperation < 0 || screen.FirstOperation >= screen.Height {
		t.Errorf("Authorize at %.0f px and the first operation at %.0f px, not both on the first screen (%.0f px high)", screen.Authorize, screen.FirstOperation, screen.Height)
	}
	if screen.Guide >= 0 {
		t.Errorf("Swagger UI shows the guide at %.0f px (the events' operations at %.0f px): it is Redoc's, and an empty group here", screen.Guide, screen.LastTag)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("button.authorize")),
		chromedp.SendKeys(chromedp.CSS(`.modal-ux input[aria-label="auth-bearer-value"]`), key),
		chromedp.Click(chromedp.CSS(".modal-ux button.modal-btn.auth.authorize")),
		chromedp.Click(chromedp.CSS(".modal-ux button.btn-done")),
		chromedp.Click(chromedp.CSS("#operations-animals-listPets .opblock-summary")),
		chromedp.Click(chromedp.CSS("#operations-animals-listPets button.try-out__btn")),
		chromedp.Click(chromedp.CSS("#operations-animals-listPets button.execute")),
		chromedp.WaitVisible(chromedp.CSS("#operations-animals-listPets .live-responses-table tr.response .response-col_status")),
	); err != nil {
		t.Fatalf("Try it out: %v", err)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#operations-animals-listPets .live-responses-table tr.response .response-col_status")))
	if err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#operations-animals-listPets .live-responses-table tr.response .response-col_description")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(status) != "200" || !strings.Contains(body, `"name": "Rex"`) {
		t.Fatalf("Try it out answered %q: %s; want 200 listing Rex", status, body)
	}

	call := log.lastTo(s.URL + "/v1/pets")
	if call == nil {
		t.Fatal("the page sent no request to /v1/pets")
	}
	if auth := fmt.Sprint(call.Headers["Authorization"]); auth != "Bearer "+key {
		t.Fatalf("Try it out sent Authorization %q, want the bearer key", auth)
	}
	if off, err := log.offsite(ctx, s.URL); err != nil || len(off) > 0 {
		t.Fatalf("Swagger UI reached outside the service: %v %v", off, err)
	}
	saveScreenshot(t, ctx, "swagger-ui")
}

func TestRedocShowsTheTagGroupsAndOperationsOffline(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	log := watchRequests(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/docs/redoc")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(".api-content h2"))); err != nil {
		t.Fatalf("Redoc did not render: %v", err)
	}
	menu, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".menu-content")))
	if err != nil {
		t.Fatal(err)
	}
	content, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".api-content")))
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range []string{"GUIDE", "PETS", "STORE"} {
		if !strings.Contains(menu, group) {
			t.Errorf("Redoc's menu does not show the tag group %s:\n%s", group, menu)
		}
	}
	// The guide, first in the menu, holds the rules every operation shares.
	if i := strings.Index(menu, "GUIDE"); i < 0 || i > strings.Index(menu, "PETS") || !strings.Contains(content, "Plans and rate limits") {
		t.Errorf("Redoc does not show the guide first, with its rules:\n%s", menu)
	}
	for _, op := range []string{"List animals", "Add an animal", "Get an animal (deprecated)", "List categories",
		"List store orders", "Place a store order", "Get a store order"} {
		if !strings.Contains(content, op) {
			t.Errorf("Redoc does not show the operation %q", op)
		}
	}
	if off, err := log.offsite(ctx, s.URL); err != nil || len(off) > 0 {
		t.Fatalf("Redoc reached outside the service: %v %v", off, err)
	}
	saveScreenshot(t, ctx, "redoc")
}

// saveScreenshot keeps what the browser shows under the test's artifact folder (kept with go
// test -artifacts).
func saveScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !headless.KeepsArtifacts() {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

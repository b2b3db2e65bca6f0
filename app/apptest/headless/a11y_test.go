package headless

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// The admin pages' browser tests pass when Axe finds nothing, so it must find what is there: a
// page with an image without a text alternative and grey text on grey, whose policy allows no
// script at all.
func TestAxeReportsAPagesAccessibilityFaults(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
		_, _ = w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>Faults</title></head><body><main>
<h1>Faults</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><p style="color:#aaa;background:#bbb">Hard to read</p>
</main></body></html>`))
	}))
	t.Cleanup(page.Close)
	ctx := Chromium(t, 800, 600)
	if err := chromedp.Do(ctx, chromedp.Navigate(page.URL)); err != nil {
		t.Fatal(err)
	}
	violations, err := Axe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range violations {
		ids = append(ids, v.ID)
	}
	if !slices.Contains(ids, "image-alt") || !slices.Contains(ids, "color-contrast") {
		t.Fatalf("axe-core found %v, want image-alt and color-contrast", ids)
	}
}

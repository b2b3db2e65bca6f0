// Package headless drives a headless Chromium for the browser tests and checks the pages it shows
// with axe-core. It is apart from apptest so that tests without a browser, the fuzz targets above
// all, do not build chromedp and the DevTools protocol.
package headless

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium (or $CHROMIUM); without it a browser test skips, except
// under CI, where a missing browser fails it.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil { // #nosec G703 -- the browser the test machine's own environment names
				return p
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		tb.Fatal("Chromium is required under CI (apt-get install chromium) and was not found")
	}
	tb.Skip("Chromium not found (install Debian's chromium or set CHROMIUM): browser test skipped")
	return ""
}

// hangBound ends a browser test whose page never loads, rather than leaving it to go test's
// -timeout. It bounds a hang, not the pages' speed, so it is generous: the admin walk-through
// takes about 30 s alone, and took over two minutes beside CI's checks on a machine with cold
// caches (where a bound of 2 minutes failed it).
const hangBound = 10 * time.Minute

// Chromium starts a headless Chromium for the test, with the flags that keep it off this
// machine's closed network, and returns its started browser context, bounded by hangBound; it
// stops when the test ends. The first action starts the browser, so it runs here, before the
// bound starts.
func Chromium(tb testing.TB, width, height int) context.Context {
	tb.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath(tb)),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(width, height),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("start Chromium: %v", err)
	}
	ctx, cancelHang := context.WithTimeout(ctx, hangBound)
	tb.Cleanup(cancelHang)
	return ctx
}

// KeepsArtifacts reports whether go test runs with -artifacts, which keeps what tests write to
// their ArtifactDir. Without it that folder is deleted with the test, so a browser test takes
// no screenshots: they cost a full-page paint and a PNG encoding each, and nobody would see them.
func KeepsArtifacts() bool {
	f := flag.Lookup("test.artifacts")
	return f != nil && f.Value.String() == "true"
}

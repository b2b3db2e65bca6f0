package headless

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core, the accessibility checker, copied unchanged from npm's axe-core@4.14.1
// (axe.min.js of the tarball, integrity sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==;
// file sha256 29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c), under the
// MPL-2.0 (axe/LICENSE, and axe/LICENSE-3RD-PARTY.txt for what it bundles). Only tests use it,
// and nothing is downloaded when they run. To update: `npm pack axe-core@<version>`, copy those
// three files from package/, and change the version above.
//
//go:embed axe/axe.min.js
var axeSource string

// AxeViolation is one rule a page breaks, with the elements that break it.
type AxeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

func (v AxeViolation) String() string {
	return fmt.Sprintf("%s (%s): %s\n    %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    "))
}

// Axe checks the page the browser shows with axe-core's rules (WCAG 2.x A and AA, and its best
// practices) and returns what it breaks. The script is evaluated through the DevTools protocol,
// so the page's Content-Security-Policy, which allows no such script, is left as it is.
func Axe(ctx context.Context) ([]AxeViolation, error) {
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("if (typeof axe !== 'object') {\n"+axeSource+"\n}\ntypeof axe === 'object'"))
	if err != nil || !loaded {
		return nil, fmt.Errorf("load axe-core: %v", err)
	}
	return chromedp.Run(ctx, chromedp.Evaluate[[]AxeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.map(n => n.target.join(" ") + ": " + n.failureSummary.replace(/\s+/g, " ")),
	})))`, chromedp.EvalAwaitPromise))
}

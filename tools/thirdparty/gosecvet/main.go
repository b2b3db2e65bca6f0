// Command gosecvet is gosec as a go vet tool: make lint runs
// go vet -vettool=$(go -C tools/thirdparty tool -n gosecvet) ./..., so gosec reads the packages
// go vet has already compiled rather than loading and type-checking everything again, and the
// tools module needs none of the SDKs gosec's own command links for its optional AI autofix.
//
// It reports what gosec -exclude-generated reports: generated files are skipped (the analyzer's
// -exclude-generated flag, on by default) and `// #nosec G… -- reason` is honoured.
package main

import (
	"strings"

	"github.com/securego/gosec/v2/goanalysis"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() {
	a := goanalysis.Analyzer
	run := a.Run
	a.Run = func(pass *analysis.Pass) (any, error) {
		report := pass.Report
		pass.Report = func(d analysis.Diagnostic) {
			// go vet hands over each package with its tests, but gosec checks only the service's code.
			if !strings.HasSuffix(pass.Fset.Position(d.Pos).Filename, "_test.go") {
				report(d)
			}
		}
		return run(pass)
	}
	unitchecker.Main(a)
}

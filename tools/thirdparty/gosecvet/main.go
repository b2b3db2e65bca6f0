// Command gosecvet is gosec as a go vet tool: make lint runs
// go vet -vettool=$(go -C tools/thirdparty tool -n gosecvet) ./..., so gosec reads the packages
// go vet has already compiled rather than loading and type-checking everything again, and the
// tools module needs none of the SDKs gosec's own command links for its optional AI autofix.
//
// It reports what gosec -exclude-generated reports: generated files are skipped (the analyzer's
// -exclude-generated flag, on by default) and `// #nosec G… -- reason` is honoured.
package main

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"github.com/securego/gosec/v2/goanalysis"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() {
	a := goanalysis.Analyzer
	run := a.Run
	a.Run = func(pass *analysis.Pass) (any, error) {
		// go vet hands over each package with its tests, but gosec checks only the service's code.
		if !slices.ContainsFunc(pass.Files, func(f *ast.File) bool { return !isTest(pass, f.Pos()) }) {
			return nil, nil // only tests (an external test package): nothing to check
		}
		report := pass.Report
		pass.Report = func(d analysis.Diagnostic) {
			if !isTest(pass, d.Pos) {
				report(d)
			}
		}
		return run(pass)
	}
	unitchecker.Main(a)
}

func isTest(pass *analysis.Pass, pos token.Pos) bool {
	return strings.HasSuffix(pass.Fset.Position(pos).Filename, "_test.go")
}

// Command gosec is gosec's own analyzer (goanalysis) under x/tools' standalone driver: make lint
// runs it as $(go -C tools/thirdparty tool -n gosec) -test=false ./..., from the repository's root.
// gosec's command would also build the cloud and AI SDKs of its optional autofix, which make lint
// does not use. The driver loads the dependencies' types from their compiled export data, shared
// with go vet and staticcheck, where a go vet tool would type-check each of them from source.
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
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() {
	a := goanalysis.Analyzer
	run := a.Run
	a.Run = func(pass *analysis.Pass) (any, error) {
		// gosec checks only the service's code: make lint loads no tests (-test=false), and this
		// keeps it so when the driver is asked for them.
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
	singlechecker.Main(a)
}

func isTest(pass *analysis.Pass, pos token.Pos) bool {
	return strings.HasSuffix(pass.Fset.Position(pos).Filename, "_test.go")
}

// Command gosec is gosec's own analyzer (goanalysis) under x/tools' standalone driver: make lint
// runs it as $(go -C tools/thirdparty tool -n gosec) -test=false ./..., from the repository's root,
// so that it checks the service's code and not its tests. gosec's command would also build the
// cloud and AI SDKs of its optional autofix, which make lint does not use. The driver loads the
// dependencies' types from their compiled export data, shared with go vet and staticcheck, where a
// go vet tool would type-check each of them from source.
//
// It reports what gosec -exclude-generated reports: generated files are skipped (the analyzer's
// -exclude-generated flag, on by default) and `// #nosec G… -- reason` is honoured.
package main

import (
	"github.com/securego/gosec/v2/goanalysis"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() { singlechecker.Main(goanalysis.Analyzer) }

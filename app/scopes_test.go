package app_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/docs"
	"github.com/petstore/petstore/models"
)

// documentedOperations reads every operation of the published document with its
// x-required-scope ("" when it has none), keyed "METHOD /v1/path/{param}".
func documentedOperations(t *testing.T) map[string]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for path, item := range doc.Paths {
		for method, op := range item {
			if method == "parameters" {
				continue
			}
			scope, _ := op["x-required-scope"].(string)
			out[strings.ToUpper(method)+" /v1"+path] = scope
		}
	}
	return out
}

var fiberParam = regexp.MustCompile(`:(\w+)`)

// The scope each operation needs is declared twice: beside its route in routes.go (what the
// service checks) and as x-required-scope in the document (what clients read). Held to each
// other both ways: every route under /v1 is a documented operation, and every documented
// operation answers a key without its scope 403 naming exactly that scope, and lets a key with
// only that scope through.
func TestEveryOperationChecksTheScopeTheDocumentNames(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	documented := documentedOperations(t)

	var registered []string
	for _, r := range s.App.GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/v1/") || r.Method == http.MethodHead && documented["HEAD "+fiberParam.ReplaceAllString(r.Path, "{$1}")] == "" {
			continue // fiber answers HEAD wherever GET is; the document says so where it documents HEAD
		}
		op := r.Method + " " + fiberParam.ReplaceAllString(r.Path, "{$1}")
		registered = append(registered, op)
		if _, ok := documented[op]; !ok {
			t.Errorf("%s is registered in routes.go but not in the document", op)
		}
	}
	for op := range documented {
		if !slices.Contains(registered, op) {
			t.Errorf("%s is in the document but not registered", op)
		}
	}

	ops := make([]string, 0, len(documented))
	for op := range documented {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		// One scope, or several separated by " or ", any one of which will do.
		var alts []models.Scope
		for _, sc := range strings.Split(documented[op], " or ") {
			alts = append(alts, models.Scope(sc))
		}
		if slices.ContainsFunc(alts, func(sc models.Scope) bool { return !slices.Contains(models.Scopes, sc) }) {
			t.Errorf("%s: x-required-scope %q is not a scope", op, documented[op])
			continue
		}
		method, path, _ := strings.Cut(op, " ")
		path = regexp.MustCompile(`\{\w+\}`).ReplaceAllString(path, "1")
		var others []models.Scope
		for _, sc := range models.Scopes {
			if !slices.Contains(alts, sc) {
				others = append(others, sc)
			}
		}
		named := strings.ReplaceAll(documented[op], " or ", " ")
		_, without := keyFor(t, s, "without "+named, 0, others...)

		// Bodies and parameters do not matter to the scope, which is checked first.
		res := s.Invalid().As(without).Do(t, s.NewRequest(t, method, path, nil))
		want := `Bearer realm="petstore", error="insufficient_scope", scope="` + named + `"`
		if res.StatusCode != http.StatusForbidden || res.Header.Get("WWW-Authenticate") != want {
			t.Errorf("%s with every scope but %s: %d, WWW-Authenticate %q; want 403 and %q (routes.go must declare need(%q))",
				op, named, res.StatusCode, res.Header.Get("WWW-Authenticate"), want, named)
		}
		for _, scope := range alts {
			_, only := keyFor(t, s, "only "+string(scope), 0, scope)
			if res := s.Invalid().As(only).Do(t, s.NewRequest(t, method, path, nil)); res.StatusCode == http.StatusForbidden {
				t.Errorf("%s with only %s: 403 %s; routes.go needs another scope than the document says", op, scope, res.Body)
			}
		}
	}
}

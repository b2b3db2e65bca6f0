package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// serviceFacts are what the document states that only the service's code knows. They are read
// from the source of package routes (and the constants of package models it names) rather than
// imported: routes embeds the generated documents, and the generator must build without them.
type serviceFacts struct {
	// errorCodes are every code an Error body can carry: the keys of routes' statusOfCode and
	// the values of its codeOfStatus, sorted.
	errorCodes []string
	// idempotencyKeyPattern is the syntax routes accepts in the Idempotency-Key header.
	idempotencyKeyPattern string
}

// readService reads the facts from the Go files (tests aside) of the routes and models folders.
func readService(routesDir, modelsDir string) (serviceFacts, error) {
	fset := token.NewFileSet()
	routes, err := parseDir(fset, routesDir)
	if err != nil {
		return serviceFacts{}, err
	}
	models, err := parseDir(fset, modelsDir)
	if err != nil {
		return serviceFacts{}, err
	}
	consts := stringConsts(routes, "")
	for name, v := range stringConsts(models, "models.") {
		consts[name] = v
	}
	value := func(e ast.Expr) (string, error) {
		var name string
		switch e := e.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(e.Value); err == nil {
				return s, nil
			}
		case *ast.Ident:
			name = e.Name
		case *ast.SelectorExpr:
			if pkg, ok := e.X.(*ast.Ident); ok {
				name = pkg.Name + "." + e.Sel.Name
			}
		}
		if v, ok := consts[name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("%s: not a string constant of routes or models", fset.Position(e.Pos()))
	}

	var facts serviceFacts
	var errs []string
	seen := map[string]bool{}
	addCode := func(e ast.Expr) {
		code, err := value(e)
		if err != nil {
			errs = append(errs, err.Error())
		} else if !seen[code] {
			seen[code] = true
			facts.errorCodes = append(facts.errorCodes, code)
		}
	}
	for _, kv := range mapEntries(routes, "statusOfCode") {
		addCode(kv.Key)
	}
	for _, kv := range mapEntries(routes, "codeOfStatus") {
		addCode(kv.Value)
	}
	if len(facts.errorCodes) == 0 {
		errs = append(errs, "no error codes: routes must map them in statusOfCode and codeOfStatus")
	}
	slices.Sort(facts.errorCodes)
	if p, ok := consts["idempotencyKeyPattern"]; ok {
		facts.idempotencyKeyPattern = p
	} else {
		errs = append(errs, "routes declares no constant idempotencyKeyPattern")
	}
	if len(errs) > 0 {
		return serviceFacts{}, fmt.Errorf("reading %s: %s", routesDir, strings.Join(errs, "; "))
	}
	return facts, nil
}

func parseDir(fset *token.FileSet, dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	return files, nil
}

// stringConsts are the package-level constants whose value is a string literal, by name.
func stringConsts(files []*ast.File, prefix string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							out[prefix+name.Name] = s
						}
					}
				}
			}
		}
	}
	return out
}

// mapEntries are the entries of the map literal assigned to the package-level variable name.
func mapEntries(files []*ast.File, name string) []*ast.KeyValueExpr {
	var out []*ast.KeyValueExpr
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name != name || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.CompositeLit); ok {
						for _, el := range lit.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								out = append(out, kv)
							}
						}
					}
				}
			}
		}
	}
	return out
}

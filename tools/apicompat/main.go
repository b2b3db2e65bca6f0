// Command apicompat is the breaking-change gate of the API: it compares the generated document
// (docs/openapi.json) with the document of the last release kept in docs/releases/<version>/ and
// fails when a change would break a client that followed that release. oasdiff finds the
// changes and explains each one; this program picks the release and tells oasdiff what the
// document's x-stability marks mean:
//
//   - an operation without a mark is stable: any breaking change fails, and removing it needs a
//     deprecation with a sunset (x-sunset) at least 365 days after the change that deprecates it;
//   - beta is checked like stable, but its deprecation notice is 90 days;
//   - experimental may change in any release: its operations are not checked.
//
// The marks of the last release decide: an operation stable there stays checked even if the
// new document marks it experimental, and that new mark is itself reported as a break.
//
// A finding may be accepted only where the document catches up with what the service already
// did (it always refused such requests): tools/apicompat/accepted/<release>.txt lists each,
// with the reason, in oasdiff's own words. Such a file concerns one release and is left
// behind when the next one is kept.
//
// `make api-compat` runs it; it needs oasdiff's path (-oasdiff), which the Makefile takes from
// the pinned tool.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// Deprecation notices, in days, before a stable or a beta operation may be removed.
const (
	stableNoticeDays = 365
	betaNoticeDays   = 90
)

// oasdiffLevels are oasdiff's x-stability-level for this API's x-stability marks: alpha is
// below oasdiff's default threshold, so experimental operations are left out.
var oasdiffLevels = map[string]string{"experimental": "alpha", "beta": "beta"}

type gate struct {
	doc, releases, accepted, oasdiff string
	out                              io.Writer
}

func main() {
	var g gate
	flag.StringVar(&g.doc, "doc", "docs/openapi.json", "the generated document")
	flag.StringVar(&g.releases, "releases", "docs/releases", "the released documents, one folder per version")
	flag.StringVar(&g.accepted, "accepted", "tools/apicompat/accepted", "accepted findings, one file per release")
	flag.StringVar(&g.oasdiff, "oasdiff", "", "the oasdiff executable")
	flag.Parse()
	g.out = os.Stdout
	code, err := g.run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicompat:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

// run compares the documents and returns oasdiff's exit status: 0 when nothing breaks.
func (g gate) run() (int, error) {
	if g.oasdiff == "" {
		return 0, errors.New("-oasdiff: the path of the oasdiff executable is required")
	}
	version, err := lastRelease(g.releases)
	if err != nil {
		return 0, err
	}
	work, err := os.MkdirTemp("", "apicompat")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)

	// oasdiff names the documents as it was given them: give it the repository's names.
	base := filepath.Join("docs", "releases", version, "openapi.json")
	revision := filepath.Join("docs", "openapi.json")
	if err := translate(filepath.Join(g.releases, version, "openapi.json"), filepath.Join(work, base)); err != nil {
		return 0, err
	}
	if err := translate(g.doc, filepath.Join(work, revision)); err != nil {
		return 0, err
	}
	args := []string{"breaking", base, revision, "--fail-on", "ERR", "--color", "never",
		"--deprecation-days-stable", strconv.Itoa(stableNoticeDays), "--deprecation-days-beta", strconv.Itoa(betaNoticeDays)}
	accepted, err := filepath.Abs(filepath.Join(g.accepted, version+".txt"))
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(accepted); err == nil {
		args = append(args, "--err-ignore", accepted)
	}
	fmt.Fprintf(g.out, "%s against release %s: breaking changes to stable and beta operations\n", g.doc, version)

	cmd := exec.Command(g.oasdiff, args...) // #nosec G204 -- the pinned tool the Makefile names
	cmd.Dir = work
	cmd.Stdout, cmd.Stderr = g.out, g.out
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}

var semver = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)$`)

// lastRelease is the highest version (semantic version order, not the order of names) among
// the folders of dir that hold an openapi.json.
func lastRelease(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var last []int
	var name string
	for _, e := range entries {
		m := semver.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "openapi.json")); err != nil {
			continue
		}
		v := make([]int, 3)
		for i := range v {
			if v[i], err = strconv.Atoi(m[i+1]); err != nil {
				return "", fmt.Errorf("%s: %w", e.Name(), err)
			}
		}
		if last == nil || slices.Compare(v, last) > 0 {
			last, name = v, e.Name()
		}
	}
	if name == "" {
		return "", fmt.Errorf("no released document in %s (want %s/<major.minor.patch>/openapi.json)", dir, dir)
	}
	return name, nil
}

// translate copies the document at from to to, giving each operation marked x-stability the
// matching x-stability-level that oasdiff reads.
func translate(from, to string) error {
	raw, err := os.ReadFile(from) // #nosec G304 -- a document of this repository
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			op, ok := op.(map[string]any)
			if !ok || op["x-stability"] == nil {
				continue
			}
			level, ok := oasdiffLevels[fmt.Sprint(op["x-stability"])]
			if !ok {
				return fmt.Errorf("%s: %s %s: x-stability %v is none of experimental, beta", from, method, path, op["x-stability"])
			}
			op["x-stability-level"] = level
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o750); err != nil {
		return err
	}
	return os.WriteFile(to, out, 0o600)
}

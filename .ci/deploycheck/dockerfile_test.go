// Package deploycheck checks the deployment files with the tools' own code, since no container
// engine runs in CI: buildkit's Dockerfile parser and linter (the rules of `docker build
// --check`), and compose-go (the loader of `docker compose`).
package deploycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerui"
	digest "github.com/opencontainers/go-digest"
)

// repoRoot is the service's repository, two folders up from this module.
const repoRoot = "../.."

func readRepoFile(t *testing.T, name string) []byte {
	t.Helper()
	dt, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

// standInImages answers buildkit's questions about base images without a registry: each base
// image's configuration as its publisher ships it (the parts the rules and the final image's
// configuration depend on: platform, environment, user, working directory).
type standInImages struct{}

func (standInImages) ResolveImageConfig(_ context.Context, ref string, _ sourceresolver.Opt) (string, digest.Digest, []byte, error) {
	cfg := map[string]any{
		"Env": []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
	}
	switch {
	case strings.Contains(ref, "golang:"):
		cfg = map[string]any{
			"Env": []string{
				"PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				"GOLANG_VERSION=1.26.8", "GOTOOLCHAIN=local", "GOPATH=/go",
			},
			"WorkingDir": "/go",
			"Cmd":        []string{"bash"},
		}
	case strings.Contains(ref, "distroless/"):
		cfg = map[string]any{
			"Env":        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
			"User":       "65532",
			"WorkingDir": "/home/nonroot",
		}
	}
	dt, err := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux", "config": cfg,
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{}}})
	return ref, digest.FromBytes(dt), dt, err
}

func convertOpt(dt []byte) dockerfile2llb.ConvertOpt {
	sm := llb.NewSourceMap(nil, "Dockerfile", "Dockerfile", dt)
	sm.Definition = &llb.Definition{}
	return dockerfile2llb.ConvertOpt{
		Config:       dockerui.Config{},
		MetaResolver: standInImages{},
		SourceMap:    sm,
	}
}

// lint runs every rule of `docker build --check`, the experimental ones included.
func lint(t *testing.T, dt []byte) []string {
	t.Helper()
	// A `# check=` directive in the file configures the rules; add experimental=all to it.
	if !bytes.Contains(dt, []byte("# check=")) {
		t.Fatal("the Dockerfile has no `# check=error=true` directive, so docker build would not fail on these warnings")
	}
	dt = regexp.MustCompile(`(?m)^# check=(.*)$`).ReplaceAll(dt, []byte("# check=$1;experimental=all"))
	res, err := dockerfile2llb.DockerfileLint(context.Background(), dt, convertOpt(dt))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if res.Error != nil {
		out = append(out, "build error: "+res.Error.Message)
	}
	for _, w := range res.Warnings {
		line := 0
		if w.Location != nil && len(w.Location.Ranges) > 0 {
			line = int(w.Location.Ranges[0].Start.Line)
		}
		out = append(out, w.RuleName+" (line "+strconv.Itoa(line)+"): "+w.Detail+" "+w.URL)
	}
	return out
}

func TestDockerfilePassesEveryLintRule(t *testing.T) {
	for _, w := range lint(t, readRepoFile(t, "Dockerfile")) {
		t.Error(w)
	}
}

// The harness itself must be able to fail: a Dockerfile with known faults yields their rules.
func TestLinterFindsTheFaultsOfABadDockerfile(t *testing.T) {
	bad := []byte("# check=error=true\nfrom golang:1.26 as Build\nMAINTAINER someone\nENV A b\nWORKDIR src\nCMD go run .\n")
	got := strings.Join(lint(t, bad), "\n")
	for _, rule := range []string{"ConsistentInstructionCasing", "StageNameCasing", "MaintainerDeprecated", "LegacyKeyValueFormat", "WorkdirRelativePath", "JSONArgsRecommended"} {
		if !strings.Contains(got, rule) {
			t.Errorf("the linter did not report %s; it said:\n%s", rule, got)
		}
	}
}

func stages(t *testing.T, dt []byte) []instructions.Stage {
	t.Helper()
	ast, err := parser.Parse(bytes.NewReader(dt))
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var (
	pinnedImage = regexp.MustCompile(`^[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$`)
	goDirective = regexp.MustCompile(`(?m)^go (\S+)$`)
)

func TestBaseImagesArePinnedByTagAndDigestAndGoMatchesGoMod(t *testing.T) {
	dt := readRepoFile(t, "Dockerfile")
	st := stages(t, dt)
	if len(st) < 2 || st[0].Name != "build" {
		t.Fatalf("want a multi-stage Dockerfile whose first stage is named build; stages: %d", len(st))
	}
	for _, s := range st {
		if !pinnedImage.MatchString(s.BaseName) {
			t.Errorf("FROM %s: pin base images by version tag and digest (image:tag@sha256:...)", s.BaseName)
		}
	}
	m := goDirective.FindSubmatch(readRepoFile(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	if want := "golang:" + string(m[1]) + "-"; !strings.HasPrefix(st[0].BaseName, want) {
		t.Errorf("build stage FROM %s: want the Go of go.mod's go line (%s...), or the build fails under GOTOOLCHAIN=local", st[0].BaseName, want)
	}
}

// The final image's configuration, as buildkit computes it: what `docker inspect` would show.
func TestImageRunsTheBinaryAsNonRootWithAHealthCheck(t *testing.T) {
	dt := readRepoFile(t, "Dockerfile")
	res, err := dockerfile2llb.Dockerfile2LLB(context.Background(), dt, convertOpt(dt))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Image.Config
	if c.User == "" || c.User == "root" || strings.HasPrefix(c.User, "0") {
		t.Errorf("USER %q: the image must run as a non-root user", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/petstore"}) || !slices.Equal(c.Cmd, []string{"serve"}) {
		t.Errorf("ENTRYPOINT %q CMD %q, want [/petstore] [serve]", c.Entrypoint, c.Cmd)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("EXPOSE %v, want only 8080/tcp (metrics stay unexposed unless configured)", c.ExposedPorts)
	}
	if !slices.Contains(c.Env, "PETSTORE_ADDR=:8080") {
		t.Errorf("ENV %q: want PETSTORE_ADDR=:8080, the exposed port", c.Env)
	}
	if hc := c.Healthcheck; hc == nil || !slices.Equal(hc.Test, []string{"CMD", "/petstore", "healthcheck"}) {
		t.Errorf("HEALTHCHECK %+v, want CMD [/petstore healthcheck] (exec form: the image has no shell)", hc)
	}
}

package deploycheck

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// TestBuildStageMakesAWorkingBinaryFromACleanCopy runs the Dockerfile's build stage, instruction
// by instruction as the Dockerfile says them, on a clean copy of the committed tree (git archive
// HEAD: what a CI checkout holds) less what .dockerignore excludes, with this machine's Go
// standing in for the image's. It proves
// that the COPY sources exist and are not excluded by .dockerignore, that the RUN lines succeed,
// and that the binary they make is static, stripped, trimmed, version-stamped, and serves.
func TestBuildStageMakesAWorkingBinaryFromACleanCopy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src := t.TempDir()
	archive := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive --format=tar HEAD | tar -x -C "$2"`, "sh", repoRoot, src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive HEAD: %v\n%s", err, out)
	}
	dt, err := os.ReadFile(filepath.Join(src, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	ignored := dockerignore(t, src)
	// The build context, as docker sends it: without what .dockerignore excludes.
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == src {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if ex, _ := ignored.MatchesOrParentMatches(filepath.ToSlash(rel)); ex {
			if d.IsDir() {
				defer os.RemoveAll(path)
				return filepath.SkipDir
			}
			return os.Remove(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	const version = "ci-build-check"
	env := baseEnv()
	env = append(env, "VERSION="+version)
	build := stages(t, dt)[0]
	workdirSet := false
	for _, cmd := range build.Commands {
		switch c := cmd.(type) {
		case *instructions.WorkdirCommand:
			// The emulation treats the work directory as the context root; that holds while the
			// stage sets it once, before copying the context into it.
			if workdirSet {
				t.Fatalf("line %d: a second WORKDIR; extend this emulation", c.Location()[0].Start.Line)
			}
			workdirSet = true
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				env = append(env, kv.Key+"="+kv.Value)
			}
		case *instructions.ArgCommand:
			for _, a := range c.Args {
				if a.Key != "VERSION" && a.Value != nil {
					env = append(env, a.Key+"="+*a.Value)
				}
			}
		case *instructions.CopyCommand:
			if c.From != "" || (c.DestPath != "." && c.DestPath != "./") {
				t.Fatalf("line %d: COPY %v %s: the emulation copies only from the context into the work directory",
					c.Location()[0].Start.Line, c.SourcePaths, c.DestPath)
			}
			for _, p := range c.SourcePaths {
				if ex, _ := ignored.MatchesOrParentMatches(p); ex && p != "." {
					t.Errorf("COPY %s: excluded by .dockerignore", p)
				} else if _, err := os.Stat(filepath.Join(src, p)); err != nil {
					t.Errorf("COPY %s: not in a clean checkout: %v", p, err)
				}
			}
		case *instructions.RunCommand:
			if !c.PrependShell || len(c.FlagsUsed) > 0 {
				t.Fatalf("line %d: the emulation runs shell-form RUN lines without flags", c.Location()[0].Start.Line)
			}
			line := strings.Join(c.CmdLine, " ")
			run := exec.CommandContext(ctx, "sh", "-c", line)
			run.Dir, run.Env = src, env
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("RUN %s: %v\n%s", line, err, out)
			}
			t.Logf("RUN %s\n%s", line, out)
		default:
			t.Fatalf("line %d: %s in the build stage: extend this emulation", cmd.Location()[0].Start.Line, cmd.Name())
		}
	}

	bin := filepath.Join(src, "petstore")
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "petstore "+version {
		t.Fatalf("petstore version: %q, %v; want %q", out, err, "petstore "+version)
	}
	checkStaticStrippedTrimmed(t, bin, src)
	checkServesAndPassesItsHealthCheck(t, ctx, bin)
}

// baseEnv is the little of this machine's environment a build needs; GOFLAGS and CGO settings
// of the developer's shell stay out, as they are not in the image.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GONOSUMDB", "GOSUMDB", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func dockerignore(t *testing.T, dir string) *patternmatcher.PatternMatcher {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ".dockerignore"))
	if err != nil {
		t.Fatalf(".dockerignore is not committed: %v", err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{".git", "*.db"} {
		found := false
		for _, p := range patterns {
			found = found || p == must
		}
		if !found {
			t.Errorf(".dockerignore does not exclude %s", must)
		}
	}
	m, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func checkStaticStrippedTrimmed(t *testing.T, bin, srcDir string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has a dynamic loader (PT_INTERP): not static, it will not start on distroless/static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v", libs)
	}
	if f.Section(".symtab") != nil {
		t.Error("the binary has a symbol table: not stripped (-ldflags -s)")
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(srcDir)) {
		t.Errorf("the binary contains the build directory %s: not built with -trimpath", srcDir)
	}
}

// checkServesAndPassesItsHealthCheck starts the binary as the image would (serve, on the
// embedded SQLite), runs the image's HEALTHCHECK command against it, and stops it with SIGTERM.
func checkServesAndPassesItsHealthCheck(t *testing.T, ctx context.Context, bin string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := []string{"PETSTORE_ADDR=" + addr, "PETSTORE_DB_PATH=" + filepath.Join(t.TempDir(), "p.db"), "PETSTORE_LOG_FORMAT=text"}

	serve := exec.CommandContext(ctx, bin, "serve")
	serve.Env = env
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	logs := bufio.NewScanner(stderr)
	var seen []string
	for logs.Scan() {
		seen = append(seen, logs.Text())
		if strings.Contains(logs.Text(), "msg=listening") {
			break
		}
	}
	go func() {
		for logs.Scan() {
		}
	}()
	hc := exec.CommandContext(ctx, bin, "healthcheck", "-ready")
	hc.Env = env
	if out, err := hc.CombinedOutput(); err != nil {
		t.Errorf("petstore healthcheck -ready: %v\n%s\nserver log:\n%s", err, out, strings.Join(seen, "\n"))
	}
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("petstore serve after SIGTERM: %v, want a clean exit", err)
	}
}

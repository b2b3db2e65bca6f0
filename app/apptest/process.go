package apptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
)

var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Binary builds the service's real binary, once per test process, and returns its path, for
// tests that signal, kill and restart the process. RemoveBinary deletes it when the tests end.
func Binary(tb testing.TB) string {
	tb.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "petstore-test-bin-"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "petstore")
		// As make build and the Dockerfile build it (static, trimmed), so the tests run that
		// binary, and its compilation is shared with theirs and CI's checks. go test puts its
		// own go first on PATH.
		cmd := exec.Command("go", "build", "-trimpath", "-o", binary.path, "github.com/petstore/petstore") // #nosec G204 -- this module, into a folder of the tests' own
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binary.err != nil {
		tb.Fatal(binary.err)
	}
	return binary.path
}

// RemoveBinary deletes the binary Binary built, if any; a package's TestMain calls it last.
func RemoveBinary() {
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
}

// Process is the real binary serving on a loopback port.
type Process struct {
	// URL is the service's base address.
	URL string
	// Logs holds everything the process wrote to stderr (its log) and stdout.
	Logs *LogBuffer
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// EnvFor returns the environment variables that select cfg's database, for StartProcess.
func EnvFor(store testenv.Store, tb testing.TB) map[string]string {
	tb.Helper()
	cfg := Config(tb, store)
	if cfg.DatabaseURL != "" {
		return map[string]string{"DATABASE_URL": cfg.DatabaseURL}
	}
	return map[string]string{"PETSTORE_DB_PATH": cfg.DBPath}
}

// StartProcess runs bin serve with env (and nothing else of the test's environment but PATH) on a
// fresh loopback port, and waits until it listens. The process is killed when the test ends.
func StartProcess(tb testing.TB, bin string, env map[string]string) *Process {
	tb.Helper()
	cmd := exec.Command(bin, "serve") // #nosec G204 -- the binary the test just built
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PETSTORE_ADDR=127.0.0.1:0"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &Process{Logs: &LogBuffer{}, cmd: cmd, done: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout = p.Logs
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = io.WriteString(p.Logs, line+"\n")
			var m struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Msg == "listening" && m.Addr != "" {
				select {
				case listening <- m.Addr:
				default:
				}
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	select {
	case addr := <-listening:
		p.URL = "http://" + addr
	case <-p.done:
		tb.Fatalf("petstore exited before listening: %v\n%s", p.err, p.Logs)
	case <-time.After(60 * time.Second):
		tb.Fatalf("petstore did not listen within 60s:\n%s", p.Logs)
	}
	return p
}

// Signal sends sig to the process.
func (p *Process) Signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		tb.Fatal(err)
	}
}

// Wait waits up to limit for the process to exit and returns its exit code; it fails the test
// when the process is still running then.
func (p *Process) Wait(tb testing.TB, limit time.Duration) int {
	tb.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		tb.Fatalf("petstore still running %s later:\n%s", limit, p.Logs)
	}
	return p.cmd.ProcessState.ExitCode()
}

// Kill ends the process with SIGKILL, as a crash would, and waits until it is gone.
func (p *Process) Kill(tb testing.TB) {
	tb.Helper()
	p.Signal(tb, syscall.SIGKILL)
	<-p.done
}

// Contains reports whether the process logged s anywhere.
func (p *Process) Contains(s string) bool { return strings.Contains(p.Logs.String(), s) }

// CreateKey issues an API key with the binary's own command (petstore keys create) on env's
// database: an Enterprise key whose limits no test reaches. It returns the plain key.
func CreateKey(tb testing.TB, bin string, env map[string]string) string {
	tb.Helper()
	limit := fmt.Sprint(DefaultKeyLimit)
	cmd := exec.Command(bin, "keys", "create", "--name", "apptest", "--plan", "enterprise", // #nosec G204 -- the binary the test just built
		"--per-minute", limit, "--per-day", limit)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("petstore keys create: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// KeyClient is an HTTP client that sends key as the bearer token with every request.
func KeyClient(key string, timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: bearer{key: key, next: http.DefaultTransport}}
}

type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.next.RoundTrip(req)
}

package app_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
)

// repoRoot is the repository's folder, seen from this package's.
const repoRoot = ".."

// quickStartEnv is all of the test's environment a newcomer's shell shares: the tools on PATH
// and a home. No DATABASE_URL or other setting of the test's own reaches the commands.
func quickStartEnv(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, extra...)
}

// The README's Quick start, run as a newcomer runs it, step by step: its first sh block builds
// the binary, its second starts the service, whose standard error shows the admin password as the
// Quick start's text block does, and the next blocks send requests from another shell; then the
// API guide's examples go on in that shell, and Ctrl-C stops the service. The service listens on
// a free port given through PETSTORE_ADDR, which the requests' "localhost:8080" is changed to.
// Every curl must answer 2xx.
func TestTheQuickStartAndTheAPIGuidesExamplesWorkAsWritten(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is required under CI (apt-get install curl) and was not found")
		}
		t.Skip("curl not found: the README's Quick start is not run")
	}
	readme := readMarkdown(t, filepath.Join(repoRoot, "README.md"))
	blocks := readme.sectionBlocks("Quick start", "sh")
	if len(blocks) < 3 {
		t.Fatalf("README.md's Quick start has %d sh blocks; want the build, the start of the service, then requests", len(blocks))
	}
	build, serve := strings.TrimSpace(blocks[0].text), strings.TrimSpace(blocks[1].text)
	if strings.Contains(build, "\n") || strings.Contains(serve, "\n") {
		t.Fatalf("README.md:%d and %d: want one command to build and one to start the service; got\n%s\n%s", blocks[0].line, blocks[1].line, build, serve)
	}
	password := readme.sectionBlocks("Quick start", "text")
	if len(password) != 1 || !strings.Contains(password[0].text, "<generated>") {
		t.Fatalf("README.md's Quick start has %d text blocks; want one, the admin password's lines with <generated> for the password", len(password))
	}
	dir := t.TempDir()
	buildQuickStart(t, build, dir)

	port := freePort(t)
	service := startQuickStartService(t, serve, dir, port)
	defer service.kill()

	// What the service printed must read as the README shows it, whatever password it made.
	shown := regexp.QuoteMeta(strings.TrimSpace(password[0].text))
	shown = strings.Replace(shown, regexp.QuoteMeta("<generated>"), `\S{12,}`, 1)
	if !regexp.MustCompile(`(?m)^` + shown + `$`).MatchString(service.logs.String()) {
		t.Errorf("README.md:%d: the service's first start does not print the admin password as the README shows:\n%s\nit printed:\n%s", password[0].line, password[0].text, service.logs)
	}

	for _, b := range blocks[2:] {
		runCurls(t, "README.md", b, forPort(t, "README.md", b, port), dir)
	}

	// The API guide's examples go on in the Quick start's shell, where $KEY holds a key.
	issue := exec.Command(filepath.Join(dir, "petstore"), "keys", "create", "--name", "guide", "--plan", "pro") // #nosec G204 -- the binary the test built
	issue.Dir, issue.Env = dir, quickStartEnv()
	key, err := issue.Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	guide := readMarkdown(t, filepath.Join(repoRoot, "docs", "api-guide.md"))
	var examples []codeBlock
	for _, section := range []string{"Changing and deleting pets", "Store orders and the pet lifecycle"} {
		examples = append(examples, guide.sectionBlocks(section, "sh")...)
	}
	if len(examples) < 2 {
		t.Fatalf("docs/api-guide.md has %d sh blocks of requests; want those of changing pets and of orders", len(examples))
	}
	for _, b := range examples {
		runCurls(t, "docs/api-guide.md", b, forPort(t, "docs/api-guide.md", b, port), dir, "KEY="+strings.TrimSpace(string(key)))
	}

	// Step 5: Ctrl-C (SIGINT to the terminal's foreground process group) stops it, cleanly.
	if err := service.interrupt(30 * time.Second); err != nil {
		t.Errorf("Ctrl-C: %v\n%s", err, service.logs)
	}
}

// forPort points a block's requests at the test's port.
func forPort(t *testing.T, file string, b codeBlock, port string) string {
	t.Helper()
	script := strings.ReplaceAll(b.text, "localhost:8080", "localhost:"+port)
	if !strings.Contains(script, "localhost:"+port) {
		t.Errorf("%s:%d: the requests do not go to localhost:8080", file, b.line)
	}
	return script
}

// buildQuickStart runs the README's build command in the repository's folder, with its -o
// output put in dir.
func buildQuickStart(t *testing.T, command, dir string) {
	t.Helper()
	args := strings.Fields(command)
	out := -1
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			out = i + 1
		}
	}
	if len(args) < 3 || args[0] != "go" || args[1] != "build" || out < 0 {
		t.Fatalf("README.md's Quick start builds with %q; want a go build with -o", command)
	}
	args[out] = filepath.Join(dir, args[out])
	cmd := exec.Command(args[0], args[1:]...) // #nosec G204 -- the README's own build command
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Quick start's build %q failed: %v\n%s", command, err, b)
	}
}

// quickStartService is the README's service, running in a process group of its own as in a
// terminal.
type quickStartService struct {
	cmd    *exec.Cmd
	logs   *apptest.LogBuffer
	exited chan error
}

// kill stops the service, if it still runs, and anything it started.
func (s *quickStartService) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// interrupt does what Ctrl-C does in the service's terminal and requires it to exit 0 within
// limit.
func (s *quickStartService) interrupt(limit time.Duration) error {
	if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT); err != nil {
		return err
	}
	select {
	case err := <-s.exited:
		s.exited <- err // for kill
		if err != nil {
			return fmt.Errorf("the service exited with %v", err)
		}
		return nil
	case <-time.After(limit):
		return fmt.Errorf("the service still runs %s after SIGINT", limit)
	}
}

// startQuickStartService runs serve in a shell in dir on port and waits until it answers
// /healthz.
func startQuickStartService(t *testing.T, serve, dir, port string) *quickStartService {
	t.Helper()
	cmd := exec.Command("bash", "-c", serve) // #nosec G204 -- the README's own command
	cmd.Dir = dir
	cmd.Env = quickStartEnv("PETSTORE_ADDR=127.0.0.1:" + port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &quickStartService{cmd: cmd, logs: &apptest.LogBuffer{}, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- cmd.Wait() }()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-s.exited:
			t.Fatalf("the Quick start's service (%q) exited before answering: %v\n%s", serve, err, s.logs)
		default:
		}
		if res, err := client.Get("http://127.0.0.1:" + port + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			s.kill()
			t.Fatalf("the Quick start's service (%q) did not answer /healthz within 60s:\n%s", serve, s.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// curlStatus is what runCurls has every curl write to standard error after its answer.
var curlStatus = regexp.MustCompile(`(?m)^README-CURL-STATUS (\d{3})$`)

// runCurls runs a block of file's commands as a shell script in dir, with env added to the
// shell's, stopping at the first that fails, and requires every curl in it to have answered 2xx.
func runCurls(t *testing.T, file string, b codeBlock, script, dir string, env ...string) {
	t.Helper()
	wrapped := "set -euo pipefail\n" +
		"curl() { command curl --write-out '%{stderr}\\nREADME-CURL-STATUS %{http_code}\\n' \"$@\"; }\n" +
		script
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", wrapped) // #nosec G204 -- the README's own commands
	cmd.Dir = dir
	cmd.Env = quickStartEnv(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	report := fmt.Sprintf("%s:%d:\n%s\nstandard output:\n%s\nstandard error:\n%s", file, b.line, script, &stdout, &stderr)
	if err != nil {
		t.Fatalf("the commands failed: %v\n%s", err, report)
	}
	want := len(regexp.MustCompile(`(?m)^curl `).FindAllString(script, -1))
	got := curlStatus.FindAllStringSubmatch(stderr.String(), -1)
	if len(got) != want || want == 0 {
		t.Fatalf("%d curl commands answered of %d\n%s", len(got), want, report)
	}
	var bad []string
	for i, m := range got {
		if status, _ := strconv.Atoi(m[1]); status < 200 || status > 299 {
			bad = append(bad, fmt.Sprintf("curl %d answered %d", i+1, status))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s; want 2xx\n%s", strings.Join(bad, ", "), report)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// What a command prints that changes from one run to the next: keys, their prefixes, times.
var (
	apiKeyText    = regexp.MustCompile(`psk_[a-z0-9]{8}_[a-z0-9]{52}`)
	keyPrefixText = regexp.MustCompile(`psk_[a-z0-9]{8}\b`)
	timeText      = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
)

func sameButVolatile(s string) string {
	s = apiKeyText.ReplaceAllString(s, "psk_<prefix>_<secret>")
	s = keyPrefixText.ReplaceAllString(s, "psk_<prefix>")
	return timeText.ReplaceAllString(s, "<time>")
}

// The console sessions of the README and the guides ("$ command" lines, each followed by what it
// prints on standard output) are run with the real binary on a new embedded database, and each
// command must print what the page shows, but for the keys and times that change on every run.
func TestTheGuidesCommandLineSessionsPrintWhatTheBinaryPrints(t *testing.T) {
	t.Parallel()
	pages := markdownPages(t)
	bin := apptest.Binary(t)
	sessions := 0
	for _, page := range pages {
		for _, s := range readMarkdown(t, page).blocks("console") {
			sessions++
			runConsoleSession(t, bin, page, s)
		}
	}
	if sessions == 0 {
		t.Fatal("neither the README nor a guide has a console block")
	}
}

// markdownPages are the README and the pages of docs/.
func markdownPages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, docs...)
}

func runConsoleSession(t *testing.T, bin, page string, s codeBlock) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "petstore")); err != nil {
		t.Fatal(err)
	}
	for _, step := range consoleSteps(s) {
		cmd := exec.Command("bash", "-c", step.command) // #nosec G204 -- the documentation's own commands
		cmd.Dir = dir
		cmd.Env = quickStartEnv()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s:%d: %s: %v\n%s", page, step.line, step.command, err, &stderr)
		}
		if got, want := sameButVolatile(stdout.String()), sameButVolatile(step.output); got != want {
			t.Errorf("%s:%d: %s prints\n%s\nwhere the page shows\n%s", page, step.line, step.command, &stdout, step.output)
		}
	}
}

// consoleStep is one command of a console block and the output the block shows for it.
type consoleStep struct {
	command, output string
	line            int
}

func consoleSteps(b codeBlock) []consoleStep {
	var steps []consoleStep
	for i, line := range strings.SplitAfter(b.text, "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, consoleStep{command: strings.TrimSpace(cmd), line: b.line + i})
		} else if len(steps) > 0 {
			steps[len(steps)-1].output += line
		}
	}
	return steps
}

// The names are split so that this file does not name them itself.
var (
	// outsidePaths are paths and files of the machines this project was first built on, which a
	// clone does not have.
	outsidePaths = regexp.MustCompile(`(?m)(?:^|[^\w./\n-])(/` + `work)\b|(\.\./` + `shared)|(service-` +
		`interface\.md|CONVENTIONS` + `\.md|STACK-` + `NOTES)`)
	// outsideWords are words every match above contains: the regular expressions only read the
	// files that have one (a few of the hundreds, and a few megabytes of scripts spared).
	outsideWords = []string{"/" + "work", "../" + "shared", "service-" + "interface", "CONVENTIONS" + ".md", "STACK-" + "NOTES", "DECISIONS" + ".md"}
)

// decisionsPage is the decisions page docs/design.md replaces; only design.md names it, as its
// origin.
var decisionsPage = regexp.MustCompile(`DECISIONS` + `\.md`)

// The repository stands on its own: no file in it (committed, or new and not ignored) sends a
// reader to a file outside it.
func TestNoFileNamesAPathOutsideTheRepository(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted, not yet committed
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 || !slices.ContainsFunc(outsideWords, func(w string) bool { return bytes.Contains(b, []byte(w)) }) {
			continue // binary, or nothing to look for
		}
		var found [][]int
		for _, m := range outsidePaths.FindAllSubmatchIndex(b, -1) {
			for g := 2; g < len(m); g += 2 { // the group that matched: the name without what precedes it
				if m[g] >= 0 {
					found = append(found, m[g:g+2])
				}
			}
		}
		if name != "docs/design.md" {
			found = append(found, decisionsPage.FindAllIndex(b, -1)...)
		}
		for _, m := range found {
			start := bytes.LastIndexByte(b[:m[0]], '\n') + 1
			end := len(b)
			if i := bytes.IndexByte(b[m[1]:], '\n'); i >= 0 {
				end = m[1] + i
			}
			line := bytes.Count(b[:m[0]], []byte("\n")) + 1
			t.Errorf("%s:%d names %q, outside the repository; cite docs/design.md instead:\n%s", name, line, b[m[0]:m[1]], b[start:end])
		}
	}
}

// Every relative link in the Markdown documents points at a file of the repository, and at one
// of its headings when it names one.
func TestEveryRelativeLinkInTheDocumentsResolves(t *testing.T) {
	t.Parallel()
	docs := append(markdownPages(t), filepath.Join(repoRoot, "CHANGELOG.md"))
	parsed := map[string]*markdownDoc{}
	parse := func(path string) *markdownDoc {
		if parsed[path] == nil {
			parsed[path] = readMarkdown(t, path)
		}
		return parsed[path]
	}
	for _, path := range docs {
		d := parse(path)
		for _, l := range d.links() {
			u, err := url.Parse(l.dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", d.where(l.line), l.dest, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // absolute
			}
			target := path
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(path), filepath.FromSlash(u.Path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: no file %s", d.where(l.line), l.dest, target)
					continue
				}
			}
			if u.Fragment == "" {
				continue
			}
			if filepath.Ext(target) != ".md" {
				t.Errorf("%s: link %q: a heading in a file that is not Markdown", d.where(l.line), l.dest)
				continue
			}
			if !parse(target).anchors()[u.Fragment] {
				t.Errorf("%s: link %q: %s has no heading #%s", d.where(l.line), l.dest, target, u.Fragment)
			}
		}
	}
}

package app_test

import (
	"bytes"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
)

// withPassword puts password into a database URL. The test server trusts local connections, so
// the password is carried (and could leak) without being checked.
func withPassword(t *testing.T, raw, password string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// leaks returns the lines of logs that contain one of the secrets.
func leaks(logs string, secrets ...string) []string {
	var out []string
	for _, line := range strings.Split(logs, "\n") {
		for _, s := range secrets {
			if strings.Contains(line, s) {
				out = append(out, line)
			}
		}
	}
	return out
}

func TestSecretsNeverReachTheLogs(t *testing.T) {
	bin := apptest.Binary(t)
	dbPassword := "db-pass-" + strings.Repeat("7", 12)
	env := apptest.EnvFor(apptest.Postgres, t)
	env["DATABASE_URL"] = withPassword(t, env["DATABASE_URL"], dbPassword)
	env["PETSTORE_LOG_LEVEL"] = "debug"

	// An API key issued with the command line; its log goes with the rest.
	var keyOut, keyLog bytes.Buffer
	cmd := exec.Command(bin, "keys", "create", "--name", "secrets", "--plan", "pro") // #nosec G204 -- the binary the test just built
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = &keyOut, &keyLog
	if err := cmd.Run(); err != nil {
		t.Fatalf("keys create: %v\n%s", err, keyLog.String())
	}
	key := strings.TrimSpace(keyOut.String())
	// A key of the right shape that was never issued: what a client that mistyped its key sends.
	forged := key[:len(key)-1] + map[bool]string{true: "a", false: "b"}[!strings.HasSuffix(key, "a")]
	// The part of a key after its last underscore is the secret; what comes before it (a
	// non-secret prefix) may be logged to say which key was used.
	secret := func(k string) string { return k[strings.LastIndex(k, "_")+1:] }
	secrets := []string{dbPassword, secret(key), secret(forged)}

	// A whole run: start, requests good and bad, with the key, a forged one and none, shutdown.
	p := apptest.StartProcess(t, bin, env)
	for _, presented := range []string{key, forged, ""} {
		for _, r := range []struct{ method, path, body string }{
			{"GET", "/healthz", ""}, {"GET", "/readyz", ""}, {"GET", "/v1/pets", ""},
			{"POST", "/v1/pets", `{"name":"Rex","categoryId":1}`}, {"POST", "/v1/pets", `{"name":`},
			{"GET", "/v1/pets?cursor=%%%", ""}, {"GET", "/v1/pets/abc", ""}, {"DELETE", "/v1/pets", ""},
		} {
			req, _ := http.NewRequest(r.method, p.URL+r.path, strings.NewReader(r.body))
			req.Header.Set("Content-Type", "application/json")
			if presented != "" {
				req.Header.Set("Authorization", "Bearer "+presented)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
	}
	p.Signal(t, syscall.SIGTERM)
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Logs)
	}
	logs := keyLog.String() + p.Logs.String()

	// The same URL on a server that does not answer: the error that stops the program names the
	// database, without its password.
	unreachable := withPassword(t, "postgres://postgres@127.0.0.1:1/test?sslmode=disable", dbPassword)
	cmd = exec.Command(bin, "migrate") // #nosec G204 -- the binary the test just built
	cmd.Env = []string{"DATABASE_URL=" + unreachable, "PETSTORE_DB_TIMEOUT=2s", "PETSTORE_LOG_LEVEL=debug"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil {
		t.Fatalf("migrate against a closed port succeeded:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "127.0.0.1:1") {
		t.Fatalf("the error does not name the database:\n%s", out.String())
	}
	logs += out.String()

	if leaked := leaks(logs, secrets...); len(leaked) > 0 {
		t.Fatalf("secrets in the logs:\n%s", strings.Join(leaked, "\n"))
	}
	if !strings.Contains(logs, `"msg":"request"`) || !strings.Contains(logs, "postgres://postgres:xxxxx@") {
		t.Fatalf("the run logged no requests, or not its redacted database URL; the search proves nothing:\n%s", logs)
	}
}

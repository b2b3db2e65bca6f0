package app_test

import (
	"bytes"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
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
	t.Parallel()
	bin := apptest.Binary(t)
	dbPassword := "db-pass-" + strings.Repeat("7", 12)
	env := apptest.EnvFor(testenv.Postgres, t)
	env["DATABASE_URL"] = withPassword(t, env["DATABASE_URL"], dbPassword)
	env["PETSTORE_LOG_LEVEL"] = "debug"
	adminPassword, staffPassword, wrongPassword := "Kestrel marmot fjord 29", "Lantern quokka birch 64", "wrong-pass-"+strings.Repeat("w", 9)
	env["PETSTORE_ADMIN_PASSWORD"] = adminPassword

	// The first start creates the admin account, with the password from the environment.
	p := apptest.StartProcess(t, bin, env)

	// The command line: a staff account and an API key; their logs go with the rest.
	var cliLog bytes.Buffer
	cli := func(stdin string, args ...string) string {
		var out bytes.Buffer
		cmd := exec.Command(bin, args...) // #nosec G204 -- the binary the test just built
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &cliLog
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, cliLog.String())
		}
		return out.String()
	}
	cli(staffPassword+"\n", "staff", "create", "--username", "sam", "--password-stdin")
	key := strings.TrimSpace(cli("", "keys", "create", "--name", "secrets", "--plan", "pro"))
	// A key of the right shape that was never issued: what a client that mistyped its key sends.
	forged := key[:len(key)-1] + map[bool]string{true: "a", false: "b"}[!strings.HasSuffix(key, "a")]
	// The part of a key after its last underscore is the secret; what comes before it (a
	// non-secret prefix) may be logged to say which key was used.
	secret := func(k string) string { return k[strings.LastIndex(k, "_")+1:] }
	secrets := []string{dbPassword, secret(key), secret(forged), adminPassword, staffPassword, wrongPassword}

	// A whole run: requests good and bad, with the key, a forged one and none, logins, shutdown.
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
	// Staff log in to the admin pages, with their passwords and a wrong one.
	for _, login := range []struct {
		username, password string
		status             int
	}{{"admin", adminPassword, 303}, {"sam", staffPassword, 303}, {"sam", wrongPassword, 401}, {"nobody", wrongPassword, 401}} {
		if status := adminLogin(t, p.URL, login.username, login.password); status != login.status {
			t.Fatalf("login as %s: %d, want %d", login.username, status, login.status)
		}
	}
	p.Signal(t, syscall.SIGTERM)
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Logs)
	}
	logs := cliLog.String() + p.Logs.String()

	// The same URL on a server that does not answer: the error that stops the program names the
	// database, without its password.
	unreachable := withPassword(t, "postgres://postgres@127.0.0.1:1/test?sslmode=disable", dbPassword)
	cmd := exec.Command(bin, "migrate") // #nosec G204 -- the binary the test just built
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

// adminLogin posts the admin login form, with its CSRF token, as a browser does, and returns the
// status of the answer.
func adminLogin(t *testing.T, base, username, password string) int {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(base + "/admin/login")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	token, _ := doc.Find(`input[name="_csrf"]`).Attr("value")
	res, err = client.PostForm(base+"/admin/login", url.Values{"username": {username}, "password": {password}, "_csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

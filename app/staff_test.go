package app_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func runWithStdin(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = app.Run(context.Background(), append([]string{"petstore"}, args...), func(k string) string { return env[k] },
		strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestStaffCreateMakesAnAccountThatCanLogIn(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		env := map[string]string{"DATABASE_URL": cfg.DatabaseURL, "PETSTORE_DB_PATH": cfg.DBPath}
		out, stderr, err := runWithStdin(t, env, "correct horse battery\n", "staff", "create", "--username", " Ann.Lee ", "--password-stdin", "--role", "admin")
		if err != nil || !strings.Contains(out, `created admin "ann.lee"`) {
			t.Fatalf("staff create: %v\nstdout %s\nstderr %s", err, out, stderr)
		}
		db := apptest.OpenDB(t, cfg)
		st, err := models.NewStaffStore(db).Authenticate(context.Background(), "ANN.LEE", "correct horse battery", "192.0.2.1")
		if err != nil || st.Role != models.RoleAdmin {
			t.Fatalf("log in as the new account: %v %+v", err, st)
		}
		if strings.Contains(st.PasswordHash, "horse") || !strings.HasPrefix(st.PasswordHash, "$2") {
			t.Fatalf("password stored as %q, want a bcrypt hash", st.PasswordHash)
		}
		if _, err := models.NewStaffStore(db).Authenticate(context.Background(), "ann.lee", "wrong password!", "192.0.2.1"); err != models.ErrBadLogin {
			t.Fatalf("wrong password: %v, want ErrBadLogin", err)
		}

		for _, tc := range []struct {
			name, stdin string
			args        []string
			mentions    string
		}{
			{"taken username", "another long password\n", []string{"--username", "ann.lee", "--password-stdin"}, "already taken"},
			{"short password", "short\n", []string{"--username", "bob", "--password-stdin"}, "at least 12"},
			{"no password on stdin", "", []string{"--username", "bob", "--password-stdin"}, "no password"},
			{"password not from stdin", "", []string{"--username", "bob"}, "--password-stdin"},
			{"bad role", "a long enough password\n", []string{"--username", "bob", "--password-stdin", "--role", "owner"}, "role"},
			{"bad username", "a long enough password\n", []string{"--username", "b o b", "--password-stdin"}, "username"},
		} {
			_, _, err := runWithStdin(t, env, tc.stdin, append([]string{"staff", "create"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.mentions)
			}
		}
	})
}

// listeningWriter collects a server's stderr and cancels its context once it is listening.
type listeningWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
}

func (w *listeningWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), `"msg":"listening"`) {
		w.cancel()
	}
	return len(p), nil
}

// startAndStop runs the service until it listens, then stops it, and returns its stderr.
func startAndStop(t *testing.T, env map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &listeningWriter{cancel: cancel}
	env["PETSTORE_ADDR"] = "127.0.0.1:0"
	if err := app.Run(ctx, []string{"petstore"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, w); err != nil {
		t.Fatalf("serve: %v\n%s", err, w.buf.String())
	}
	return w.buf.String()
}

var printedPassword = regexp.MustCompile(`password: (\S+)`)

func TestFirstStartCreatesAnAdminAndPrintsItsPasswordOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.db")
	env := map[string]string{"PETSTORE_DB_PATH": path}
	first := startAndStop(t, env)
	m := printedPassword.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first start printed no password:\n%s", first)
	}
	if second := startAndStop(t, env); strings.Contains(second, "password:") {
		t.Fatalf("second start printed a password again:\n%s", second)
	}
	cfg, _ := app.LoadConfig(func(k string) string { return env[k] })
	db := apptest.OpenDB(t, cfg)
	if _, err := models.NewStaffStore(db).Authenticate(context.Background(), "admin", m[1], "192.0.2.1"); err != nil {
		t.Fatalf("log in as admin with the printed password: %v", err)
	}
}

func TestFirstAdminPasswordCanComeFromTheEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": filepath.Join(t.TempDir(), "p.db"), "PETSTORE_ADMIN_PASSWORD": "a password from the env"}
	if out := startAndStop(t, env); strings.Contains(out, "a password from the env") || strings.Contains(out, "password: ") {
		t.Fatalf("the configured password was printed:\n%s", out)
	}
	cfg, _ := app.LoadConfig(func(k string) string { return env[k] })
	db := apptest.OpenDB(t, cfg)
	if _, err := models.NewStaffStore(db).Authenticate(context.Background(), "admin", "a password from the env", "192.0.2.1"); err != nil {
		t.Fatalf("log in as admin with PETSTORE_ADMIN_PASSWORD: %v", err)
	}
	if _, _, err := runWithStdin(t, map[string]string{"PETSTORE_ADMIN_PASSWORD": "short"}, "", "migrate"); err == nil || !strings.Contains(err.Error(), "PETSTORE_ADMIN_PASSWORD") {
		t.Fatalf("a short PETSTORE_ADMIN_PASSWORD: %v, want an error naming it", err)
	}
}

package app_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/petstore/petstore/app"
)

func run(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = app.Run(context.Background(), append([]string{"petstore"}, args...), func(k string) string { return env[k] },
		strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestBadConfigurationNamesTheVariable(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"DATABASE_URL":               "mysql://nope",
		"PETSTORE_DB_MAX_OPEN_CONNS": "many",
		"PETSTORE_DB_TIMEOUT":        "-1s",
		"PETSTORE_LOG_LEVEL":         "loud",
		"PETSTORE_PRODUCTION_URL":    "ftp://api.example.com",
		"PETSTORE_STAGING_URL":       "https://staging.example.com/v1",
		"PETSTORE_TIMEZONE":          "Mars/Olympus_Mons",
	} {
		_, _, err := run(t, map[string]string{name: value}, "migrate")
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s=%q: error %v, want one naming %s", name, value, err, name)
		}
	}
}

func TestMigrateIsIdempotentAndHelpSucceeds(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	for i := 0; i < 2; i++ {
		if _, stderr, err := run(t, env, "migrate"); err != nil {
			t.Fatalf("migrate run %d: %v\n%s", i+1, err, stderr)
		}
	}
	for _, cmd := range []string{"serve", "migrate", "version"} {
		if stdout, _, err := run(t, env, cmd, "--help"); err != nil || !strings.Contains(stdout, "Usage: petstore "+cmd) {
			t.Fatalf("%s --help: %v\n%s", cmd, err, stdout)
		}
	}
	if out, _, err := run(t, env, "--help"); err != nil || !strings.Contains(out, "migrate") {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	if _, _, err := run(t, env, "frobnicate"); err == nil {
		t.Fatal("an unknown command succeeded")
	}
}

// A PETSTORE_ADDR that is no listen address stops serve before it opens the database, naming the
// variable and an example of a good value.
func TestABadListenAddressStopsServeBeforeTheDatabaseIsOpened(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"bogus", "8080", ":http", ":99999", "localhost:"} {
		path := filepath.Join(t.TempDir(), "p.db")
		_, stderr, err := run(t, map[string]string{"PETSTORE_ADDR": addr, "PETSTORE_DB_PATH": path}, "serve")
		want := `PETSTORE_ADDR: must be a listen address, a port after a colon with an optional host before it, such as :8080 or 127.0.0.1:8080; got "` + addr + `"`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("PETSTORE_ADDR=%s: %v, want %s", addr, err, want)
		}
		if _, err := os.Stat(path); err == nil || strings.Contains(stderr, "admin account") {
			t.Errorf("PETSTORE_ADDR=%s: serve opened the database before refusing the address", addr)
		}
	}
}

// When PETSTORE_ADDR's port is taken, serve says which address is taken and what to set instead,
// before it opens the database: a first start does not print the admin password and exit.
func TestATakenPortNamesTheAddressAndWhatToChange(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	path := filepath.Join(t.TempDir(), "p.db")
	_, stderr, err := run(t, map[string]string{"PETSTORE_ADDR": addr, "PETSTORE_DB_PATH": path}, "serve")
	want := "PETSTORE_ADDR=" + addr + ": the address is already in use: another program (or another petstore) listens on port " + port +
		"; stop it, or set PETSTORE_ADDR to another address, such as PETSTORE_ADDR=127.0.0.1:" + strconv.Itoa(p+1)
	if err == nil || err.Error() != want {
		t.Errorf("serve on a taken port: %v\nwant %s", err, want)
	}
	if _, err := os.Stat(path); err == nil || strings.Contains(stderr, "admin account") {
		t.Errorf("serve opened the database before finding its port taken; standard error:\n%s", stderr)
	}
}

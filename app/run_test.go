package app_test

import (
	"bytes"
	"context"
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

package app_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// Every command and subcommand prints its help on standard output and succeeds, as the go
// command does; nothing of it goes to standard error.
func TestHelpOfEveryCommandGoesToStandardOutputAndSucceeds(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"help", "seed"},
		{"serve", "--help"}, {"migrate", "--help"}, {"seed", "-h"}, {"version", "--help"}, {"healthcheck", "--help"},
		{"staff", "--help"}, {"staff", "create", "--help"}, {"staff", "set-password", "-h"},
		{"clients", "--help"}, {"clients", "create", "--help"}, {"clients", "list", "-h"},
		{"keys", "--help"}, {"keys", "create", "--help"}, {"keys", "list", "-h"}, {"keys", "revoke", "--help"},
		{"keys", "unban", "--help"}, {"keys", "set-plan", "--help"}, {"keys", "set-scopes", "--help"},
	} {
		stdout, stderr, err := run(t, env, args...)
		if err != nil || !strings.Contains(stdout, "Usage") || stderr != "" {
			t.Errorf("petstore %s: %v; standard output %q, standard error %q", strings.Join(args, " "), err, stdout, stderr)
		}
	}
	if stdout, _, _ := run(t, env, "seed", "--help"); strings.Contains(stdout, "default -1") || !strings.Contains(stdout, "default half of --pets") {
		t.Errorf("seed --help:\n%s", stdout)
	}
	if _, err := os.Stat(env["PETSTORE_DB_PATH"]); err == nil {
		t.Error("asking for help made a database")
	}
}

// A usage error goes to standard error with the usage, and fails.
func TestUsageErrorsGoToStandardErrorAndFail(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"migrate", "--frob"}, "flag provided but not defined: -frob"},
		{[]string{"migrate", "now"}, "unexpected arguments"},
		{[]string{"seed", "--orders", "many"}, `invalid value "many" for flag -orders`},
		{[]string{"staff"}, "the subcommands are create and set-password"},
		{[]string{"staff", "create", "--frob"}, "-frob"},
		{[]string{"keys"}, "name a subcommand"},
		{[]string{"keys", "frob"}, `unknown subcommand "frob"`},
		{[]string{"keys", "revoke"}, "want ID"},
		{[]string{"keys", "create", "--frob"}, "-frob"},
		{[]string{"clients", "list", "--frob"}, "-frob"},
		{[]string{"clients", "list", "extra"}, "unexpected arguments"},
	} {
		stdout, stderr, err := run(t, env, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.says) || stdout != "" || !strings.Contains(stderr, "Usage") {
			t.Errorf("petstore %s: %v (want %q); standard output %q, standard error %q", strings.Join(c.args, " "), err, c.says, stdout, stderr)
		}
	}
}

// The commands other than serve write no log line unless asked, with -v or PETSTORE_LOG_LEVEL.
func TestCommandsAreQuietUnlessAsked(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	for _, args := range [][]string{{"migrate"}, {"seed", "--pets", "10"}, {"clients", "list"}, {"keys", "list"}, {"version"}} {
		if _, stderr, err := run(t, env, args...); err != nil || strings.Contains(stderr, `"level"`) {
			t.Errorf("petstore %s: %v; standard error %q, want no log line", strings.Join(args, " "), err, stderr)
		}
	}
	for _, args := range [][]string{{"migrate", "-v"}, {"keys", "list", "-v"}, {"clients", "list", "-v"}} {
		if _, stderr, err := run(t, env, args...); err != nil || !strings.Contains(stderr, `"msg":"database"`) {
			t.Errorf("petstore %s: %v; standard error %q, want the log", strings.Join(args, " "), err, stderr)
		}
	}
	env["PETSTORE_LOG_LEVEL"] = "info"
	if _, stderr, err := run(t, env, "migrate"); err != nil || !strings.Contains(stderr, `"msg":"database"`) {
		t.Errorf("migrate with PETSTORE_LOG_LEVEL=info: %v; standard error %q, want the log", err, stderr)
	}
}

// migrate says what it did: a new schema, an upgrade, or nothing.
func TestMigrateSaysWhatItDid(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		env := cliEnv(apptest.Config(t, store))
		if out := runOK(t, env, "migrate"); out != "created the schema\ncreated the categories Dogs, Cats, Birds, Fish, Reptiles, Small animals\n" {
			t.Errorf("migrate on an empty database said %q", out)
		}
		if out := runOK(t, env, "migrate"); out != "the schema is up to date: nothing to do\n" {
			t.Errorf("migrate again said %q", out)
		}

		cfg, _ := v100Database(t, store)
		env = cliEnv(cfg)
		out := runOK(t, env, "migrate")
		// The word search's index is a table of its own on SQLite (FTS5), an index on PostgreSQL.
		searchColumns, searchIndexes := "", "pets_search"
		if store == testenv.Postgres {
			searchColumns, searchIndexes = ", pets.search_vector", "idx_pets_search_vector, idx_pets_tags"
		}
		for _, want := range []string{
			"added the tables clients, audit_entries, events, webhook_endpoints, delivery_attempts, photos\n",
			"added the columns pets.description, pets.tags, pets.deleted_at, api_keys.client_id, api_keys.scopes, api_keys.unbans, orders.client_id, staffs.must_change_password, staffs.password_changed_at" + searchColumns + "\n",
			"added the indexes idx_pets_live_status_id, idx_pets_live_category_id, idx_pets_deleted_id, idx_pets_live_id, idx_pets_live_name_id, " +
				"idx_pets_live_updated_at_id, idx_pets_deleted_name_id, idx_pets_deleted_status_id, idx_pets_deleted_updated_at_id, " +
				"idx_api_keys_client_id, idx_orders_client_id_id, idx_orders_created_at_id, idx_orders_ship_date_id, " +
				"idx_orders_live_ship_date, idx_api_keys_banned_until, idx_webhook_endpoints_troubled, " + searchIndexes + "\n",
			"dropped the indexes idx_pets_category_id, which the added ones replace\n",
			"applied 8 migrations of the job queue's tables\n",
			"gave 3 API keys of release 1.0.0 a client of their own, and every scope\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("migrate of a 1.0.0 database said\n%s\nwant %q", out, want)
			}
		}
		if strings.Contains(out, "created the") {
			t.Errorf("migrate of a 1.0.0 database said\n%s\nwhich had its schema and categories", out)
		}
		if out := runOK(t, env, "migrate"); out != "the schema is up to date: nothing to do\n" {
			t.Errorf("migrate of the upgraded database said %q", out)
		}
	})
}

// keys create prints the key alone on standard output, so KEY=$(...) holds only the key.
func TestKeysCreatePrintsTheKeyAloneOnStandardOutput(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	stdout, stderr, err := run(t, env, "keys", "create", "--name", "demo", "--plan", "free")
	if err != nil || !strings.HasPrefix(stdout, "psk_") || strings.Count(stdout, "\n") != 1 || strings.Contains(stdout, " ") {
		t.Fatalf("keys create: %v; standard output %q", err, stdout)
	}
	if !strings.Contains(stderr, "shown only this once") || strings.Contains(stderr, "above") || strings.Contains(stderr, "psk_") {
		t.Fatalf("keys create: standard error %q, want the note without the key", stderr)
	}
}

// A PETSTORE_DB_PATH that SQLite cannot use is named, with what to change, by serve and by
// every command that opens the database.
func TestADatabasePathInAMissingOrUnwritableFolderSaysWhatToChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, problem := range map[string]string{
		filepath.Join(dir, "missing", "p.db"): "the folder " + filepath.Join(dir, "missing") + " does not exist; create it",
		filepath.Join(file, "p.db"):           file + " is a file, not a folder",
	} {
		env := map[string]string{"PETSTORE_DB_PATH": path, "PETSTORE_ADDR": "127.0.0.1:0"}
		for _, args := range [][]string{{"serve"}, {"migrate"}, {"seed"}, {"keys", "list"}, {"clients", "list"},
			{"staff", "create", "--username", "ann", "--password-stdin"}} {
			_, _, err := runIn(t, env, "s3cret-password\n", args...)
			if err == nil || !strings.Contains(err.Error(), "PETSTORE_DB_PATH="+path+": "+problem) || !strings.Contains(err.Error(), "or set PETSTORE_DB_PATH to a file in another folder") {
				t.Errorf("petstore %s with PETSTORE_DB_PATH=%s: %v", strings.Join(args, " "), path, err)
			}
		}
	}
	if os.Geteuid() == 0 {
		return // root writes any folder; the unwritable case needs another user
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, map[string]string{"PETSTORE_DB_PATH": filepath.Join(ro, "p.db")}, "migrate")
	if err == nil || !strings.Contains(err.Error(), "the folder "+ro+" cannot be written") {
		t.Errorf("migrate in a read-only folder: %v", err)
	}
}

// runIn is run with stdin as standard input.
func runIn(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = app.Run(context.Background(), append([]string{"petstore"}, args...), func(k string) string { return env[k] },
		strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// A command or subcommand mistyped by a letter or two is answered with the one meant.
func TestAMistypedCommandSuggestsTheOneMeant(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"key", "create"}, `unknown command "key"; did you mean "keys"?`},
		{[]string{"client", "list"}, `unknown command "client"; did you mean "clients"?`},
		{[]string{"migrte"}, `unknown command "migrte"; did you mean "migrate"?`},
		{[]string{"keys", "crate"}, `keys: unknown subcommand "crate"; did you mean "create"?`},
		{[]string{"keys", "set-plans", "1", "pro"}, `keys: unknown subcommand "set-plans"; did you mean "set-plan"?`},
		{[]string{"clients", "lst"}, `clients: unknown subcommand "lst"; did you mean "list"?`},
		{[]string{"staff", "set-pasword"}, `did you mean "set-password"?`},
	} {
		_, stderr, err := run(t, env, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(stderr, "Usage") {
			t.Errorf("petstore %s: %v, want %q; standard error %q", strings.Join(c.args, " "), err, c.says, stderr)
		}
	}
	if _, _, err := run(t, env, "frobnicate"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("petstore frobnicate: %v, want no suggestion: no command is near it", err)
	}
	if _, err := os.Stat(env["PETSTORE_DB_PATH"]); err == nil {
		t.Error("a mistyped command made a database")
	}
}

// keys create without --plan, or with one that is no plan, says so plainly and lists the plans
// with their limits, before it opens a database.
func TestKeysCreateWithoutAPlanSaysItIsRequiredAndListsThePlans(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	plans := "the plans are:\n" +
		"  free        60 per minute, 1000 per day\n" +
		"  pro         300 per minute, 10000 per day\n" +
		"  business    1000 per minute, 100000 per day\n" +
		"  enterprise  limits of its own: --per-minute N --per-day N"
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--name", "demo"}, "keys create: --plan is required; " + plans},
		{[]string{"--name", "demo", "--plan", "gold"}, `keys create: --plan "gold" is not a plan; ` + plans},
		{[]string{"--plan", "free"}, "keys create: --name is required"},
	} {
		stdout, _, err := run(t, env, append([]string{"keys", "create"}, c.args...)...)
		if err == nil || err.Error() != c.says && !strings.HasPrefix(err.Error(), c.says) || stdout != "" {
			t.Errorf("keys create %s: %v\nwant %s", strings.Join(c.args, " "), err, c.says)
		}
	}
	if _, err := os.Stat(env["PETSTORE_DB_PATH"]); err == nil {
		t.Error("keys create without a plan made a database")
	}
}

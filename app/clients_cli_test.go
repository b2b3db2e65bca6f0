package app_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

func TestClientsAndScopedKeysFromTheCommandLine(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	env := cliEnv(cfg)

	var client struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	out := runOK(t, env, "clients", "create", "--name", "Acme Pets", "--email", "ops@acme.example", "--json")
	if err := json.Unmarshal([]byte(out), &client); err != nil || client.ID < 1 || client.Name != "Acme Pets" || client.Email != "ops@acme.example" {
		t.Fatalf("clients create --json printed %s (%v)", out, err)
	}
	plainOut, stderr, err := run(t, env, "clients", "create", "--name", "Globex")
	if id, perr := strconv.ParseInt(strings.TrimSpace(plainOut), 10, 64); err != nil || perr != nil || id != client.ID+1 || !strings.Contains(stderr, "keys create --client") {
		t.Fatalf("clients create printed %q, %q (%v); want the new id alone on standard output", plainOut, stderr, err)
	}

	var key struct {
		ID     int64    `json:"id"`
		Key    string   `json:"key"`
		Client int64    `json:"client"`
		Scopes []string `json:"scopes"`
	}
	cid := strconv.FormatInt(client.ID, 10)
	out = runOK(t, env, "keys", "create", "--name", "Acme dashboard", "--plan", "pro", "--client", cid, "--scopes", "pets:read,orders:read", "--json")
	if err := json.Unmarshal([]byte(out), &key); err != nil || key.Client != client.ID || !slices.Equal(key.Scopes, []string{"pets:read", "orders:read"}) || !strings.HasPrefix(key.Key, "psk_") {
		t.Fatalf("keys create --client --scopes --json printed %s (%v)", out, err)
	}
	var own struct {
		Client int64    `json:"client"`
		Scopes []string `json:"scopes"`
	}
	out = runOK(t, env, "keys", "create", "--name", "Initech", "--plan", "free", "--json")
	if err := json.Unmarshal([]byte(out), &own); err != nil || own.Client != client.ID+2 || len(own.Scopes) != 5 {
		t.Fatalf("keys create without --client printed %s (%v); want a new client and every scope", out, err)
	}

	s := apptest.New(t, cfg)
	c := s.As(key.Key)
	if res := c.Get(t, "/v1/pets"); res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/pets with pets:read: %d", res.StatusCode)
	}
	wantError(t, c.PostJSON(t, "/v1/pets", map[string]any{"name": "Rex", "categoryId": 1}), http.StatusForbidden, "insufficient_scope", "")
	id := strconv.FormatInt(key.ID, 10)
	if out := runOK(t, env, "keys", "set-scopes", id, "--scopes", "pets:read,pets:write"); !strings.Contains(out, "now has the scopes pets:read,pets:write") {
		t.Fatalf("keys set-scopes said %q", out)
	}
	waitFor(t, "the new scopes", func() bool {
		return c.PostJSON(t, "/v1/pets", map[string]any{"name": "Rex", "categoryId": 1}).StatusCode == http.StatusCreated
	})

	var listed []struct {
		ID         int64  `json:"id"`
		Name       string `json:"name"`
		Keys       int    `json:"keys"`
		ActiveKeys int    `json:"activeKeys"`
	}
	if err := json.Unmarshal([]byte(runOK(t, env, "clients", "list", "--json")), &listed); err != nil || len(listed) != 4 ||
		listed[0].Name != "Acme Pets" || listed[0].Keys != 1 || listed[0].ActiveKeys != 1 || listed[1].Keys != 0 {
		t.Fatalf("clients list --json: %+v (%v)", listed, err)
	}
	if out := runOK(t, env, "clients", "list"); !strings.Contains(out, "Acme Pets") || !strings.Contains(out, "ops@acme.example") {
		t.Fatalf("clients list:\n%s", out)
	}
	if out := runOK(t, env, "keys", "list"); !strings.Contains(out, "pets:read,pets:write") {
		t.Fatalf("keys list does not show scopes:\n%s", out)
	}

	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"clients", "create"}, "name"},
		{[]string{"clients", "create", "--name", "X", "--email", "not an address"}, "--email"},
		{[]string{"clients", "remove"}, "unknown subcommand"},
		{[]string{"clients"}, "subcommand"},
		{[]string{"keys", "create", "--name", "x", "--plan", "free", "--client", "999"}, "client 999 not found"},
		{[]string{"keys", "create", "--name", "x", "--plan", "free", "--scopes", "pets:all"}, `--scopes: "pets:all" is not a scope`},
		{[]string{"keys", "create", "--name", "x", "--plan", "free", "--scopes", ""}, "--scopes: must name at least one"},
		{[]string{"keys", "set-scopes", id}, "--scopes is required"},
		{[]string{"keys", "set-scopes", id, "--scopes", "admin"}, "is not a scope"},
	} {
		_, _, err := run(t, env, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Fatalf("petstore %s: error %v, want one mentioning %q", strings.Join(tc.args, " "), err, tc.mention)
		}
	}
}

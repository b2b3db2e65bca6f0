package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The gate runs the pinned oasdiff, built like `make api-compat` builds it.
var oasdiff = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "tool", "-n", "-modfile=../thirdparty/go.mod", "oasdiff").Output()
	return strings.TrimSpace(string(out)), err
})

// released is the document of the last release kept in the repository, as a JSON tree to edit.
func released(t *testing.T) (string, map[string]any) {
	t.Helper()
	version, err := lastRelease("../../docs/releases")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("../../docs/releases", version, "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return version, doc
}

// check runs the gate on the last release against itself with edit applied, and returns its
// exit status and what it printed.
func check(t *testing.T, edit func(doc map[string]any), accepted string) (int, string) {
	t.Helper()
	bin, err := oasdiff()
	if err != nil {
		t.Fatalf("building oasdiff: %v", err)
	}
	version, doc := released(t)
	dir := t.TempDir()
	base, _ := json.Marshal(doc)
	write(t, filepath.Join(dir, "releases", version, "openapi.json"), base)
	edit(doc)
	revision, _ := json.Marshal(doc)
	write(t, filepath.Join(dir, "openapi.json"), revision)
	if accepted != "" {
		write(t, filepath.Join(dir, "accepted", version+".txt"), []byte(accepted))
	}
	var out bytes.Buffer
	g := gate{doc: filepath.Join(dir, "openapi.json"), releases: filepath.Join(dir, "releases"),
		accepted: filepath.Join(dir, "accepted"), oasdiff: bin, out: &out}
	code, err := g.run()
	if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func obj(v any, keys ...string) map[string]any {
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	return v.(map[string]any)
}

func addParameter(doc map[string]any, path, method string, p map[string]any) {
	op := obj(doc, "paths", path, method)
	params, _ := op["parameters"].([]any)
	op["parameters"] = append(params, p)
}

func TestTheGateFailsOnABreakingChangeToAStableOperationWithOasdiffsExplanation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(doc map[string]any)
		wants []string
	}{
		{"a response field removed", func(doc map[string]any) {
			pet := obj(doc, "components", "schemas", "Pet")
			delete(obj(pet, "properties"), "name")
			pet["required"] = []any{"categoryId", "createdAt", "id", "status", "updatedAt"}
		}, []string{"[response-required-property-removed]", "in API GET /pets", "removed the required property `items/name`"}},
		{"a new required parameter on listPets", func(doc map[string]any) {
			addParameter(doc, "/pets", "get", map[string]any{"name": "owner", "in": "query", "required": true,
				"schema": map[string]any{"type": "string", "maxLength": 100}})
		}, []string{"[new-required-request-parameter]", "in API GET /pets", "added the new required `query` request parameter `owner`"}},
		{"a stable operation marked experimental", func(doc map[string]any) {
			obj(doc, "paths", "/pets", "get")["x-stability"] = "experimental"
		}, []string{"[api-stability-decreased]", "in API GET /pets"}},
		{"a stable operation removed without deprecation", func(doc map[string]any) {
			delete(obj(doc, "paths", "/pets"), "post")
		}, []string{"[api-removed-without-deprecation]", "in API POST /pets"}},
		{"a beta operation changed before any deprecation notice", func(doc map[string]any) {
			delete(obj(doc, "components", "schemas", "Category", "properties"), "name")
			obj(doc, "components", "schemas", "Category")["required"] = []any{"id"}
		}, []string{"[response-required-property-removed]", "in API GET /categories"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := check(t, tc.edit, "")
			if code != 1 {
				t.Fatalf("exit status %d, want 1:\n%s", code, out)
			}
			for _, want := range tc.wants {
				if !strings.Contains(out, want) {
					t.Errorf("output does not say %q:\n%s", want, out)
				}
			}
			t.Logf("the gate's output:\n%s", out)
		})
	}
}

func TestTheGatePassesAdditiveChangesAndChangesToExperimentalOperations(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(doc map[string]any)
	}{
		{"nothing changed", func(map[string]any) {}},
		{"an optional parameter, a response field and an operation added", func(doc map[string]any) {
			addParameter(doc, "/pets", "get", map[string]any{"name": "categoryId", "in": "query",
				"schema": map[string]any{"type": "integer", "format": "int64"}})
			obj(doc, "components", "schemas", "Pet", "properties")["nickname"] = map[string]any{"type": "string", "maxLength": 100}
			obj(doc, "paths")["/pets/{petId}/notes"] = map[string]any{"delete": map[string]any{"operationId": "deletePetNotes",
				"responses": map[string]any{"204": map[string]any{"description": "Deleted"}}}}
		}},
		{"an experimental operation broken", func(doc map[string]any) {
			order := obj(doc, "components", "schemas", "Order")
			delete(obj(order, "properties"), "complete")
			order["required"] = []any{"createdAt", "id", "petId", "quantity", "status"}
			addParameter(doc, "/store/orders", "get", map[string]any{"name": "clientId", "in": "query", "required": true,
				"schema": map[string]any{"type": "integer", "format": "int64"}})
			delete(obj(doc, "paths", "/store/orders/{orderId}"), "get")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, out := check(t, tc.edit, ""); code != 0 {
				t.Fatalf("exit status %d, want 0:\n%s", code, out)
			}
		})
	}
}

func TestTheGateAcceptsOnlyTheFindingsListedForTheRelease(t *testing.T) {
	narrow := func(doc map[string]any) {
		for _, p := range obj(doc, "paths", "/pets", "get")["parameters"].([]any) {
			if p := p.(map[string]any); p["name"] == "cursor" {
				obj(p, "schema")["maxLength"] = 48
				return
			}
		}
		t.Fatal("listPets has no cursor parameter")
	}
	accepted := "Comment lines have no path.\n" +
		"GET /pets for the `query` request parameter `cursor`, the maxLength was decreased from `64` to `48` -- the reason\n"
	if code, out := check(t, narrow, accepted); code != 0 {
		t.Fatalf("an accepted finding: exit status %d, want 0:\n%s", code, out)
	}
	if code, out := check(t, narrow, "GET /store/orders for the `query` request parameter `cursor`, the maxLength was decreased from `64` to `48`\n"); code != 1 {
		t.Fatalf("a finding accepted for another operation: exit status %d, want 1:\n%s", code, out)
	}
}

func TestTheLastReleaseIsFoundByVersionOrder(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"0.9.0", "1.2.0", "1.10.0", "2.0.0-rc.1", "notes"} {
		write(t, filepath.Join(dir, v, "openapi.json"), []byte("{}"))
	}
	if err := os.Mkdir(filepath.Join(dir, "3.0.0"), 0o750); err != nil { // no document yet
		t.Fatal(err)
	}
	if got, err := lastRelease(dir); err != nil || got != "1.10.0" {
		t.Fatalf("lastRelease = %q, %v; want 1.10.0", got, err)
	}
	if _, err := lastRelease(t.TempDir()); err == nil {
		t.Fatal("no error without any release")
	}
}

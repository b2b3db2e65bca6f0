package webhooks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/webhooks"
)

// guideBlock returns the webhooks guide's fenced code block of lang that contains marker.
func guideBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	guide, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(guide), "```"+lang+"\n")[1:] {
		code, _, ok := strings.Cut(block, "```")
		if ok && strings.Contains(code, marker) {
			return code
		}
	}
	t.Fatalf("docs/webhooks.md has no %s block with %q", lang, marker)
	return ""
}

// The webhooks guide's receivers are the tested ones: the Go function is ExampleSign_verify's, and the
// Python one is run against deliveries Sign made.
func TestTheWebhooksGuidesReceiversAreTheTestedOnes(t *testing.T) {
	goCode := guideBlock(t, "go", "func verifyWebhook(")
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(example), goCode) {
		t.Errorf("docs/webhooks.md's verifyWebhook is not example_test.go's; make them the same:\n%s", goCode)
	}

	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is required under CI (apt-get install python3) and was not found")
		}
		t.Skip("python3 not found: the webhooks guide's Python receiver is not run")
	}
	type delivery struct {
		Name    string            `json:"name"`
		Secret  string            `json:"secret"`
		Headers map[string]string `json:"headers"`
		Body    []byte            `json:"body"` // base64 in JSON
		Now     int64             `json:"now"`
		Valid   bool              `json:"valid"`
	}
	oldSecret, _ := webhooks.NewSecret()
	newSecret, _ := webhooks.NewSecret()
	other, _ := webhooks.NewSecret()
	body := []byte(`{"id":"evt_0000000002","type":"order.approved","createdAt":"2026-05-01T10:00:00Z","data":{"object":{"id":7,"name":"Bjørn"}}}`)
	sent := time.Unix(1_780_000_000, 0)
	one, err := webhooks.Sign("evt_0000000002", sent, body, newSecret)
	if err != nil {
		t.Fatal(err)
	}
	two, err := webhooks.Sign("evt_0000000002", sent, body, newSecret, oldSecret)
	if err != nil {
		t.Fatal(err)
	}
	headers := func(sig string) map[string]string {
		return map[string]string{"webhook-id": "evt_0000000002", "webhook-timestamp": strconv.FormatInt(sent.Unix(), 10), "webhook-signature": sig}
	}
	at := sent.Unix() + 30
	cases := []delivery{
		{"one secret", newSecret, headers(one), body, at, true},
		{"rotation, the new secret", newSecret, headers(two), body, at, true},
		{"rotation, the old secret", oldSecret, headers(two), body, at, true},
		{"the old secret after the rotation", oldSecret, headers(one), body, at, false},
		{"another secret", other, headers(two), body, at, false},
		{"a changed body", newSecret, headers(one), bytes.Replace(body, []byte("approved"), []byte("cancelled"), 1), at, false},
		{"4 minutes 59 later", newSecret, headers(one), body, sent.Unix() + 299, true},
		{"6 minutes later", newSecret, headers(one), body, sent.Unix() + 360, false},
		{"6 minutes early", newSecret, headers(one), body, sent.Unix() - 360, false},
		{"a v2 signature", newSecret, headers("v2," + strings.TrimPrefix(one, "v1,")), body, at, false},
		{"a non-ASCII signature", newSecret, headers("v1,é"), body, at, false},
		{"no signature", newSecret, headers(""), body, at, false},
	}
	input, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	script := guideBlock(t, "python", "def verify_webhook(") + `
import base64, json, sys
for d in json.load(sys.stdin):
    print(verify_webhook(d["secret"], d["headers"], base64.b64decode(d["body"]), d["now"]))
`
	path := filepath.Join(t.TempDir(), "verify.py")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, path)
	cmd.Stdin = bytes.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("python3 %s: %v\n%s", path, err, stderr)
	}
	got := strings.Fields(string(out))
	if len(got) != len(cases) {
		t.Fatalf("the Python receiver printed %q, want one answer per delivery (%d)", out, len(cases))
	}
	for i, c := range cases {
		if want := map[bool]string{true: "True", false: "False"}[c.Valid]; got[i] != want {
			t.Errorf("%s: the Python receiver says %s, want %s", c.Name, got[i], want)
		}
	}
}

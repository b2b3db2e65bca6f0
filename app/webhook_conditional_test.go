package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// Webhook endpoints answer conditional GETs as pets and orders do, and as the document says
// (each exchange is checked against it): a strong ETag on one endpoint, a weak one on the list,
// and 304 to an If-None-Match that names the current one.
func TestWebhookEndpointsAnswerConditionalGets(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, webhookConfig(t, store))
		e := addEndpoint(t, s, "http://127.0.0.1:9/hook", "pet.created")
		path := fmt.Sprintf("/v1/webhook-endpoints/%d", e.ID)
		get := func(target string, header ...string) *apptest.Response {
			t.Helper()
			return send(t, s, http.MethodGet, target, "", "", header...)
		}
		notModified := func(target, etag string) {
			t.Helper()
			res := get(target, "If-None-Match", etag)
			if res.StatusCode != http.StatusNotModified || len(res.Body) != 0 || res.Header.Get("ETag") != etag {
				t.Fatalf("GET %s with If-None-Match %s: %d %q (ETag %q), want 304, no body, the same ETag", target, etag, res.StatusCode, res.Body, res.Header.Get("ETag"))
			}
		}
		changed := func(target, etag string) string {
			t.Helper()
			res := get(target, "If-None-Match", etag)
			if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == etag {
				t.Fatalf("GET %s with the ETag from before a change: %d (ETag %q), want 200 and another ETag", target, res.StatusCode, res.Header.Get("ETag"))
			}
			return res.Header.Get("ETag")
		}

		etag := get(path).Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
			t.Fatalf("an endpoint's ETag %q, want a strong entity tag", etag)
		}
		notModified(path, etag)
		list := get("/v1/webhook-endpoints").Header.Get("ETag")
		if !strings.HasPrefix(list, `W/"`) {
			t.Fatalf("the endpoint list's ETag %q, want a weak entity tag", list)
		}
		notModified("/v1/webhook-endpoints", list)

		patched := send(t, s, http.MethodPatch, path, "application/merge-patch+json", `{"events":["pet.created","pet.updated"]}`)
		if patched.StatusCode != http.StatusOK {
			t.Fatalf("PATCH %s: %d %s", path, patched.StatusCode, patched.Body)
		}
		now := changed(path, etag)
		if patched.Header.Get("ETag") != now {
			t.Fatalf("the PATCH answer's ETag %q, the endpoint's since %q: want the same", patched.Header.Get("ETag"), now)
		}
		notModified(path, now)
		changed("/v1/webhook-endpoints", list)
	})
}

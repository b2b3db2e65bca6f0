package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// patchEndpoint sends a PATCH of endpoint id with body.
func patchEndpoint(t *testing.T, s *apptest.Server, id int64, body string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, http.MethodPatch, "/v1/webhook-endpoints/"+itoa(id), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.Invalid().Do(t, req)
}

// waitAttempt waits for the first delivery attempt to endpoint id and returns it.
func waitAttempt(t *testing.T, s *apptest.Server, id int64) models.DeliveryAttempt {
	t.Helper()
	store := models.NewWebhookStore(s.DB, models.WebhookOptions{})
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := store.Attempts(t.Context(), id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 1 {
			return got[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery attempt to endpoint %d within 20 s", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// IPv6 addresses that carry a loopback or private IPv4 address (6to4, Teredo, IPv4-translated,
// local-use NAT64), and other ranges of IANA's special-purpose registries, are refused when an
// endpoint is added or changed; an endpoint stored before the check existed is refused as the
// delivery connects, and the attempt says why.
func TestEndpointsAtIPv6FormsOfPrivateAddressesAreRefusedAtRegistrationAndWhenConnecting(t *testing.T) {
	t.Parallel() // its own servers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		cfg.WebhookAllowHTTP = true
		s := apptest.New(t, cfg, apptest.WithDeliveries())
		for _, tc := range []struct{ url, says string }{
			{"https://[2002:7f00:1::]/", "6to4 address carrying 127.0.0.1, a loopback address"},
			{"https://[2002:a00:1::]/", "6to4 address carrying 10.0.0.1, a private address"},
			{"https://[::ffff:0:7f00:1]/", "IPv4-translated address carrying 127.0.0.1, a loopback address"},
			{"https://[2001:0:808:808::80ff:fffe]/", "Teredo address carrying 127.0.0.1, a loopback address"},
			{"https://[64:ff9b:1:a9fe:a9:fe00::]/", "local-use NAT64 address carrying 169.254.169.254, a link-local address"},
			{"https://[64:ff9b::7f00:1]/", "loopback address behind a NAT64 prefix"},
			{"https://[::ffff:127.0.0.1]/", "127.0.0.1 is a loopback address"},
			{"https://192.0.2.10/", "documentation address"},
			{"https://198.18.0.1/", "network-benchmarking address"},
			{"https://192.88.99.1/", "special-purpose range 192.88.99.0/24"},
			{"https://[2001:db8::1]/", "documentation address"},
		} {
			res := s.Invalid().PostJSON(t, "/v1/webhook-endpoints", map[string]any{"url": tc.url, "events": []string{"pet.created"}})
			if code, msg := res.ErrorBody(t); res.StatusCode != http.StatusBadRequest || code != models.EValidation || !strings.Contains(msg, tc.says) {
				t.Errorf("POST %s: %d %s %q, want 400 validation_failed saying %q", tc.url, res.StatusCode, code, msg, tc.says)
			}
		}
		public := addEndpoint(t, s, "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook", "pet.created")
		res := patchEndpoint(t, s, public.ID, `{"url":"https://[2002:7f00:1::]/hook"}`)
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusBadRequest || code != models.EValidation {
			t.Fatalf("PATCH to a 6to4 address of loopback: %d %s", res.StatusCode, res.Body)
		}

		// An endpoint stored before these forms were refused.
		if err := s.DB.Exec("UPDATE webhook_endpoints SET url = ? WHERE id = ?", "http://[2002:7f00:1::]:9/hook", public.ID).Error; err != nil {
			t.Fatal(err)
		}
		createPetNamed(t, s, "Rex")
		a := waitAttempt(t, s, public.ID)
		if want := "refused: 2002:7f00:1:: is a 6to4 address carrying 127.0.0.1, a loopback address"; a.Error != want || a.StatusCode != 0 {
			t.Fatalf("attempt to a stored 6to4 address of loopback: %d %q, want %q", a.StatusCode, a.Error, want)
		}
	})
}

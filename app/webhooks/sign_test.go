package webhooks_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/petstore/petstore/app/webhooks"
)

func TestNewSecret(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		s, err := webhooks.NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		enc, ok := strings.CutPrefix(s, "whsec_")
		if !ok {
			t.Fatalf("secret %q lacks the whsec_ prefix", s)
		}
		key, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || len(key) != 32 {
			t.Fatalf("secret %q: want standard base64 of 32 bytes, got %d bytes, err %v", s, len(key), err)
		}
		if seen[s] {
			t.Fatalf("secret %q made twice", s)
		}
		seen[s] = true
	}
}

// The specification's own test vector, as its libraries' tests use it.
func TestSignSpecificationVector(t *testing.T) {
	got, err := webhooks.Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0),
		[]byte(`{"test": 2432232314}`), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func headers(msgID string, ts time.Time, sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	return h
}

// Signatures are checked with the specification's Go library, not with the code that makes them.
func TestSignVerifiesWithStandardWebhooks(t *testing.T) {
	oldSecret, _ := webhooks.NewSecret()
	newSecret, _ := webhooks.NewSecret()
	otherSecret, _ := webhooks.NewSecret()
	body := []byte(`{"id":"evt_1","type":"pet.created","data":{"object":{"id":1,"name":"Rex"}}}`)
	ts := time.Now()

	verify := func(secret, sig string, b []byte) error {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		return wh.Verify(b, headers("evt_1", ts, sig))
	}

	one, err := webhooks.Sign("evt_1", ts, body, newSecret)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(one, " ") != 0 || !strings.HasPrefix(one, "v1,") {
		t.Fatalf("one secret: want one v1 signature, got %q", one)
	}
	if err := verify(newSecret, one, body); err != nil {
		t.Errorf("one secret: %v", err)
	}
	if err := verify(otherSecret, one, body); err == nil {
		t.Error("one secret: another secret verified the signature")
	}
	if err := verify(newSecret, one, []byte(string(body)+" ")); err == nil {
		t.Error("one secret: a changed body verified")
	}

	// During a rotation both secrets sign; a receiver holding either one verifies.
	two, err := webhooks.Sign("evt_1", ts, body, newSecret, oldSecret)
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(two, " "); len(parts) != 2 || parts[0] != one {
		t.Fatalf("two secrets: want the new secret's signature, a space and the old one's, got %q", two)
	}
	for name, s := range map[string]string{"new": newSecret, "old": oldSecret} {
		if err := verify(s, two, body); err != nil {
			t.Errorf("two secrets: the %s secret: %v", name, err)
		}
	}
	if err := verify(otherSecret, two, body); err == nil {
		t.Error("two secrets: a third secret verified")
	}
}

func TestSignRefusesMalformedSecrets(t *testing.T) {
	good, _ := webhooks.NewSecret()
	short := "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 16))
	long := "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 65))
	for name, secret := range map[string]string{
		"no prefix":   strings.TrimPrefix(good, "whsec_"),
		"not base64":  "whsec_not*base64!",
		"url base64":  "whsec_" + base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff}, 16)),
		"empty":       "",
		"empty key":   "whsec_",
		"16-byte key": short,
		"65-byte key": long,
	} {
		sig, err := webhooks.Sign("evt_1", time.Now(), []byte("{}"), good, secret)
		if err == nil {
			t.Errorf("%s: signed %q", name, sig)
			continue
		}
		if key := strings.TrimPrefix(secret, "whsec_"); key != "" && strings.Contains(err.Error(), key) {
			t.Errorf("%s: the error shows the secret: %v", name, err)
		}
	}
	if sig, err := webhooks.Sign("evt_1", time.Now(), []byte("{}")); err == nil {
		t.Errorf("no secret: signed %q", sig)
	}
}

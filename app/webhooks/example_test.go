package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/app/webhooks"
)

// verifyWebhook is the webhooks guide's receiver (docs/webhooks.md), word for word
// (TestTheWebhooksGuidesReceiversAreTheTestedOnes holds them together).

// verifyWebhook checks a delivery: secret is the endpoint's "whsec_..." secret, body the
// request's raw bytes, exactly as received.
func verifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("bad webhook-timestamp")
	}
	if d := now.Sub(time.Unix(sent, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("webhook-timestamp more than 5 minutes off") // a replay, or a clock astray
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) { // two during a rotation
		b64, ok := strings.CutPrefix(sig, "v1,")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && err == nil && hmac.Equal(got, want) { // constant time
			return nil
		}
	}
	return errors.New("no valid signature")
}

// A receiver verifies what Sign makes: during a rotation either secret will do; a changed body,
// another secret or an old timestamp will not.
func ExampleSign_verify() {
	oldSecret, _ := webhooks.NewSecret()
	newSecret, _ := webhooks.NewSecret()
	body := []byte(`{"id":"evt_0000000001","type":"pet.created","createdAt":"2026-05-01T10:00:00Z","data":{"object":{"id":1}}}`)
	sent := time.Now()
	sig, err := webhooks.Sign("evt_0000000001", sent, body, newSecret, oldSecret)
	if err != nil {
		panic(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "evt_0000000001")
	h.Set("webhook-timestamp", strconv.FormatInt(sent.Unix(), 10))
	h.Set("webhook-signature", sig)
	other, _ := webhooks.NewSecret()

	fmt.Println("new secret:", verifyWebhook(newSecret, h, body, time.Now()))
	fmt.Println("old secret:", verifyWebhook(oldSecret, h, body, time.Now()))
	fmt.Println("another secret:", verifyWebhook(other, h, body, time.Now()))
	fmt.Println("changed body:", verifyWebhook(newSecret, h, []byte(strings.Replace(string(body), "created", "deleted", 1)), time.Now()))
	fmt.Println("six minutes later:", verifyWebhook(newSecret, h, body, sent.Add(6*time.Minute)))
	fmt.Println("six minutes early:", verifyWebhook(newSecret, h, body, sent.Add(-6*time.Minute)))
	// Output:
	// new secret: <nil>
	// old secret: <nil>
	// another secret: no valid signature
	// changed body: no valid signature
	// six minutes later: webhook-timestamp more than 5 minutes off
	// six minutes early: webhook-timestamp more than 5 minutes off
}

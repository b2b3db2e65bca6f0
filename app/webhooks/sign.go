package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Sign returns the value of the webhook-signature header for one delivery: for each secret,
// "v1," and the base64 HMAC-SHA256 of msgID "." Unix seconds "." body, keyed with the secret's
// decoded bytes; several are separated by single spaces, so a receiver still holding the
// previous secret during a rotation can verify too.
func Sign(msgID string, ts time.Time, body []byte, secrets ...string) (string, error) {
	if len(secrets) == 0 {
		return "", errors.New("webhooks: no signing secret")
	}
	prefix := msgID + "." + strconv.FormatInt(ts.Unix(), 10) + "."
	var sb strings.Builder
	for i, secret := range secrets {
		key, err := secretKey(secret)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(prefix))
		mac.Write(body)
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString("v1,")
		sb.WriteString(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return sb.String(), nil
}

// Package webhooks signs webhook deliveries as the Standard Webhooks specification says and
// sends them with an HTTP client that refuses to reach the service's own network (OWASP API7,
// server-side request forgery).
package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
)

// secretPrefix marks a Standard Webhooks signing secret; the base64 key follows it.
const secretPrefix = "whsec_"

// secretBytes is the length of the keys NewSecret makes: 256 bits, as strong as SHA-256 itself.
const secretBytes = 32

// The specification asks for keys of 24 to 64 bytes; shorter ones are too weak, longer ones are
// hashed down by HMAC anyway.
const minKeyBytes, maxKeyBytes = 24, 64

// errMalformedSecret never says which secret or what is wrong in it: secrets stay out of errors
// and logs.
var errMalformedSecret = errors.New("webhooks: malformed signing secret (want whsec_ and the base64 of 24 to 64 bytes)")

// NewSecret returns a new signing secret: "whsec_" and the standard base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey returns the HMAC key a secret stands for.
func secretKey(secret string) ([]byte, error) {
	enc, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok {
		return nil, errMalformedSecret
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(key) < minKeyBytes || len(key) > maxKeyBytes {
		return nil, errMalformedSecret
	}
	return key, nil
}

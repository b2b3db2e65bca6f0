package models

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
)

// A key is keyTag, then the prefix's random part, then '_', then the secret: 40 random bits
// that find the row and 256 that are the secret, in lower-case base32, so a double click selects
// the whole key and nothing in it needs escaping.
const (
	keyTag      = "psk_"
	prefixLen   = len(keyTag) + 8
	secretLen   = 52
	plainKeyLen = prefixLen + 1 + secretLen
	keyAlphabet = "abcdefghijklmnopqrstuvwxyz234567"
	prefixBytes = 5
	secretBytes = 32
)

var keyEncoding = base32.NewEncoding(keyAlphabet).WithPadding(base32.NoPadding)

// PresentedKey is a key as a client sent it, checked for shape and hashed. It may point into
// the request's buffers, so it must not outlive the request.
type PresentedKey struct {
	prefix string
	hash   [sha256.Size]byte
}

// Hash is the key's SHA-256: what caches look a key up by (its timing tells nothing about a
// stored key).
func (pk PresentedKey) Hash() [sha256.Size]byte { return pk.hash }

// ParsePresentedKey checks the shape of a key a client sent. A malformed key is invalid_api_key,
// answered without touching the database.
func ParsePresentedKey(plain string) (PresentedKey, error) {
	if len(plain) != plainKeyLen || plain[:len(keyTag)] != keyTag || plain[prefixLen] != '_' {
		return PresentedKey{}, ErrUnknownKey
	}
	for i := len(keyTag); i < plainKeyLen; i++ {
		if c := plain[i]; i != prefixLen && !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return PresentedKey{}, ErrUnknownKey
		}
	}
	return PresentedKey{prefix: plain[:prefixLen], hash: sha256.Sum256([]byte(plain))}, nil
}

// ErrUnknownKey answers a key that is malformed or matches no stored key.
var ErrUnknownKey = &Error{Code: EInvalidAPIKey, Message: "the API key is not valid"}

// noStoredHash stands in for the hash of a prefix that finds no row, so an unknown key costs
// the same comparison as a wrong one.
const noStoredHash = "0000000000000000000000000000000000000000000000000000000000000000"

// matches compares the key's hash with a stored hex hash in constant time.
func (pk PresentedKey) matches(stored string) bool {
	var sum [2 * sha256.Size]byte
	hex.Encode(sum[:], pk.hash[:])
	return subtle.ConstantTimeCompare(sum[:], []byte(stored)) == 1
}

func generateKey() string {
	var b [prefixBytes + secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	return keyTag + keyEncoding.EncodeToString(b[:prefixBytes]) + "_" + keyEncoding.EncodeToString(b[prefixBytes:])
}

func hashHex(plain string) string {
	h := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(h[:])
}

// Package secretbox encrypts the secrets the service must read back, webhook signing secrets, so
// that a copy of the database (a dump, a backup, a stolen disk) does not hold them in the clear.
//
// A sealed secret is the self-describing string "enc:v1:<key id>:<base64 of nonce|ciphertext>":
// XChaCha20-Poly1305 under the named key with a random 24-byte nonce, its prefix up to the key id
// authenticated with it. The key id lets keys rotate: a Keyring seals under its first key and
// opens under any of them.
package secretbox

import (
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// prefix starts every sealed secret; v1 is this format.
const prefix = "enc:v1:"

// KeySize is the length of a key: 32 bytes, which `openssl rand -base64 32` makes.
const KeySize = chacha20poly1305.KeySize

// MaxKeyIDLength bounds a key id, which every sealed secret repeats.
const MaxKeyIDLength = 32

// DevelopmentKeyID names the development key (see Development).
const DevelopmentKeyID = "development"

// ErrTampered says a sealed secret does not authenticate: it was changed, or sealed under another
// key that has the same id. Never a wrong secret: what does not authenticate is not used.
var ErrTampered = errors.New("secretbox: the sealed secret does not authenticate (altered, or sealed under another key with the same id)")

// ErrNotSealed says a stored secret is not in the sealed format: a clear one.
var ErrNotSealed = errors.New("secretbox: the secret is not sealed")

// UnknownKeyError says a secret is sealed under a key id the keyring does not hold.
type UnknownKeyError struct{ ID string }

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("secretbox: the secret is sealed under the key %q, which is not configured", e.ID)
}

type key struct {
	id   string
	aead cipher.AEAD
}

// Keyring seals under its first key and opens under any of its keys.
type Keyring struct {
	keys []key
	dev  bool
}

// Parse reads keys written "id:base64key,id:base64key", the first sealing new secrets. Each key
// is the standard base64 of KeySize bytes; an id is 1 to MaxKeyIDLength letters, digits, dots,
// dashes or underscores, each id once. The development key stays able to open (never to seal), so
// that secrets sealed in development are resealed under the configured key.
func Parse(s string) (*Keyring, error) {
	r := &Keyring{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		id, enc, ok := strings.Cut(item, ":")
		if !ok {
			return nil, errors.New("must list keys as id:base64key separated by commas (a key such as `openssl rand -base64 32` makes)")
		}
		if !validID(id) {
			return nil, fmt.Errorf("key id %q: must be 1 to %d letters, digits, dots, dashes or underscores", id, MaxKeyIDLength)
		}
		if id == DevelopmentKeyID {
			return nil, fmt.Errorf("key id %q is the development key's; name the key otherwise", id)
		}
		if r.has(id) {
			return nil, fmt.Errorf("key id %q is listed twice", id)
		}
		// The key itself never goes in a message: a slip in it says only what is wrong.
		raw, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return nil, fmt.Errorf("key %q: must be standard base64, as `openssl rand -base64 32` writes", id)
		}
		if len(raw) != KeySize {
			return nil, fmt.Errorf("key %q: must be %d bytes, got %d (make one with `openssl rand -base64 32`)", id, KeySize, len(raw))
		}
		r.add(id, raw)
	}
	if len(r.keys) == 0 {
		return nil, errors.New("must list at least one key")
	}
	r.add(DevelopmentKeyID, developmentKey())
	return r, nil
}

// Development returns the keyring of development: the development key alone, derived from a
// fixed text and so known to anyone who reads this code. It keeps the code path the same as in
// production; it protects nothing, and the service warns when it is in use.
func Development() *Keyring {
	r := &Keyring{dev: true}
	r.add(DevelopmentKeyID, developmentKey())
	return r
}

func developmentKey() []byte {
	k := sha256.Sum256([]byte("petstore development webhook secret key: not a secret"))
	return k[:]
}

func (r *Keyring) add(id string, raw []byte) {
	aead, err := chacha20poly1305.NewX(raw)
	if err != nil { // only for a key of the wrong length, which Parse refused
		panic(err)
	}
	r.keys = append(r.keys, key{id: id, aead: aead})
}

func (r *Keyring) has(id string) bool { return r.find(id) != nil }

func (r *Keyring) find(id string) cipher.AEAD {
	for _, k := range r.keys {
		if k.id == id {
			return k.aead
		}
	}
	return nil
}

func validID(id string) bool {
	if id == "" || len(id) > MaxKeyIDLength {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// IsDevelopment reports whether the keyring is the development one.
func (r *Keyring) IsDevelopment() bool { return r.dev }

// Current is the id of the key that seals.
func (r *Keyring) Current() string { return r.keys[0].id }

// Seal encrypts plain under the first key.
func (r *Keyring) Seal(plain string) (string, error) {
	k := r.keys[0]
	head := prefix + k.id + ":"
	nonce := make([]byte, chacha20poly1305.NonceSizeX, chacha20poly1305.NonceSizeX+len(plain)+chacha20poly1305.Overhead)
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return head + base64.StdEncoding.EncodeToString(k.aead.Seal(nonce, nonce, []byte(plain), []byte(head))), nil
}

// KeyID returns the id of the key s is sealed under; false when s is not sealed.
func KeyID(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, ":")
	return id, ok
}

// Sealed reports whether s is in the sealed format (not whether it opens).
func Sealed(s string) bool {
	_, ok := KeyID(s)
	return ok
}

// Stale reports whether s is sealed under a key other than the first, or not sealed at all: it
// should be sealed again.
func (r *Keyring) Stale(s string) bool {
	id, ok := KeyID(s)
	return !ok || id != r.Current()
}

// Open decrypts a sealed secret: ErrNotSealed for a clear one, an UnknownKeyError for one under a
// key the keyring lacks, ErrTampered for one that does not authenticate.
func (r *Keyring) Open(s string) (string, error) {
	id, ok := KeyID(s)
	if !ok {
		return "", ErrNotSealed
	}
	aead := r.find(id)
	if aead == nil {
		return "", &UnknownKeyError{ID: id}
	}
	head := prefix + id + ":"
	raw, err := base64.StdEncoding.DecodeString(s[len(head):])
	if err != nil || len(raw) < chacha20poly1305.NonceSizeX+chacha20poly1305.Overhead {
		return "", ErrTampered
	}
	plain, err := aead.Open(nil, raw[:chacha20poly1305.NonceSizeX], raw[chacha20poly1305.NonceSizeX:], []byte(head))
	if err != nil {
		return "", ErrTampered
	}
	return string(plain), nil
}

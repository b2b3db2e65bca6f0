package secretbox_test

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/petstore/petstore/models/secretbox"
)

func newKey() string {
	b := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func parse(t *testing.T, s string) *secretbox.Keyring {
	t.Helper()
	r, err := secretbox.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSealedSecretsOpenUnderEveryKeyAndOnlyUnaltered(t *testing.T) {
	a, b := "a:"+newKey(), "b:"+newKey()
	old, rotated := parse(t, a), parse(t, b+","+a)
	sealed, err := old.Seal("whsec_secret")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sealed, "enc:v1:a:") || strings.Contains(sealed, "secret") {
		t.Fatalf("sealed %q", sealed)
	}
	if again, _ := old.Seal("whsec_secret"); again == sealed {
		t.Fatal("two seals of one secret are equal: the nonce is not random")
	}
	if got, err := rotated.Open(sealed); err != nil || got != "whsec_secret" || !rotated.Stale(sealed) || old.Stale(sealed) {
		t.Fatalf("the rotated keyring opens %q, %v; stale %v", got, err, rotated.Stale(sealed))
	}
	var unknown *secretbox.UnknownKeyError
	if _, err := parse(t, b).Open(sealed); !errors.As(err, &unknown) || unknown.ID != "a" {
		t.Fatalf("without key a: %v", err)
	}
	// The key id is authenticated: the same ciphertext relabelled as b's does not open.
	relabelled := strings.Replace(sealed, "enc:v1:a:", "enc:v1:b:", 1)
	for _, altered := range []string{relabelled, sealed[:len(sealed)-2] + "AA", sealed[:len(sealed)-10], sealed + "!"} {
		if _, err := rotated.Open(altered); !errors.Is(err, secretbox.ErrTampered) {
			t.Errorf("%q opened: %v", altered, err)
		}
	}
	if _, err := rotated.Open("whsec_secret"); !errors.Is(err, secretbox.ErrNotSealed) {
		t.Errorf("a clear secret: %v", err)
	}
}

func TestParseNamesWhatIsWrongWithoutTheKey(t *testing.T) {
	k := newKey()
	for in, want := range map[string]string{
		"":                   "at least one key",
		k:                    "id:base64key",
		"a:" + k + ",a:" + k: `"a" is listed twice`,
		"a:short":            `key "a": must be standard base64`,
		"a:c2hvcnQ=":         `key "a": must be 32 bytes, got 5`,
		"a b:" + k:           `key id "a b"`,
		"development:" + k:   "development key",
	} {
		_, err := secretbox.Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), k) {
			t.Errorf("Parse(%q) = %v, want an error saying %q and not the key", in, err, want)
		}
	}
}

// BenchmarkOpen is what each delivery adds to open its secret.
func BenchmarkOpen(b *testing.B) {
	r, err := secretbox.Parse("k:" + newKey())
	if err != nil {
		b.Fatal(err)
	}
	sealed, err := r.Seal("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYq=")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Open(sealed); err != nil {
			b.Fatal(err)
		}
	}
}

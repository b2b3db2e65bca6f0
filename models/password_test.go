package models_test

import (
	"strings"
	"testing"

	"github.com/petstore/petstore/models"
)

func TestPasswordsThatAreCommonGuessableOrHoldTheUsernameAreRefused(t *testing.T) {
	for _, tc := range []struct{ password, username, says string }{
		{"short", "ann", "at least 12 characters"},
		{strings.Repeat("long ", 15), "ann", "at most 72 bytes"},
		{"aaaaaaaaaaaa", "ann", "too easy to guess"},
		{"password1234", "ann", "too easy to guess"},
		{"Password123!", "ann", "too easy to guess"},
		{"iloveyou1234", "ann", "too easy to guess"},
		{"qwertyuiop12", "ann", "too easy to guess"},
		{"123456789012", "ann", "too easy to guess"},
		{"P@ssw0rd2024", "ann", "too easy to guess"},
		{"annann123456", "ann", "must not contain the username"},
		{"my name is ANN.LEE ok", "ann.lee", "must not contain the username"},
		{"ledger tulip nine", "ann", ""},
		{"correct horse battery", "ann", ""},
		// A two-letter name is inside too many words to refuse them for it.
		{"tulip alpine ledger", "al", ""},
	} {
		err := models.ValidatePassword("password", tc.password, tc.username)
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("%q for %s: refused (%v), want accepted", tc.password, tc.username, err)
		case tc.says != "" && (err == nil || !strings.Contains(err.Message, tc.says)):
			t.Errorf("%q for %s: %v, want refused saying %q", tc.password, tc.username, err, tc.says)
		}
	}
}

// The estimate reads 32 characters, so the longest password any form takes is checked quickly
// (zxcvbn took 2.4 s for all 72 of these l33t symbols).
func TestALong72CharacterPasswordIsAccepted(t *testing.T) {
	if err := models.ValidatePassword("password", longPassword, "ann"); err != nil {
		t.Fatalf("a 72-character random password: %v", err)
	}
}

// zxcvbn's cost climbs steeply with length; ValidatePassword scores only a prefix, so a long
// password costs about what a 32-character one does (docs/performance.md).
func BenchmarkValidatePasswordOf72Characters(b *testing.B) {
	for b.Loop() {
		_ = models.ValidatePassword("password", longPassword, "ann")
	}
}

var longPassword = strings.Repeat("4@8({[<3691!|70$5+%2xQzKwPmVnRtY", 3)[:72]

package models_test

import (
	"slices"
	"testing"

	"github.com/petstore/petstore/models"
)

func TestScopeSetsParseStoreAndReadBack(t *testing.T) {
	s, err := models.ParseScopes("scopes", []string{" orders:read", "pets:read", "orders:read", ""})
	if err != nil || !slices.Equal(s.Strings(), []string{"pets:read", "orders:read"}) || !s.Has(models.ScopeOrdersRead) || s.Has(models.ScopePetsWrite) {
		t.Fatalf("parsed %v (%v), want pets:read and orders:read in the scopes' order", s.Strings(), err)
	}
	v, _ := s.Value()
	var back models.ScopeSet
	if err := back.Scan(v); err != nil || back != s || v != "pets:read orders:read" {
		t.Fatalf("stored as %q, read back as %v (%v)", v, back.Strings(), err)
	}
	// A scope a later release added, read by this one, is left out rather than refused.
	if err := back.Scan([]byte("pets:read events:read")); err != nil || !slices.Equal(back.Strings(), []string{"pets:read"}) {
		t.Fatalf("read %v (%v), want pets:read alone", back.Strings(), err)
	}
	if len(models.AllScopes.Strings()) != len(models.Scopes) {
		t.Fatalf("every scope: %v", models.AllScopes.Strings())
	}
	for _, bad := range [][]string{nil, {""}, {"pets:all"}, {"pets:read", "PETS:WRITE"}} {
		if _, err := models.ParseScopes("scopes", bad); models.ErrorCode(err) != models.EValidation {
			t.Errorf("ParseScopes(%q): %v, want validation_failed", bad, err)
		}
	}
}

package models

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
)

// Scope is a permission an API key carries: every /v1 operation needs one.
type Scope string

// The scopes. Reading pets, categories and inventory needs pets:read; creating, changing and
// deleting pets pets:write; reading orders orders:read; placing and cancelling them orders:write;
// managing webhook endpoints webhooks.
const (
	ScopePetsRead    Scope = "pets:read"
	ScopePetsWrite   Scope = "pets:write"
	ScopeOrdersRead  Scope = "orders:read"
	ScopeOrdersWrite Scope = "orders:write"
	ScopeWebhooks    Scope = "webhooks"
)

// Scopes lists every scope in the order lists show them.
var Scopes = []Scope{ScopePetsRead, ScopePetsWrite, ScopeOrdersRead, ScopeOrdersWrite, ScopeWebhooks}

// ScopeSet is the set of scopes a key carries, one bit per entry of Scopes, so the check on
// every request is a mask. It is stored as the scopes' names separated by spaces, as OAuth
// writes a scope list.
type ScopeSet uint8

// AllScopes is the set a new key gets unless told otherwise, and what keys made before scopes
// existed were given.
var AllScopes = func() ScopeSet {
	var s ScopeSet
	for i := range Scopes {
		s |= 1 << i
	}
	return s
}()

func scopeBit(sc Scope) ScopeSet {
	for i, s := range Scopes {
		if s == sc {
			return 1 << i
		}
	}
	return 0
}

// Has reports whether the set holds sc.
func (s ScopeSet) Has(sc Scope) bool {
	b := scopeBit(sc)
	return b != 0 && s&b == b
}

// List returns the set's scopes in the order of Scopes.
func (s ScopeSet) List() []Scope {
	out := make([]Scope, 0, len(Scopes))
	for i, sc := range Scopes {
		if s&(1<<i) != 0 {
			out = append(out, sc)
		}
	}
	return out
}

// Strings returns the set's scopes' names in the order of Scopes.
func (s ScopeSet) Strings() []string {
	list := s.List()
	out := make([]string, len(list))
	for i, sc := range list {
		out[i] = string(sc)
	}
	return out
}

func (s ScopeSet) String() string { return strings.Join(s.Strings(), " ") }

// ParseScopes checks a list of scope names given by a user; field names the input in messages.
// Names may be repeated; at least one is needed.
func ParseScopes(field string, names []string) (ScopeSet, error) {
	var s ScopeSet
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		b := scopeBit(Scope(n))
		if b == 0 {
			return 0, FieldError(field, "%s is not a scope; the scopes are %s", strconv.Quote(n), AllScopes.joined(", "))
		}
		s |= b
	}
	if s == 0 {
		return 0, FieldError(field, "must name at least one of %s", AllScopes.joined(", "))
	}
	return s, nil
}

func (s ScopeSet) joined(sep string) string { return strings.Join(s.Strings(), sep) }

// GormDataType stores the set as a string column.
func (ScopeSet) GormDataType() string { return "string" }

// Value implements driver.Valuer.
func (s ScopeSet) Value() (driver.Value, error) { return s.String(), nil }

// Scan implements sql.Scanner; a name it does not know (from a later release) is left out.
func (s *ScopeSet) Scan(v any) error {
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	case nil:
	default:
		return fmt.Errorf("scopes: cannot read %T", v)
	}
	*s = 0
	for _, n := range strings.Fields(text) {
		*s |= scopeBit(Scope(n))
	}
	return nil
}

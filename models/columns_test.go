package models

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm/schema"
)

// The list queries name their columns and scan them by hand; a column added to a model must be
// added to them too, or lists would return it empty.
func TestListsReadEveryColumnOfTheirModel(t *testing.T) {
	for _, tc := range []struct {
		model   any
		columns string
	}{{&Pet{}, pets.columns}, {&Order{}, orders.columns}} {
		s, err := schema.Parse(tc.model, &sync.Map{}, schema.NamingStrategy{})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.ReplaceAll(tc.columns, " ", ""), ",")
		want := slices.Clone(s.DBNames)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the list reads %q, the table has %q", s.Table, got, want)
		}
	}
}

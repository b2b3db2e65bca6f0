package models

import (
	"reflect"
	"testing"
)

func TestNumberedRewritesPlaceholdersAndExpandsSlices(t *testing.T) {
	for _, c := range []struct {
		query     string
		args      []any
		wantQuery string
		wantArgs  []any
	}{
		{"SELECT 1", nil, "SELECT 1", []any{}},
		{"a = ? AND b = ? LIMIT ?", []any{"x", int64(2), 21}, "a = $1 AND b = $2 LIMIT $3", []any{"x", int64(2), 21}},
		{"status = ? AND id IN ? AND name LIKE ? ESCAPE '\\' LIMIT ?", []any{"sold", []int64{4, 5, 6}, "%a%", 3},
			"status = $1 AND id IN ($2,$3,$4) AND name LIKE $5 ESCAPE '\\' LIMIT $6", []any{"sold", int64(4), int64(5), int64(6), "%a%", 3}},
		{"id IN ? AND data = ?", []any{[]string{"a"}, []byte("raw")}, "id IN ($1) AND data = $2", []any{"a", []byte("raw")}},
	} {
		q, args := numbered(c.query, c.args)
		if q != c.wantQuery || !reflect.DeepEqual(args, c.wantArgs) {
			t.Errorf("numbered(%q, %v) = %q, %#v; want %q, %#v", c.query, c.args, q, args, c.wantQuery, c.wantArgs)
		}
	}
}

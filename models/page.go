package models

import (
	"context"
	"database/sql"
	"encoding/base64"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

// Page limits shared by every list of the API.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Sort orders a keyset list by one of its sort keys, then by id in the same direction, so that
// every item has exactly one place. The zero Sort is id ascending, the API's only order.
type Sort struct {
	Key  string // a key the list allows (its keyset's sortKeys); "" sorts by id alone
	Desc bool
}

// String is the sort as a query parameter writes it: "id", "-id", "name", "-name".
func (s Sort) String() string {
	key := s.Key
	if key == "" {
		key = "id"
	}
	if s.Desc {
		return "-" + key
	}
	return key
}

// Cursor is a position in a keyset list: the page starts after the item with this id and sort
// value (or, for a previous page, ends before it), in the order it was made for.
type Cursor struct {
	Sort Sort
	ID   int64
	// Value is the item's value of Sort.Key, as text; empty when sorting by id.
	Value string
	// Before asks for the page that ends just before the item; Last for the list's last page
	// (ID and Value unused).
	Before bool
	Last   bool
}

// Page asks for up to Limit items of a list in Sort's order, from Cursor (nil: the first page).
type Page struct {
	Limit  int
	Sort   Sort
	Cursor *Cursor
}

// Paged is one page of a list and the cursors of its neighbours, nil where there is none.
type Paged[T any] struct {
	Items      []T
	Prev, Next *Cursor
}

// Cursors are opaque to clients: base64url of "v2:<sort>:<a|b|z>:<id>:<value>" (after, before,
// last). The value comes last, so it may hold any text. The 1.0.0 form "v1:<id>" (after that
// id, in id order) still decodes: links handed out before stay valid.
const (
	cursorV1 = "v1:"
	cursorV2 = "v2:"
)

// MaxCursorLength bounds a cursor of the id order, the API's: the longest Encode makes there has
// 38 characters, so a longer one was not handed out by the service and is refused without
// decoding it. A cursor of another order carries its sort value, up to maxSortedCursorLength.
const (
	MaxCursorLength       = 64
	maxSortedCursorLength = 1024
)

// Encode makes the opaque token that a client sends back as ?cursor=.
func (c Cursor) Encode() string {
	mode := "a"
	switch {
	case c.Last:
		mode = "z"
	case c.Before:
		mode = "b"
	}
	raw := cursorV2 + c.Sort.String() + ":" + mode + ":" + strconv.FormatInt(c.ID, 10) + ":" + c.Value
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor reads a token made by Encode for a list in sort's order. A token that is not one,
// or was made for another order, is refused naming the cursor parameter.
func DecodeCursor(s string, sort Sort) (*Cursor, error) {
	bad := &Error{Code: EInvalid, Field: "cursor", Message: "cursor: malformed cursor; use the one from the previous page's Link header"}
	if len(s) > MaxCursorLength && (sort.Key == "" || len(s) > maxSortedCursorLength) {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	raw := string(b)
	if rest, ok := strings.CutPrefix(raw, cursorV1); ok {
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || id < 0 || sort != (Sort{}) {
			return nil, bad
		}
		return &Cursor{ID: id}, nil
	}
	rest, ok := strings.CutPrefix(raw, cursorV2)
	parts := strings.SplitN(rest, ":", 4)
	if !ok || len(parts) != 4 {
		return nil, bad
	}
	if parts[0] != sort.String() {
		return nil, &Error{Code: EInvalid, Field: "cursor",
			Message: "cursor: made for another sort order (" + parts[0] + "); start again from the first page"}
	}
	c := &Cursor{Sort: sort, Value: parts[3]}
	switch parts[1] {
	case "a":
	case "b":
		c.Before = true
	case "z":
		c.Last = true
	default:
		return nil, bad
	}
	if c.ID, err = strconv.ParseInt(parts[2], 10, 64); err != nil || c.ID < 0 || (sort.Key == "" && c.Value != "") {
		return nil, bad
	}
	return c, nil
}

// ParseLimit reads a page size from a query parameter: empty means the default; anything that
// is not an integer in 1..MaxLimit is refused rather than clamped.
func ParseLimit(s string) (int, error) {
	if s == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxLimit {
		return 0, &Error{Code: EInvalid, Field: "limit", Message: "limit: must be an integer from 1 to 100"}
	}
	return n, nil
}

// keyset is how one table is listed a page at a time, never with OFFSET: the cost of a page
// does not grow with its depth, and an item added or removed meanwhile moves nothing else.
type keyset[T any] struct {
	table string
	// columns are read in this order by scan.
	columns string
	scan    func(*sql.Rows, *T) error
	// sortKeys maps the keys a list may be sorted by, besides id, to their (text) columns, and
	// sortValue reads an item's value of one.
	sortKeys  map[string]string
	sortValue func(*T, string) string
	id        func(*T) int64
}

// list returns the page of the rows matching the conditions (SQL joined with AND, and their
// arguments). The statement is written out, and the rows scanned by hand: GORM's clause
// building and reflective scan cost about a quarter of the CPU of a list request.
func (k keyset[T]) list(ctx context.Context, db *gorm.DB, where []string, args []any, page Page) (Paged[T], error) {
	var out Paged[T]
	column := "id"
	if page.Sort.Key != "" {
		c, ok := k.sortKeys[page.Sort.Key]
		if !ok {
			return out, &Error{Code: EInvalid, Field: "sort", Message: "sort: " + strconv.Quote(page.Sort.Key) + " is not a sort key of this list"}
		}
		column = c
	}
	cur := page.Cursor
	// A previous or last page is read backwards from its end, then turned around.
	backwards := cur != nil && (cur.Before || cur.Last)
	desc := page.Sort.Desc != backwards
	if cur != nil && !cur.Last {
		op := ">"
		if desc {
			op = "<"
		}
		if column == "id" {
			where = append(where, "id "+op+" ?")
			args = append(args, cur.ID)
		} else {
			where = append(where, "("+column+" "+op+" ? OR ("+column+" = ? AND id "+op+" ?))")
			args = append(args, cur.Value, cur.Value, cur.ID)
		}
	}
	dir := ""
	if desc {
		dir = " DESC"
	}
	order := "id" + dir
	if column != "id" {
		order = column + dir + ", " + order
	}
	query := "SELECT " + k.columns + " FROM " + k.table
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	// One row more than asked says whether more follow, instead of counting.
	rows, err := db.WithContext(ctx).Raw(query+" ORDER BY "+order+" LIMIT ?", append(args, page.Limit+1)...).Rows()
	if err != nil {
		return out, storeError(err, "")
	}
	defer rows.Close()
	items := make([]T, 0, page.Limit+1)
	for rows.Next() {
		var item T
		if err := k.scan(rows, &item); err != nil {
			return out, storeError(err, "")
		}
		items = append(items, item)
	}
	if err := rows.Err(); err != nil {
		return out, storeError(err, "")
	}
	more := len(items) > page.Limit
	if more {
		items = items[:page.Limit]
	}
	if backwards {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	out.Items = items
	if len(items) == 0 {
		return out, nil
	}
	hasPrev, hasNext := cur != nil, more
	if backwards {
		hasPrev, hasNext = more, !cur.Last
	}
	at := func(item *T, before bool) *Cursor {
		c := &Cursor{Sort: page.Sort, ID: k.id(item), Before: before}
		if page.Sort.Key != "" {
			c.Value = k.sortValue(item, page.Sort.Key)
		}
		return c
	}
	if hasPrev {
		out.Prev = at(&items[0], true)
	}
	if hasNext {
		out.Next = at(&items[len(items)-1], false)
	}
	return out, nil
}

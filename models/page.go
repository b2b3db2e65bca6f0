package models

import (
	"context"
	"database/sql"
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
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
	// Count asks for the list's total and the page's place in it as well (Paged.Total, Before).
	Count bool
	// Skip, without a Cursor, starts the page after the list's first Skip items: a jump to a
	// page by its number. At most MaxSkip; past the list's end, the page is its last.
	Skip int
}

// MaxSkip bounds a page jump by the rows it passes over, which the database reads one by one
// (OFFSET): as many as a list's total is counted exactly (countCap), so every page of a counted
// list has a number, and no jump costs more than that count. Past it, a list is reached from its
// last page backwards, or narrowed with filters.
const MaxSkip = countCap

// ErrSkipTooFar refuses a page jump past MaxSkip rows.
var ErrSkipTooFar = &Error{Code: EInvalid, Field: "page", Message: "page: page numbers reach the first " + strconv.Itoa(MaxSkip) + " rows; narrow the list with filters, or go to the last page"}

// Paged is one page of a list and the cursors of its neighbours, nil where there is none.
type Paged[T any] struct {
	Items      []T
	Prev, Next *Cursor
	// Total is how many items the list holds, and Before how many come before this page; both
	// only when the page asked to Count.
	Total, Before Total
}

// Cursors are opaque to clients: base64url of "v2:<sort>:<a|b|z>:<id>:<value>" (after, before,
// last). The value comes last, so it may hold any text. The 1.0.0 form "v1:<id>" (after that
// id, in id order) still decodes: links handed out before stay valid.
const (
	cursorV1 = "v1:"
	cursorV2 = "v2:"
)

// badCursor refuses a cursor the service did not hand out, or has been tampered with.
var badCursor = &Error{Code: EInvalid, Field: "cursor", Message: "cursor: malformed cursor; use the one from the previous page's Link header"}

// MaxCursorLength bounds a cursor of the API's orders, so that a longer one, which the service
// did not hand out, is refused without decoding it. The id order's longest has 38 characters;
// the events order's stays within 64 while event ids and transaction ids are below 10^16, which
// no database reaches. A cursor of an admin order carries its sort value, up to
// maxSortedCursorLength.
const (
	MaxCursorLength       = 64
	maxSortedCursorLength = 1024
)

// maxCursorLength is the longest cursor DecodeCursor reads for sort.
func maxCursorLength(sort Sort) int {
	if sort.Key == "" || sort == EventOrder {
		return MaxCursorLength
	}
	return maxSortedCursorLength
}

// Encode makes the opaque token that a client sends back as ?cursor=.
func (c Cursor) Encode() string { return string(c.AppendEncoded(nil)) }

// AppendEncoded appends the token Encode makes to dst.
func (c Cursor) AppendEncoded(dst []byte) []byte {
	mode := byte('a')
	switch {
	case c.Last:
		mode = 'z'
	case c.Before:
		mode = 'b'
	}
	var room [64]byte
	raw := append(room[:0], cursorV2...)
	raw = append(raw, c.Sort.String()...)
	raw = append(raw, ':', mode, ':')
	raw = strconv.AppendInt(raw, c.ID, 10)
	raw = append(raw, ':')
	raw = append(raw, c.Value...)
	return base64.RawURLEncoding.AppendEncode(dst, raw)
}

// DecodeCursor reads a token made by Encode for a list in sort's order. A token that is not one,
// or was made for another order, is refused naming the cursor parameter.
func DecodeCursor(s string, sort Sort) (*Cursor, error) {
	if len(s) > maxCursorLength(sort) {
		return nil, badCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, badCursor
	}
	raw := string(b)
	if rest, ok := strings.CutPrefix(raw, cursorV1); ok {
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || id < 0 || sort != (Sort{}) {
			return nil, badCursor
		}
		return &Cursor{ID: id}, nil
	}
	rest, ok := strings.CutPrefix(raw, cursorV2)
	parts := strings.SplitN(rest, ":", 4)
	if !ok || len(parts) != 4 {
		return nil, badCursor
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
		return nil, badCursor
	}
	if c.ID, err = strconv.ParseInt(parts[2], 10, 64); err != nil || c.ID < 0 || (sort.Key == "" && c.Value != "") {
		return nil, badCursor
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
	// sortKeys are the keys a list may be sorted by, besides id.
	sortKeys map[string]sortKey[T]
	id       func(*T) int64
	// scope, when set, shapes each read of the list's items (the columns it selects); a read of
	// named columns (a page jump's) is not shaped, so that it can stay in the index.
	scope func(*gorm.DB) *gorm.DB
}

// sortKey is a column a list may be sorted by, each (column, id) pair read through an index on
// both. Items without a value (NULL, in a nullable column) come after every item with one, in
// both directions, by id.
type sortKey[T any] struct {
	column   string
	nullable bool
	// value is an item's value as its cursor carries it, "" for none; arg reads it back as the
	// statement's argument.
	value func(*T) string
	arg   func(string) (any, error)
}

func textKey[T any](column string, value func(*T) string) sortKey[T] {
	return sortKey[T]{column: column, value: value, arg: func(s string) (any, error) { return s, nil }}
}

// intKey sorts by an integer column.
func intKey[T any](column string, value func(*T) int64) sortKey[T] {
	return sortKey[T]{column: column,
		value: func(item *T) string { return strconv.FormatInt(value(item), 10) },
		arg:   func(s string) (any, error) { return strconv.ParseInt(s, 10, 64) },
	}
}

// timeKey sorts by a time column; a nil time (nullable) is an item without a value.
func timeKey[T any](column string, nullable bool, value func(*T) *time.Time) sortKey[T] {
	return sortKey[T]{column: column, nullable: nullable,
		value: func(item *T) string {
			if t := value(item); t != nil {
				return t.UTC().Format(time.RFC3339Nano)
			}
			return ""
		},
		arg: func(s string) (any, error) {
			t, err := time.Parse(time.RFC3339Nano, s)
			return t.UTC(), err
		},
	}
}

// segment is a stretch of a list that one statement reads in order: the items with a value of
// the sort key, or those without one.
type segment struct {
	where []string
	args  []any
	order string
}

// segments are the statements that read a list from cur on, in the direction of travel (desc:
// descending), in the order they are read: one or two. Each statement's WHERE is a range of one
// index. (An array rather than a slice: the API's lists allocate nothing for it.)
type segments struct {
	s [2]segment
	n int
}

func one(s segment) segments    { return segments{s: [2]segment{s}, n: 1} }
func two(a, b segment) segments { return segments{s: [2]segment{a, b}, n: 2} }

func (k keyset[T]) segments(sort Sort, cur *Cursor, desc bool) (segments, error) {
	op, dir := ">", ""
	if desc {
		op, dir = "<", " DESC"
	}
	if sort.Key == "" {
		s := segment{order: "id" + dir}
		if cur != nil && !cur.Last {
			s.where, s.args = []string{"id " + op + " ?"}, []any{cur.ID}
		}
		return one(s), nil
	}
	key, ok := k.sortKeys[sort.Key]
	if !ok {
		return segments{}, &Error{Code: EInvalid, Field: "sort", Message: "sort: " + strconv.Quote(sort.Key) + " is not a sort key of this list"}
	}
	valued := segment{order: key.column + dir + ", id" + dir}
	if key.nullable {
		valued.where = []string{key.column + " IS NOT NULL"}
	}
	if !key.nullable {
		if cur != nil && !cur.Last {
			v, err := key.arg(cur.Value)
			if err != nil {
				return segments{}, badCursor
			}
			valued.where, valued.args = []string{"(" + key.column + ", id) " + op + " (?, ?)"}, []any{v, cur.ID}
		}
		return one(valued), nil
	}
	// Travelling towards the end (ascending, or the descending order read forwards) the valued
	// items come first; travelling back, the items without a value do.
	none := segment{where: []string{key.column + " IS NULL"}, order: "id" + dir}
	forwards := desc == sort.Desc
	switch {
	case cur == nil || cur.Last:
	case cur.Value == "":
		none.where, none.args = append(none.where, "id "+op+" ?"), []any{cur.ID}
		if forwards {
			return one(none), nil
		}
	default:
		v, err := key.arg(cur.Value)
		if err != nil {
			return segments{}, badCursor
		}
		valued.where, valued.args = append(valued.where, "("+key.column+", id) "+op+" (?, ?)"), []any{v, cur.ID}
		if !forwards {
			return one(valued), nil
		}
	}
	if forwards {
		return two(valued, none), nil
	}
	return two(none, valued), nil
}

// list returns the page of the rows matching the conditions (SQL joined with AND, and their
// arguments).
func (k keyset[T]) list(ctx context.Context, db *gorm.DB, where []string, args []any, page Page) (Paged[T], error) {
	var out Paged[T]
	var err error
	cur := page.Cursor
	jumped := false
	if cur == nil && page.Skip > 0 {
		if page.Skip > MaxSkip {
			return out, ErrSkipTooFar
		}
		if cur, err = k.nth(ctx, db, where, args, page.Sort, page.Skip-1); err != nil {
			return out, err
		}
		jumped = cur != nil
		if !jumped {
			cur = &Cursor{Sort: page.Sort, Last: true}
		}
		page.Cursor = cur
	}
	// A previous or last page is read backwards from its end, then turned around.
	backwards := cur != nil && (cur.Before || cur.Last)
	segs, err := k.segments(page.Sort, cur, page.Sort.Desc != backwards)
	if err != nil {
		return out, err
	}
	// One row more than asked says whether more follow, instead of counting.
	items := make([]T, 0, page.Limit+1)
	for _, s := range segs.s[:segs.n] {
		if len(items) > page.Limit {
			break
		}
		if items, err = k.read(ctx, db, where, args, s, "", page.Limit+1-len(items), 0, items); err != nil {
			return out, err
		}
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
	hasPrev, hasNext := cur != nil, more
	if backwards {
		hasPrev, hasNext = more, !cur.Last
	}
	if hasPrev && len(items) > 0 {
		out.Prev = k.at(page.Sort, &items[0], true)
	}
	if hasNext && len(items) > 0 {
		out.Next = k.at(page.Sort, &items[len(items)-1], false)
	}
	if page.Count {
		return out, k.totals(ctx, db, where, args, page, jumped, &out)
	}
	return out, nil
}

// nth is the cursor just after the list's item at place n (from 0) in sort's order, nil when the
// list is shorter. Each segment is passed over with OFFSET, which reads every row it skips.
func (k keyset[T]) nth(ctx context.Context, db *gorm.DB, where []string, args []any, sort Sort, n int) (*Cursor, error) {
	segs, err := k.segments(sort, nil, sort.Desc)
	if err != nil {
		return nil, err
	}
	// Only what the cursor needs: the rows passed over are then read in the index alone.
	cols := "id"
	if sort.Key != "" {
		cols += ", " + k.sortKeys[sort.Key].column
	}
	for i, s := range segs.s[:segs.n] {
		items, err := k.read(ctx, db, where, args, s, cols, 1, n, nil)
		if err != nil {
			return nil, err
		}
		if len(items) == 1 {
			return k.at(sort, &items[0], false), nil
		}
		if i == segs.n-1 {
			break
		}
		// The place lies in a later segment: pass over this one's rows, counted up to n.
		var got int64
		query := "SELECT COUNT(*) FROM (SELECT 1 FROM " + k.table
		if conds := append(where, s.where...); len(conds) > 0 {
			query += " WHERE " + strings.Join(conds, " AND ")
		}
		if err := db.WithContext(ctx).Raw(query+" LIMIT ?) AS c", append(append(args, s.args...), n)...).Row().Scan(&got); err != nil {
			return nil, storeError(err, "")
		}
		n -= int(got)
	}
	return nil, nil
}

// at is the cursor of the page that starts after item (or, before, ends before it).
func (k keyset[T]) at(sort Sort, item *T, before bool) *Cursor {
	c := &Cursor{Sort: sort, ID: k.id(item), Before: before}
	if sort.Key != "" {
		c.Value = k.sortKeys[sort.Key].value(item)
	}
	return c
}

// read appends up to limit rows of one segment to items, after passing over offset of them;
// with cols, only those columns.
func (k keyset[T]) read(ctx context.Context, db *gorm.DB, where []string, args []any, s segment, cols string, limit, offset int, items []T) ([]T, error) {
	// Unscoped: the conditions say which rows, deleted ones included, a list reads.
	q := db.WithContext(ctx).Unscoped()
	if cols != "" {
		q = q.Select(cols)
	} else if k.scope != nil {
		q = k.scope(q)
	}
	// Appending leaves the caller's slices as they were (their length), whatever it writes past it.
	if conds := append(where, s.where...); len(conds) > 0 {
		q = q.Where(strings.Join(conds, " AND "), append(args, s.args...)...)
	}
	if offset > 0 {
		q = q.Offset(offset)
	}
	rows, err := q.Model(new(T)).Order(s.order).Limit(limit).Rows()
	if err != nil {
		return items, storeError(err, "")
	}
	items, err = scanRows(ctx, db, rows, items)
	return items, storeError(err, "")
}

// schemas caches the GORM schemas scanRows and petColumns parse.
var schemas sync.Map

var scannerType = reflect.TypeFor[sql.Scanner]()

// scanRows appends the rows to items, each column scanned straight into its field of T (by T's
// GORM schema) when the field can take whatever the column holds: a NOT NULL column, a pointer,
// a Scanner. A nullable column of another type goes through GORM's own value and setter, which
// make NULL the zero value. GORM's Find takes that second way for every column: it cost a list
// of pets a fifth of its CPU (docs/performance.md).
func scanRows[T any](ctx context.Context, db *gorm.DB, rows *sql.Rows, items []T) ([]T, error) {
	defer rows.Close()
	sch, err := schema.Parse(new(T), &schemas, db.NamingStrategy)
	if err != nil {
		return items, err
	}
	cols, err := rows.Columns()
	if err != nil {
		return items, err
	}
	fields := make([]*schema.Field, len(cols))
	direct := make([]bool, len(cols))
	for i, c := range cols {
		f := sch.LookUpField(c)
		fields[i] = f
		direct[i] = f != nil && (f.NotNull || f.PrimaryKey || f.FieldType.Kind() == reflect.Pointer ||
			reflect.PointerTo(f.FieldType).Implements(scannerType))
	}
	dest := make([]any, len(cols))
	var discard any
	for rows.Next() {
		var item T
		v := reflect.ValueOf(&item).Elem()
		for i, f := range fields {
			switch {
			case f == nil:
				dest[i] = &discard
			case direct[i]:
				dest[i] = f.ReflectValueOf(ctx, v).Addr().Interface()
			default:
				dest[i] = f.NewValuePool.Get()
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return items, err
		}
		for i, f := range fields {
			if f != nil && !direct[i] {
				err := f.Set(ctx, v, dest[i])
				f.NewValuePool.Put(dest[i])
				if err != nil {
					return items, err
				}
			}
		}
		items = append(items, item)
	}
	return items, rows.Err()
}

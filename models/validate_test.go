package models

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestNewPetValidate(t *testing.T) {
	cases := []struct {
		name   string
		in     NewPet
		want   Pet
		fields []string // fields the error names, in order; nil for success
	}{
		{"defaults status and trims", NewPet{Name: ptr("  Rex\t"), CategoryID: ptr[int64](2)}, Pet{Name: "Rex", CategoryID: 2, Status: PetAvailable}, nil},
		{"keeps a given status", NewPet{Name: ptr("Rex"), CategoryID: ptr[int64](1), Status: ptr("sold")}, Pet{Name: "Rex", CategoryID: 1, Status: PetSold}, nil},
		{"100 code points", NewPet{Name: ptr(strings.Repeat("ß", 100)), CategoryID: ptr[int64](1)}, Pet{Name: strings.Repeat("ß", 100), CategoryID: 1, Status: PetAvailable}, nil},
		{"everything missing", NewPet{}, Pet{}, []string{"name", "categoryId"}},
		{"101 code points", NewPet{Name: ptr(strings.Repeat("ß", 101)), CategoryID: ptr[int64](1)}, Pet{}, []string{"name"}},
		{"newline inside", NewPet{Name: ptr("Re\nx"), CategoryID: ptr[int64](1)}, Pet{}, []string{"name"}},
		{"right-to-left override", NewPet{Name: ptr("Rex\u202Exe"), CategoryID: ptr[int64](1)}, Pet{}, []string{"name"}},
		{"zero-width space", NewPet{Name: ptr("Re\u200Bx"), CategoryID: ptr[int64](1)}, Pet{}, []string{"name"}},
		{"byte-order mark", NewPet{Name: ptr("\uFEFFRex"), CategoryID: ptr[int64](1)}, Pet{}, []string{"name"}},
		{"negative category", NewPet{Name: ptr("Rex"), CategoryID: ptr[int64](-4)}, Pet{}, []string{"categoryId"}},
		{"unknown status", NewPet{Name: ptr("Rex"), CategoryID: ptr[int64](1), Status: ptr("AVAILABLE")}, Pet{}, []string{"status"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Validate()
			if tc.fields == nil {
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("Validate() = %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if ErrorCode(err) != EValidation {
				t.Fatalf("Validate() error %v, want %s", err, EValidation)
			}
			msg := ErrorMessage(err)
			for _, f := range tc.fields {
				if !strings.Contains(msg, f+":") {
					t.Fatalf("message %q does not name %s", msg, f)
				}
			}
			if err.(*Error).Field != tc.fields[0] {
				t.Fatalf("Field %q, want %q", err.(*Error).Field, tc.fields[0])
			}
		})
	}
}

func TestCursorRoundTripsAndRefusesForgeries(t *testing.T) {
	name, byID := Sort{Key: "name", Desc: true}, Sort{}
	for _, c := range []Cursor{{ID: 0}, {ID: 250}, {ID: 1<<63 - 1}, {Sort: Sort{Desc: true}, ID: 9, Before: true},
		{Sort: name, ID: 3, Value: "Rex: the one with a colon"}, {Sort: name, ID: 3, Value: ""}, {Sort: name, Last: true}} {
		got, err := DecodeCursor(c.Encode(), c.Sort)
		if err != nil || *got != c {
			t.Fatalf("DecodeCursor(%+v.Encode()) = %+v, %v", c, got, err)
		}
	}
	// The token of a page handed out before stays the same.
	if got := (Cursor{ID: 23}).Encode(); got != "djI6aWQ6YToyMzo" {
		t.Fatalf("the cursor after id 23 is %q, was djI6aWQ6YToyMzo", got)
	}
	// Links handed out by 1.0.0 carried "v1:<id>": they still continue the id-ordered list.
	if got, err := DecodeCursor("djE6MjUw", byID); err != nil || *got != (Cursor{ID: 250}) {
		t.Fatalf("the 1.0.0 cursor for id 250 decodes as %+v, %v", got, err)
	}
	for _, bad := range []string{"", "!!", "MTIz", Cursor{ID: 5}.Encode() + "x", "djE6LTE", "djE6YWJj",
		base64.RawURLEncoding.EncodeToString([]byte("v2:id:q:5:")), base64.RawURLEncoding.EncodeToString([]byte("v2:id:a:5:x")),
		base64.RawURLEncoding.EncodeToString([]byte("v2:id:a:-5:")), base64.RawURLEncoding.EncodeToString([]byte("v3:id:a:5:")),
		// id 5 with leading zeros: it would decode, but no cursor the service hands out is that long
		base64.RawURLEncoding.EncodeToString([]byte(cursorV1 + strings.Repeat("0", 60) + "5")),
		base64.RawURLEncoding.EncodeToString([]byte("v2:id:a:" + strings.Repeat("0", 60) + "5:"))} {
		if _, err := DecodeCursor(bad, byID); ErrorCode(err) != EInvalid {
			t.Fatalf("DecodeCursor(%q) error %v, want %s", bad, err, EInvalid)
		}
	}
	// A cursor of one order continues no other: refused, naming the parameter.
	if _, err := DecodeCursor(Cursor{Sort: name, ID: 3, Value: "Rex"}.Encode(), byID); ErrorCode(err) != EInvalid || !strings.Contains(ErrorMessage(err), "cursor") {
		t.Fatalf("a name-ordered cursor on the id order: %v", err)
	}
	if _, err := DecodeCursor("djE6MjUw", name); ErrorCode(err) != EInvalid {
		t.Fatalf("a 1.0.0 cursor on the name order: %v", err)
	}
	// The longest cursors the service makes fit the bounds it sets.
	if c := (Cursor{Sort: Sort{Desc: true}, ID: 1<<63 - 1, Before: true}).Encode(); len(c) > MaxCursorLength {
		t.Fatalf("an id-order cursor of %d characters, over MaxCursorLength", len(c))
	}
	events := Cursor{Sort: EventOrder, ID: 1e16 - 1, Value: "9999999999999999"}
	if got, err := DecodeCursor(events.Encode(), EventOrder); len(events.Encode()) > MaxCursorLength || err != nil || *got != events {
		t.Fatalf("an events cursor of %d characters: %v; want at most MaxCursorLength, decoded", len(events.Encode()), err)
	}
	// Past that bound an events cursor is refused unread, as the API documents (maxLength 64).
	padded := base64.RawURLEncoding.EncodeToString([]byte("v2:recorded:a:" + strings.Repeat("0", 40) + "5:7"))
	if _, err := DecodeCursor(padded, EventOrder); len(padded) <= MaxCursorLength || ErrorCode(err) != EInvalid {
		t.Fatalf("an events cursor of %d characters: %v, want %s", len(padded), err, EInvalid)
	}
	long := Cursor{Sort: name, ID: 1<<63 - 1, Value: strings.Repeat("🐕", MaxNameLength)}
	if got, err := DecodeCursor(long.Encode(), name); err != nil || *got != long {
		t.Fatalf("the longest name-order cursor: %v", err)
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int{"": DefaultLimit, "1": 1, "100": 100} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Fatalf("ParseLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "101", "-3", "ten", "2.0", " 5"} {
		if _, err := ParseLimit(in); ErrorCode(err) != EInvalid {
			t.Fatalf("ParseLimit(%q) error %v, want %s", in, err, EInvalid)
		}
	}
}

package models

import (
	"encoding/base64"
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
		{"negative category", NewPet{Name: ptr("Rex"), CategoryID: ptr[int64](-4)}, Pet{}, []string{"categoryId"}},
		{"unknown status", NewPet{Name: ptr("Rex"), CategoryID: ptr[int64](1), Status: ptr("AVAILABLE")}, Pet{}, []string{"status"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Validate()
			if tc.fields == nil {
				if err != nil || got != tc.want {
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
	for _, id := range []int64{0, 1, 250, 1<<63 - 1} {
		got, err := DecodeCursor(EncodeCursor(id))
		if err != nil || got != id {
			t.Fatalf("DecodeCursor(EncodeCursor(%d)) = %d, %v", id, got, err)
		}
	}
	for _, bad := range []string{"", "!!", "MTIz", EncodeCursor(5) + "x", "djE6LTE", "djE6YWJj",
		// id 5 with leading zeros: it would decode, but no cursor the service hands out is that long
		base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strings.Repeat("0", 60) + "5"))} {
		if _, err := DecodeCursor(bad); ErrorCode(err) != EInvalid {
			t.Fatalf("DecodeCursor(%q) error %v, want %s", bad, err, EInvalid)
		}
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

package models

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Page limits shared by every list of the API.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Page asks for up to Limit items whose id is greater than After (keyset pagination: the cost
// of a page does not grow with its depth).
type Page struct {
	Limit int
	After int64
}

const cursorPrefix = "v1:"

// MaxCursorLength bounds a cursor: the longest EncodeCursor makes has 30 characters, so a longer
// one was not handed out by the service and is refused without decoding it.
const MaxCursorLength = 64

// EncodeCursor makes the opaque token that continues a list after the item with this id.
func EncodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(id, 10)))
}

// DecodeCursor reads a token made by EncodeCursor.
func DecodeCursor(s string) (int64, error) {
	bad := &Error{Code: EInvalid, Field: "cursor", Message: "cursor: malformed cursor; use the one from the previous page's Link header"}
	if len(s) > MaxCursorLength {
		return 0, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(raw), cursorPrefix) {
		return 0, bad
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(string(raw), cursorPrefix), 10, 64)
	if err != nil || id < 0 {
		return 0, bad
	}
	return id, nil
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

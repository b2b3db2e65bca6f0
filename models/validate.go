package models

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLength is the most Unicode code points a pet's or a category's name may have.
const MaxNameLength = 100

// validName trims a name and checks it: 1 to 100 code points after trimming, no control
// characters, and no invisible format characters (Unicode category Cf: bidirectional overrides
// that make a name read backwards, zero-width characters, a byte-order mark), which would let
// two names that look the same differ.
func validName(field, name string) (string, *Error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case !utf8.ValidString(name):
		return "", FieldError(field, "must be valid UTF-8")
	case n == 0:
		return "", FieldError(field, "must not be empty")
	case n > MaxNameLength:
		return "", FieldError(field, "must be at most %d characters, got %d", MaxNameLength, n)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", FieldError(field, "must not contain control characters")
	case strings.IndexFunc(name, isFormat) >= 0:
		r, _ := utf8.DecodeRuneInString(name[strings.IndexFunc(name, isFormat):])
		return "", FieldError(field, "must not contain invisible format characters such as %U", r)
	}
	return name, nil
}

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }

// fieldErrors collects the errors of several fields into one: the first field names it, the
// message lists them all.
type fieldErrors []*Error

func (fe *fieldErrors) add(e *Error) {
	if e != nil {
		*fe = append(*fe, e)
	}
}

func (fe fieldErrors) err() error {
	if len(fe) == 0 {
		return nil
	}
	msgs := make([]string, len(fe))
	for i, e := range fe {
		msgs[i] = e.Message
	}
	return &Error{Code: EValidation, Field: fe[0].Field, Message: strings.Join(msgs, "; "), Fields: fe}
}

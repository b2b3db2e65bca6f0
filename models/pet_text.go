package models

import (
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a pet's description and tags (docs/design.md, "Descriptions and tags").
const (
	MaxDescriptionLength = 2000
	MaxTags              = 10
	MaxTagLength         = 32
	// MaxSearchLength bounds the word search q, in characters.
	MaxSearchLength = 100
)

// Tags are a pet's tags, sorted and distinct. They are stored in one text column, separated by
// spaces (a tag holds none), so that a page of pets is read with its tags in the same statement;
// PostgreSQL indexes the column as an array (string_to_array) for the tag filter.
type Tags []string

// Value writes the tags as the column holds them.
func (t Tags) Value() (driver.Value, error) { return strings.Join(t, " "), nil }

// Scan reads the column.
func (t *Tags) Scan(v any) error {
	var s string
	switch v := v.(type) {
	case nil:
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("tags: cannot read %T", v)
	}
	*t = strings.Fields(s)
	return nil
}

// List is the tags as the API shows them: never nil, so JSON has [] for none.
func (t Tags) List() []string {
	if t == nil {
		return []string{}
	}
	return t
}

// validPetDescription trims a description and checks it: at most MaxDescriptionLength code points;
// line breaks are allowed (CRLF, as a form sends it, is kept as LF), other control and invisible
// format characters are refused as in a name.
func validPetDescription(field, s string) (string, *Error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return "", FieldError(field, "must be valid UTF-8")
	case n > MaxDescriptionLength:
		return "", FieldError(field, "must be at most %d characters, got %d", MaxDescriptionLength, n)
	case strings.IndexFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) >= 0:
		return "", FieldError(field, "must not contain control characters other than line breaks")
	case strings.IndexFunc(s, isFormat) >= 0:
		r, _ := utf8.DecodeRuneInString(s[strings.IndexFunc(s, isFormat):])
		return "", FieldError(field, "must not contain invisible format characters such as %U", r)
	}
	return s, nil
}

// normalTag is a tag as given, trimmed and lower-cased, or an error naming field.
func normalTag(field, s string) (string, *Error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch n := utf8.RuneCountInString(t); {
	case n == 0:
		return "", FieldError(field, "a tag must not be empty")
	case n > MaxTagLength:
		return "", FieldError(field, "a tag is at most %d characters, got %d in %q", MaxTagLength, n, t)
	case strings.IndexFunc(t, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) >= 0:
		return "", FieldError(field, "a tag holds only letters a-z, digits and '-', got %q", t)
	}
	return t, nil
}

// validTags checks a set of tags: at most MaxTags, each normalized by normalTag; it returns them
// sorted, each once (two that differ only in case or white space are one tag).
func validTags(field string, in []string) (Tags, *Error) {
	if len(in) > MaxTags {
		return nil, FieldError(field, "at most %d tags, got %d", MaxTags, len(in))
	}
	out := make(Tags, 0, len(in))
	for _, s := range in {
		t, err := normalTag(field, s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ParseTagFilter reads the tags a list is filtered by (the repeatable tag parameter): at most
// MaxTags, each a valid tag.
func ParseTagFilter(field string, in []string) ([]string, error) {
	if len(in) > MaxTags {
		return nil, FieldError(field, "at most %d values, got %d", MaxTags, len(in))
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		t, err := normalTag(field, s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// SplitTags reads tags typed in one text field (the admin forms): separated by commas or white
// space.
func SplitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// Search is a word search of pets (the q parameter): the words of the text, each matched as a
// word, a word's prefix or another form of the word (English stemming), case- and
// accent-insensitively, in the name, description and tags together.
type Search struct{ Words []string }

// ParseSearch reads q: 1 to MaxSearchLength characters, whose words (runs of letters and digits;
// anything else separates words) a pet must all contain. A q without any word, only signs and
// spaces, asks for no word, so every pet matches: the decided rule (1 to 100 characters, every
// word of q) read as written, and what the document's schema of q allows.
func ParseSearch(field, q string) (Search, error) {
	n := utf8.RuneCountInString(q)
	switch {
	case !utf8.ValidString(q):
		return Search{}, FieldError(field, "must be valid UTF-8")
	case n == 0 || n > MaxSearchLength:
		return Search{}, FieldError(field, "must be 1 to %d characters, got %d", MaxSearchLength, n)
	}
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return Search{Words: words}, nil
}

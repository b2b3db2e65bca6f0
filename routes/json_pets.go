package routes

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/petstore/petstore/models"
)

// A page of pets is the answer the API gives most, and encoding it by reflection, its forty
// timestamps through time.Time.MarshalJSON, was about a tenth of a list request's CPU. These
// write the same bytes as encoding/json (TestEncodePetsByHand holds them to it, on random pets)
// with appends, in about a fifth of the time.

// appendPets appends the JSON array of pets (null for a nil slice, as encoding/json writes it).
func appendPets(b []byte, pets []Pet) ([]byte, error) {
	if pets == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range pets {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendPet(b, &pets[i]); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendPetList appends the JSON array of the pets as the API answers them (petResponse),
// without a list of answers in between; no pets is an empty array.
func appendPetList(b []byte, items []models.Pet) ([]byte, error) {
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		p := petResponse(&items[i])
		var err error
		if b, err = appendPet(b, &p); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendPet appends the JSON object of one pet, its members in the struct's order.
func appendPet(b []byte, p *Pet) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = append(b, `,"name":`...)
	if b, err = appendString(b, p.Name); err != nil {
		return nil, err
	}
	b = append(b, `,"categoryId":`...)
	b = strconv.AppendInt(b, p.CategoryID, 10)
	b = append(b, `,"status":`...)
	if b, err = appendString(b, string(p.Status)); err != nil {
		return nil, err
	}
	b = append(b, `,"createdAt":`...)
	if b, err = appendTime(b, p.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updatedAt":`...)
	if b, err = appendTime(b, p.UpdatedAt); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendString appends s quoted. A string that needs no escape (no control, quote, backslash
// or HTML character, valid UTF-8 without U+2028 or U+2029: a name like most, and every status)
// is copied as it is; any other is quoted by encoding/json itself.
func appendString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); {
		c := s[i]
		if jsonSafe[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return appendMarshaled(b, s)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return appendMarshaled(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// jsonSafe are the ASCII bytes encoding/json writes as they are.
var jsonSafe = func() (safe [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

func appendMarshaled(b []byte, s string) ([]byte, error) {
	q, err := json.Marshal(s)
	return append(b, q...), err
}

// appendTime appends t as time.Time.MarshalJSON does (RFC 3339 with the nanoseconds that are
// not zero). Times at offset zero from 0000-03-01 to the end of 9999, which is every time the store
// reads, are written here; any other by MarshalJSON itself.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if t.Location() != time.UTC {
		if _, offset := t.Zone(); offset != 0 {
			return appendMarshaledTime(b, t)
		}
	}
	secs := t.Unix()
	if secs < minJSONTime || secs > maxJSONTime {
		return appendMarshaledTime(b, t)
	}
	// The civil date of a day count, by Howard Hinnant's algorithm
	// (http://howardhinnant.github.io/date_algorithms.html#civil_from_days), counting from
	// 0000-03-01 so that every count is positive.
	since := uint64(secs - minJSONTime)
	days, sod := since/86400, since%86400
	era, doe := days/146097, days%146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	year := era*400 + yoe
	if month > 12 {
		month -= 12
		year++
	}
	var out [32]byte
	out[0] = '"'
	out[1], out[2] = pair(year / 100)
	out[3], out[4] = pair(year % 100)
	out[5] = '-'
	out[6], out[7] = pair(month)
	out[8] = '-'
	out[9], out[10] = pair(day)
	out[11] = 'T'
	out[12], out[13] = pair(sod / 3600)
	out[14] = ':'
	out[15], out[16] = pair(sod / 60 % 60)
	out[17] = ':'
	out[18], out[19] = pair(sod % 60)
	n := 20
	if ns := t.Nanosecond(); ns != 0 {
		// Nine digits, without the zeros at the end.
		f := uint64(ns)                         // #nosec G115 -- a Nanosecond is in [0, 1e9)
		out[20], out[21] = '.', byte('0'+f/1e8) // #nosec G115 -- one digit
		out[22], out[23] = pair(f / 1e6 % 100)
		out[24], out[25] = pair(f / 1e4 % 100)
		out[26], out[27] = pair(f / 100 % 100)
		out[28], out[29] = pair(f % 100)
		n = 30
		for out[n-1] == '0' {
			n--
		}
	}
	out[n], out[n+1] = 'Z', '"'
	return append(b, out[:n+2]...), nil
}

// The Unix times of 0000-03-01T00:00:00Z, where appendTime's day count starts, and of the last
// second of 9999, the range time.Time.MarshalJSON writes without an error.
const (
	minJSONTime = -62162035200
	maxJSONTime = 253402300799
)

// pair returns the two digits of n (below 100).
func pair(n uint64) (byte, byte) {
	p := digitPairs[uint8(n)] // #nosec G115 -- n is below 100; a byte indexes the table without a bounds check
	return p[0], p[1]
}

// digitPairs holds the two digits of each number below 100, in a table as long as a byte can
// count, so that reading it needs no bounds check.
var digitPairs = func() (t [256][2]byte) {
	for n := range 100 {
		t[n] = [2]byte{byte('0' + n/10), byte('0' + n%10)}
	}
	return t
}()

func appendMarshaledTime(b []byte, t time.Time) ([]byte, error) {
	q, err := t.MarshalJSON()
	return append(b, q...), err
}

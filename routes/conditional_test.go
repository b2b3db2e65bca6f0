package routes

import (
	"slices"
	"testing"
)

func TestParseETagsReadsListsAndRefusesMalformedOnes(t *testing.T) {
	for header, want := range map[string][]string{
		`"abc"`:                  {`"abc"`},
		` W/"abc" , "d,e"`:       {`W/"abc"`, `"d,e"`},
		`*`:                      {"*"},
		`"a","b"`:                {`"a"`, `"b"`},
		`""`:                     {`""`},
		`abc`:                    nil,
		`"abc`:                   nil,
		`W/`:                     nil,
		`"a" "b"`:                nil,
		``:                       nil,
		`W/"x", garbage`:         nil,
		"\"a\",\t\"b\" ,, \"c\"": {`"a"`, `"b"`, `"c"`},
	} {
		got, ok := parseETags(header)
		if ok != (want != nil) || !slices.Equal(got, want) {
			t.Errorf("parseETags(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}

func TestETagComparisonIsStrongForIfMatchAndWeakForIfNoneMatch(t *testing.T) {
	for _, tc := range []struct {
		tags   []string
		etag   string
		strong bool
		want   bool
	}{
		{[]string{`"a"`}, `"a"`, true, true},
		{[]string{`W/"a"`}, `"a"`, true, false},
		{[]string{`"a"`}, `W/"a"`, true, false},
		{[]string{`W/"a"`}, `"a"`, false, true},
		{[]string{`"a"`}, `W/"a"`, false, true},
		{[]string{`"b"`, `"a"`}, `"a"`, true, true},
		{[]string{`"b"`}, `"a"`, false, false},
		{[]string{"*"}, `"a"`, true, true},
	} {
		if got := matchesAny(tc.tags, tc.etag, tc.strong); got != tc.want {
			t.Errorf("matchesAny(%q, %q, strong %v) = %v, want %v", tc.tags, tc.etag, tc.strong, got, tc.want)
		}
	}
}

func TestPreferredCodingFollowsQValuesAndPrefersGzipOnATie(t *testing.T) {
	for header, want := range map[string]string{
		"":                          "",
		"gzip":                      "gzip",
		"br":                        "br",
		"gzip, deflate, br, zstd":   "gzip",
		"gzip;q=1, br;q=0.9":        "gzip",
		"br;q=0, gzip":              "gzip",
		"BR;Q=0.5, GZIP;q=0.4":      "br",
		"*":                         "gzip",
		"gzip;q=0.5, br":            "br",
		"*;q=0.2, gzip;q=0.3":       "gzip",
		"identity, *;q=0":           "",
		"gzip;q=0, br;q=0":          "",
		"gzip;q=nonsense, br;q=1.5": "",
		"deflate":                   "",
		"x-gzip":                    "gzip",
	} {
		if got := preferredCoding(header); got != want {
			t.Errorf("preferredCoding(%q) = %q, want %q", header, got, want)
		}
	}
}

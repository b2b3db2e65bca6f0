// Package views renders the admin pages with templ. Every page takes typed props built by its
// handler in package routes; nothing here reads the database or the request.
package views

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/petstore/petstore/models"
)

// Me is the staff member the page is shown to.
type Me struct {
	ID       int64
	Username string
	Admin    bool
	Role     models.Role
}

// May reports whether the signed-in staff member's role has right: a page offers only what it does.
func (m *Me) May(right models.Right) bool { return m != nil && m.Role.May(right) }

// Sections of the navigation; Page.Section marks the current one.
const (
	SectionDashboard  = "dashboard"
	SectionPets       = "pets"
	SectionCategories = "categories"
	SectionOrders     = "orders"
	SectionKeys       = "keys"
	SectionClients    = "clients"
	SectionStaff      = "staff"
	SectionAudit      = "audit"
	SectionAccount    = "account"
)

// Page is what the layout needs on every page.
type Page struct {
	Title   string
	Section string
	// Me is nil on pages shown before login (and on errors that happen before it).
	Me *Me
	// CSRF is the token every form of the page posts back.
	CSRF string
	// Flash is a one-time message about what the previous request did.
	Flash string
	// Search is the id of the page's search field, which a skip link leads to first; "" for none.
	Search string
}

// FormErrors maps a field's name to the message shown beside it.
type FormErrors map[string]string

// Crumb is one step of the breadcrumb above a page's title.
type Crumb struct {
	Label string
	URL   string
}

// Pager is keyset pagination: links to the pages around this one, each empty where there is none.
type Pager struct {
	Shown int
	// Total is how many rows the list holds, exactly or (not Exact) about; 0 and not Exact when
	// unknown. From is the place of the page's first row (1 for the first page), 0 when unknown.
	Total   int64
	Exact   bool
	From    int64
	NextURL string
	PrevURL string
	LastURL string
	// FirstURL is set when the page is not the first.
	FirstURL string
	// Numbers link pages by number around this one (a zero N is a gap), where the page's place is
	// known. The jump form goes to any page up to MaxPage; Keep are the list's filters and sort,
	// which it sends along.
	Numbers []PageNumber
	Page    int
	MaxPage int
	Keep    []Param
}

// PageNumber is a page's link by its number; N is 0 for the gap between far-apart numbers.
type PageNumber struct {
	N       int
	URL     string
	Current bool
}

// SortHeader is the heading of a column that sorts its table. Sort is "ascending" or
// "descending" on the column the table is sorted by; Next is the order URL shows.
type SortHeader struct {
	Label string
	URL   string
	Sort  string
	Next  string
	Num   bool
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func ftoa(n int) string { return strconv.Itoa(n) }

// ruleVerbs start the models' rules for a field ("must not be empty", "is required"), which read
// as a sentence after the field's name.
var ruleVerbs = []string{"must ", "is ", "may ", "names ", "has "}

// Sentence writes a refusal for people: a rule after the name of what broke it ("Name must not
// be empty."; a label's "(optional)" left out), any other message with a capital letter and a
// full stop ("That is not your current password.").
func Sentence(subject, msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	subject, _, _ = strings.Cut(subject, " (")
	for _, verb := range ruleVerbs {
		if subject != "" && strings.HasPrefix(msg, verb) {
			msg = subject + " " + msg
			break
		}
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		msg += "."
	}
	return msg
}

// adminURL builds a link inside the admin pages.
func adminURL(path string, args ...string) templ.SafeURL {
	u := "/admin" + path
	if len(args) > 0 {
		q := url.Values{}
		for i := 0; i+1 < len(args); i += 2 {
			if args[i+1] != "" {
				q.Set(args[i], args[i+1])
			}
		}
		if enc := q.Encode(); enc != "" {
			u += "?" + enc
		}
	}
	return templ.SafeURL(u)
}

// Summary says which rows of how many a page shows: "1–25 of 2,770 pets", "1–25 of about
// 1,000,000 pets" past what is counted exactly, "25 of about 1,000,000 pets" where the page's
// place is not known, and "Showing 25 pets" where the list was not counted.
func (p Pager) Summary(noun string) string {
	if p.Total == 1 && p.Exact {
		return "1 of 1 " + strings.TrimSuffix(noun, "s")
	}
	if p.Total == 0 && !p.Exact {
		return "Showing " + strconv.Itoa(p.Shown) + " " + noun
	}
	total := Thousands(p.Total)
	if !p.Exact {
		total = "about " + Thousands(roughly(p.Total))
	}
	if p.From == 0 {
		return "Showing " + strconv.Itoa(p.Shown) + " of " + total + " " + noun
	}
	return Thousands(p.From) + "–" + Thousands(p.From+int64(p.Shown)-1) + " of " + total + " " + noun
}

// Count is a number counted (about false) or estimated (about true, shown as Summary shows an
// estimated total: "about 890,000").
func Count(n int64, about bool) string {
	if about {
		return "about " + Thousands(roughly(n))
	}
	return Thousands(n)
}

// roughly rounds an estimate to two significant digits: 1,000,000, 250,000, 5,100.
func roughly(n int64) int64 {
	unit := int64(1)
	for n/unit >= 100 {
		unit *= 10
	}
	return (n + unit/2) / unit * unit
}

func sortMark(sort string) string {
	switch sort {
	case "ascending":
		return "▲"
	case "descending":
		return "▼"
	}
	return ""
}

// Param is one parameter of a query string.
type Param struct{ Name, Value string }

// thumbWidth and thumbHeight are a photo's thumbnail size (400 pixels on its long side at most),
// so the page keeps its place while thumbnails load.
func thumbWidth(ph PhotoView) int { w, _ := thumbSize(ph); return w }

func thumbHeight(ph PhotoView) int { _, h := thumbSize(ph); return h }

func thumbSize(ph PhotoView) (int, int) {
	const side = 160
	if ph.Width <= 0 || ph.Height <= 0 {
		return side, side
	}
	if ph.Width >= ph.Height {
		return side, max(1, ph.Height*side/ph.Width)
	}
	return max(1, ph.Width*side/ph.Height), side
}

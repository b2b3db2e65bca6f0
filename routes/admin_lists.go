package routes

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// What the admin tables share: columns that sort them, pages with their place in the whole list,
// and the whole filtered list as CSV.

// adminPageSize is how many rows an admin table shows at once.
const adminPageSize = 25

// sortColumn is a column a table may be sorted by: its key in ?sort= ("id" is the id order),
// whether its first click sorts newest first (dates) rather than ascending, and how the filter
// form's choices say each direction.
type sortColumn struct {
	key, label  string
	num         bool
	newestFirst bool
	asc, desc   string
}

// sortOf reads ?sort=: a column's key, ascending, or with a leading "-", descending. Absent, the
// table's default.
func sortOf(q query, cols []sortColumn, def models.Sort) (models.Sort, error) {
	s, err := q.one("sort")
	if err != nil || s == "" {
		return def, err
	}
	key, desc := strings.CutPrefix(s, "-")
	keys := make([]string, len(cols))
	for i, col := range cols {
		keys[i] = col.key
		if col.key == key {
			if key == "id" {
				key = ""
			}
			return models.Sort{Key: key, Desc: desc}, nil
		}
	}
	return def, &models.Error{Code: models.EInvalid, Field: "sort", Message: "sort: must be one of " + strings.Join(keys, ", ") + ", or one of them after - for descending"}
}

// sortHeaders are the headings of the sortable columns: each links to the table sorted by it,
// the other way round when it is the current order, on the first page of the same filters.
func sortHeaders(c *fiber.Ctx, cols []sortColumn, cur, def models.Sort) map[string]views.SortHeader {
	out := make(map[string]views.SortHeader, len(cols))
	for _, col := range cols {
		key := col.key
		if key == "id" {
			key = ""
		}
		h := views.SortHeader{Label: col.label, Num: col.num}
		next := models.Sort{Key: key, Desc: col.newestFirst}
		if cur.Key == key {
			h.Sort = "ascending"
			if cur.Desc {
				h.Sort = "descending"
			}
			next.Desc = !cur.Desc
		}
		h.Next = "ascending"
		if next.Desc {
			h.Next = "descending"
		}
		value := next.String()
		if next == def {
			value = ""
		}
		h.URL = withQuery(c, "sort", value)
		out[col.key] = h
	}
	return out
}

// sortOptions are the orders a table may take, as the filter form offers them; the default's
// value is empty, as the page's own links leave it out.
func sortOptions(cols []sortColumn, def models.Sort) []views.Option {
	var out []views.Option
	for _, col := range cols {
		key := col.key
		if key == "id" {
			key = ""
		}
		for _, desc := range []bool{col.newestFirst, !col.newestFirst} {
			s, label := models.Sort{Key: key, Desc: desc}, col.asc
			if desc {
				label = col.desc
			}
			value := s.String()
			if s == def {
				value = ""
			}
			out = append(out, views.Option{Value: value, Label: label})
		}
	}
	return out
}

// withQuery is this request's path and query on the first page (no cursor or page), with name set to
// value ("" drops it) and without format. Empty parameters are dropped.
func withQuery(c *fiber.Ctx, name, value string) string {
	q := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if len(v) > 0 {
			q.Add(string(k), string(v))
		}
	})
	q.Del("cursor")
	q.Del("page")
	q.Del("format")
	q.Del(name)
	if value != "" {
		q.Set(name, value)
	}
	if len(q) == 0 {
		return c.Path()
	}
	return c.Path() + "?" + q.Encode()
}

// listPage reads where a table's page starts: after ?cursor= (a link of the page before or
// after), or at ?page=, a page's number; neither is the first page.
func listPage(q query, sort models.Sort) (models.Page, error) {
	pg := models.Page{Limit: adminPageSize, Count: true, Sort: sort}
	var err error
	if pg.Cursor, err = q.cursor(sort); err != nil || pg.Cursor != nil {
		return pg, err
	}
	s, err := q.one("page")
	if err != nil || s == "" {
		return pg, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return pg, &models.Error{Code: models.EInvalid, Field: "page", Message: "page: must be a page number, 1 or more"}
	}
	if n > models.MaxSkip/adminPageSize+1 {
		return pg, models.ErrSkipTooFar
	}
	pg.Skip = (n - 1) * adminPageSize
	return pg, nil
}

// pager links the pages around a keyset page, in the same query: the first (when this is not
// it), the previous, the next and the last; with the list's total and the page's place in it
// when the page was counted; and, where that place is known, the pages by number around it.
func pager[T any](c *fiber.Ctx, pg models.Page, list models.Paged[T]) views.Pager {
	p := views.Pager{Shown: len(list.Items), Total: list.Total.N, Exact: list.Total.Exact}
	if list.Before.Exact && len(list.Items) > 0 {
		p.From = list.Before.N + 1
	}
	if pg.Cursor != nil || pg.Skip > 0 {
		p.FirstURL = pageURL(c, "", nil)
	}
	if list.Prev != nil {
		p.PrevURL = pageURL(c, "", list.Prev)
	}
	if list.Next != nil {
		p.NextURL = pageURL(c, "", list.Next)
		p.LastURL = pageURL(c, "", &models.Cursor{Sort: pg.Sort, Last: true})
	}
	p.MaxPage = models.MaxSkip/adminPageSize + 1
	last := 0
	if p.Exact {
		last = max(1, int((p.Total+adminPageSize-1)/adminPageSize))
		p.MaxPage = min(p.MaxPage, last)
	}
	if p.From > 0 {
		// A page reached by a cursor may not start on a multiple of the page size (rows were
		// added or removed meanwhile): its number is the one its first row is on.
		p.Page = int((p.From-1)/adminPageSize) + 1
	}
	if p.Page > 0 && p.MaxPage > 1 {
		p.Numbers = pageNumbers(c, p.Page, last, p.MaxPage)
	}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if key := string(k); len(v) > 0 && key != "cursor" && key != "page" && key != "format" {
			p.Keep = append(p.Keep, views.Param{Name: key, Value: string(v)})
		}
	})
	return p
}

// pageNumbers are the first page, the two either side of cur, and the last (when last is
// known), with a gap (N 0) where numbers are left out; none past maxPage.
func pageNumbers(c *fiber.Ctx, cur, last, maxPage int) []views.PageNumber {
	var out []views.PageNumber
	add := func(n int) {
		if n < 1 || n > maxPage || len(out) > 0 && out[len(out)-1].N >= n {
			return
		}
		if len(out) > 0 && out[len(out)-1].N < n-1 {
			out = append(out, views.PageNumber{})
		}
		value := ""
		if n > 1 {
			value = strconv.Itoa(n)
		}
		out = append(out, views.PageNumber{N: n, URL: withQuery(c, "page", value), Current: n == cur})
	}
	add(1)
	for n := cur - 2; n <= cur+2; n++ {
		add(n)
	}
	if last > 0 {
		add(last)
	}
	return out
}

// wantsCSV reads ?format=: csv asks for the whole filtered list as a CSV file; absent, the page.
func wantsCSV(q query) (bool, error) {
	f, err := q.one("format")
	if err != nil || f == "" {
		return false, err
	}
	if f != "csv" {
		return false, &models.Error{Code: models.EInvalid, Field: "format", Message: "format: must be csv, or left out for the page"}
	}
	return true, nil
}

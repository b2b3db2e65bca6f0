package routes

import (
	"net/url"
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

// withQuery is this request's path and query on the first page (no cursor), with name set to
// value ("" drops it) and without format. Empty parameters are dropped.
func withQuery(c *fiber.Ctx, name, value string) string {
	q := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if len(v) > 0 {
			q.Add(string(k), string(v))
		}
	})
	q.Del("cursor")
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

// pager links the pages around a keyset page, in the same query: the first (when this is not
// it), the previous, the next and the last; with the list's total and the page's place in it
// when the page was counted.
func pager[T any](c *fiber.Ctx, pg models.Page, list models.Paged[T]) views.Pager {
	p := views.Pager{Shown: len(list.Items), Total: list.Total.N, Exact: list.Total.Exact}
	if list.Before.Exact && len(list.Items) > 0 {
		p.From = list.Before.N + 1
	}
	if pg.Cursor != nil {
		p.FirstURL = pageURL(c, "", nil)
	}
	if list.Prev != nil {
		p.PrevURL = pageURL(c, "", list.Prev)
	}
	if list.Next != nil {
		p.NextURL = pageURL(c, "", list.Next)
		p.LastURL = pageURL(c, "", &models.Cursor{Sort: pg.Sort, Last: true})
	}
	return p
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

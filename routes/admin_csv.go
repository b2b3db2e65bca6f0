package routes

import (
	"bufio"
	"context"
	"encoding/csv"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Every list's CSV export: written for the spreadsheets staff open it in (Excel among them),
// streamed a page of the list at a time.

// exportPageSize is how many rows an export reads at once.
const exportPageSize = 1000

// byteOrderMark starts every export: without it Excel reads UTF-8 as the machine's legacy code
// page ("ZoÃ«" for "Zoë"); with it, as UTF-8. Other spreadsheets and encoding/csv readers skip it.
const byteOrderMark = "\uFEFF"

// csvTimeLayout is a time as spreadsheets read one into a date cell (Excel, LibreOffice and
// Google Sheets all do), in the store's zone: ISO 8601 with its T and zone offset stays text.
const csvTimeLayout = "2006-01-02 15:04:05"

// csvRows writes rows of a CSV export.
type csvRows struct {
	w    *csv.Writer
	zone *time.Location
}

// Row writes one row. A cell that a spreadsheet would run as a formula (it starts with = + - @,
// a tab or a carriage return) is written after an apostrophe, which makes it text.
func (r csvRows) Row(cells ...string) error {
	for i, cell := range cells {
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			cells[i] = "'" + cell
		}
	}
	return r.w.Write(cells)
}

// Time writes a time for a spreadsheet, in the store's zone; "" for none.
func (r csvRows) Time(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.In(r.zone).Format(csvTimeLayout)
}

// exporter answers the lists' CSV exports.
type exporter struct {
	// The file's date and the times in it are in the store's time zone.
	storeClock
	log *slog.Logger
	// timeout bounds each page an export reads, as it bounds a request.
	timeout time.Duration
}

// csv answers the file name-DATE.csv (the store's date): header, then every row write
// produces, streamed as it is written. write reads its list a page at a time (exportPages), so
// no export holds more than a page in memory, however long the list. It runs after the handler
// has returned, with ctx (the request's, without its deadline; each page has its own). A failure
// after the first row has gone can no longer change the status: the file then ends with a row
// that says so.
func (x exporter) csv(c *fiber.Ctx, name string, header []string, write func(ctx context.Context, rows csvRows) error) error {
	ctx := context.WithoutCancel(c.UserContext())
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	// The name is the list's own and a date, never anything from the request.
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+"-"+x.now().In(x.zone).Format(time.DateOnly)+`.csv"`)
	log, zone := x.log, x.zone
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		_, err := bw.WriteString(byteOrderMark)
		w := csv.NewWriter(bw)
		w.UseCRLF = true
		rows := csvRows{w: w, zone: zone}
		if err == nil {
			err = rows.Row(header...)
		}
		if err == nil {
			err = write(ctx, rows)
		}
		if err != nil {
			log.ErrorContext(ctx, "CSV export stopped", "list", name, "error", err)
			_ = rows.Row("The export stopped here: " + models.ErrorMessage(err) + " Export again to get the whole list.")
		}
		w.Flush()
	})
	return nil
}

// exportPages reads a list from its first page to its last, exportPageSize rows at a time, each
// page under its own database deadline, and hands each to emit.
func exportPages[T any](ctx context.Context, timeout time.Duration, pg models.Page, list func(context.Context, models.Page) (models.Paged[T], error), emit func(context.Context, []T) error) error {
	pg.Limit, pg.Cursor, pg.Count = exportPageSize, nil, false
	for {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		page, err := list(pctx, pg)
		if err == nil {
			err = emit(pctx, page.Items)
		}
		cancel()
		if err != nil || page.Next == nil {
			return err
		}
		pg.Cursor = page.Next
	}
}

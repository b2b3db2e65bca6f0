package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// Total is how many items a list holds, or how many come before a page of it: exact while
// counting them is cheap, an estimate past that. N 0 and not exact means unknown.
type Total struct {
	N     int64
	Exact bool
}

// Counting is exact up to countCap matching rows within a budget of database time
// (DefaultCountBudget, or WithCountBudget's). Counting costs about 1 ms per 10,000 rows on either
// store, so an exact total adds about 1 ms to a page; a filter that no index serves (a name
// search) scans every row, which the budget cuts short. Past either, the total is estimated in one
// statement that reads no rows on PostgreSQL (the planner's estimate, from the table's
// statistics), and from the newest estimateSample ids, read through the primary key, on SQLite,
// which keeps no statistics.
const (
	countCap           = 10_000
	DefaultCountBudget = 25 * time.Millisecond
	estimateSample     = 10_000
)

type countBudgetKey struct{}

// WithCountBudget returns ctx under which each of a list's counts (its total, a page's place,
// an estimate) may take d of database time, instead of DefaultCountBudget; on SQLite, which has no
// statement timeout, a page's counts take d together.
func WithCountBudget(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, countBudgetKey{}, d)
}

func countBudget(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(countBudgetKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return DefaultCountBudget
}

// totals fills out's Total and Before: how many rows match the conditions, and how many of them
// come before the page's first item (page.Skip after a jump, and 0 on the first page, which need
// no counting; past countCap unknown, as an estimate of it would mislead more than help).
func (k keyset[T]) totals(ctx context.Context, db *gorm.DB, where []string, args []any, page Page, jumped bool, out *Paged[T]) error {
	all, err := k.segments(Sort{}, nil, false)
	if err != nil {
		return err
	}
	var before segments
	last := false
	switch {
	case jumped:
		out.Before = Total{N: int64(page.Skip), Exact: true}
	case out.Prev == nil:
		out.Before = Total{Exact: true}
	case page.Cursor != nil && page.Cursor.Last:
		// The last page's place is what the total leaves before it, below: nothing to count.
		last = true
	default:
		if before, err = k.segments(page.Sort, out.Prev, !page.Sort.Desc); err != nil {
			return err
		}
	}
	out.Total, err = countTotalIn(ctx, db, k.table, where, args, all, func(tx *gorm.DB) error {
		if before.n == 0 {
			return nil
		}
		b, err := countIn(tx, k.table, where, args, before)
		if b.Exact {
			out.Before = b
		}
		return err
	})
	if last && out.Total.Exact {
		out.Before = Total{N: max(out.Total.N-int64(len(out.Items)), 0), Exact: true}
	}
	return err
}

// countTotalIn counts the rows of segs that match the conditions by the lists' rule, then runs
// also (when not nil) in the same transaction: one BEGIN, budget and COMMIT for all of a page's
// counts. A count cut short by the budget leaves the total to an estimate, under a budget of its
// own; also is then skipped.
func countTotalIn(ctx context.Context, db *gorm.DB, table string, where []string, args []any, segs segments, also func(*gorm.DB) error) (Total, error) {
	var t Total
	counted := false
	timedOut, err := withinBudget(ctx, db, countBudget(ctx), func(tx *gorm.DB) error {
		var err error
		t, counted, err = totalIn(tx, table, where, args, segs)
		if err != nil {
			return err
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	if err != nil {
		return Total{}, storeError(err, "")
	}
	if timedOut && !counted {
		_, err = withinBudget(ctx, db, countBudget(ctx), func(tx *gorm.DB) error {
			t, err = estimateIn(tx, table, where, args, 0)
			return err
		})
	}
	return t, storeError(err, "")
}

// totalIn counts the rows of segs that match the conditions by the lists' rule, in tx; counted
// says the count finished, whether or not its estimate did.
func totalIn(tx *gorm.DB, table string, where []string, args []any, segs segments) (t Total, counted bool, err error) {
	if t, err = countIn(tx, table, where, args, segs); err != nil || t.Exact {
		return t, err == nil, err
	}
	t, err = estimateIn(tx, table, where, args, t.N)
	return t, true, err
}

// countGroups counts the rows of table that match the conditions by their value of the column
// group, by the lists' rule read from the other end: a table whose ids span at most countCap
// (so it holds at most as many rows) is counted exactly within the budget; a larger one, or one
// the budget cut short, is estimated, so a dashboard's counts cost the same at any size: on
// PostgreSQL from the table's statistics when they list every value of the column
// (estimateGroups), else from its newest estimateSample ids, one statement for every group.
// exact says which; a group absent from the answer has none (or none in the sample).
func countGroups(ctx context.Context, db *gorm.DB, table, group string, where []string, args []any) (counts map[string]int64, exact bool, err error) {
	var lo, hi sql.NullInt64
	var rows []struct {
		Group string
		N     int64
	}
	read := func(tx *gorm.DB, from int64) error {
		conds := append(append([]string(nil), where...), "id > ?")
		return tx.Raw("SELECT "+group+` AS "group", COUNT(*) AS n FROM `+table+" WHERE "+strings.Join(conds, " AND ")+" GROUP BY "+group,
			append(append([]any(nil), args...), from)...).Scan(&rows).Error
	}
	var planned map[string]int64
	// One statement of counting either way, in the span's transaction.
	timedOut, err := withinBudget(ctx, db, countBudget(ctx), func(tx *gorm.DB) error {
		if err := idSpan(tx, table, &lo, &hi); err != nil || !hi.Valid {
			return err
		}
		if exact = hi.Int64-lo.Int64 < countCap; exact {
			return read(tx, lo.Int64-1)
		}
		var err error
		if planned, err = estimateGroups(tx, table, group, where, args); err != nil || planned != nil {
			return err
		}
		return read(tx, hi.Int64-estimateSample)
	})
	if err != nil {
		return nil, false, storeError(err, "")
	}
	if planned != nil && !timedOut {
		return planned, false, nil
	}
	counts = make(map[string]int64)
	if !hi.Valid && !timedOut {
		return counts, true, nil
	}
	if timedOut && exact {
		exact, rows = false, nil
		if timedOut, err = withinBudget(ctx, db, countBudget(ctx), func(tx *gorm.DB) error { return read(tx, hi.Int64-estimateSample) }); err != nil || timedOut {
			return counts, false, storeError(err, "")
		}
	}
	span := hi.Int64 - lo.Int64 + 1
	for _, r := range rows {
		counts[r.Group] = int64(float64(r.N) * float64(span) / float64(min(span, estimateSample)))
	}
	return counts, exact, nil
}

// estimateGroups estimates, in tx on PostgreSQL, the rows of table that match the conditions by
// their value of the column group: the planner's estimate of the matching rows (estimateIn),
// shared out as the column's most common values share the table in its statistics. Nil (and
// the sample is read instead) on SQLite, before the table has statistics, and when the values
// the statistics list are not all of the column's: a value left out could not be told from none.
func estimateGroups(tx *gorm.DB, table, group string, where []string, args []any) (map[string]int64, error) {
	if tx.Dialector.Name() != "postgres" {
		return nil, nil
	}
	var common []struct {
		Value string
		Share float64
		Nulls float64
	}
	err := tx.Raw(`SELECT m.value, m.share, s.null_frac AS nulls FROM pg_stats s,
		unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS m(value, share)
		WHERE s.schemaname = current_schema() AND s.tablename = ? AND s.attname = ?`, table, group).Scan(&common).Error
	if err != nil || len(common) == 0 {
		return nil, err
	}
	listed := common[0].Nulls
	for _, c := range common {
		listed += c.Share
	}
	if listed < 0.999 {
		return nil, nil
	}
	total, err := estimateIn(tx, table, where, args, 0)
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int64, len(common))
	for _, c := range common {
		counts[c.Value] = int64(math.Round(float64(total.N) * c.Share / (listed - common[0].Nulls)))
	}
	return counts, nil
}

// idSpan reads the lowest and highest id of table. Two subqueries: SQLite reads a lone MIN or
// MAX from the index's end, but scans the table for both in one SELECT.
func idSpan(tx *gorm.DB, table string, lo, hi *sql.NullInt64) error {
	return tx.Raw("SELECT (SELECT MIN(id) FROM "+table+"), (SELECT MAX(id) FROM "+table+")").Row().Scan(lo, hi)
}

// countIn counts the rows of the segments that match the conditions, in tx. Exact is false when
// it stopped at countCap (N is then countCap+1).
func countIn(tx *gorm.DB, table string, where []string, args []any, segs segments) (Total, error) {
	var n int64
	for _, s := range segs.s[:segs.n] {
		query := "SELECT COUNT(*) FROM (SELECT 1 FROM " + table
		if conds := append(where, s.where...); len(conds) > 0 {
			query += " WHERE " + strings.Join(conds, " AND ")
		}
		var got int64
		if err := tx.Raw(query+" LIMIT ?) AS c", append(append(args, s.args...), countCap+1-n)...).Row().Scan(&got); err != nil {
			return Total{}, err
		}
		if n += got; n > countCap {
			break
		}
	}
	return Total{N: n, Exact: n <= countCap}, nil
}

// estimateIn estimates, in tx, how many rows of table match the conditions; it is at least
// atLeast, what counting already found. PostgreSQL's planner answers from the table's statistics
// without reading a row; on SQLite the matches among the newest estimateSample ids are scaled to
// the whole table.
func estimateIn(tx *gorm.DB, table string, where []string, args []any, atLeast int64) (Total, error) {
	if tx.Dialector.Name() == "postgres" {
		query := "EXPLAIN (FORMAT JSON) SELECT 1 FROM " + table
		if len(where) > 0 {
			query += " WHERE " + strings.Join(where, " AND ")
		}
		var plan []byte
		if err := tx.Raw(query, args...).Row().Scan(&plan); err != nil {
			return Total{N: atLeast}, err
		}
		var plans []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			}
		}
		if err := json.Unmarshal(plan, &plans); err != nil || len(plans) != 1 {
			return Total{N: atLeast}, err
		}
		return Total{N: max(int64(plans[0].Plan.Rows), atLeast)}, nil
	}
	var lo, hi sql.NullInt64
	if err := idSpan(tx, table, &lo, &hi); err != nil || !hi.Valid {
		return Total{N: atLeast}, err
	}
	var matches int64
	sample := "SELECT COUNT(*) FROM " + table + " WHERE " + strings.Join(append(where, "id > ?"), " AND ")
	if err := tx.Raw(sample, append(args, hi.Int64-estimateSample)...).Row().Scan(&matches); err != nil {
		return Total{N: atLeast}, err
	}
	span := hi.Int64 - lo.Int64 + 1
	n := int64(float64(matches) * float64(span) / float64(min(span, estimateSample)))
	return Total{N: max(n, atLeast)}, nil
}

// withinBudget runs read with budget of database time; timedOut says it was cut short.
func withinBudget(ctx context.Context, db *gorm.DB, budget time.Duration, read func(*gorm.DB) error) (timedOut bool, err error) {
	if db.Dialector.Name() == "postgres" {
		// A statement timeout ends the statement and keeps the connection, which a cancelled
		// context would close.
		err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SET LOCAL statement_timeout = " + strconv.FormatInt(max(1, budget.Milliseconds()), 10)).Error; err != nil {
				return err
			}
			return read(tx)
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "57014" { // query_canceled
			return true, nil
		}
		return false, err
	}
	// SQLite interrupts the statement when its context ends, and the connection stays usable.
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	err = read(db.WithContext(bctx))
	if err != nil && bctx.Err() != nil && ctx.Err() == nil {
		return true, nil
	}
	return false, err
}

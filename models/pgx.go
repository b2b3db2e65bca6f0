package models

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// onPgx runs f on one connection of db's PostgreSQL pool, on pgx itself rather than through
// database/sql, which converts every value of every row to a driver.Value and back: for a page of
// pets, a quarter of the request's CPU. The connection is borrowed from database/sql's pool, so
// there is one pool, with its settings and its metrics. It returns false, without calling f,
// where db is not such a pool: SQLite, a transaction, or reads routed to replicas (dbresolver
// picks the pool per statement). f gets the context to query with (see withSocketDeadline).
func onPgx(ctx context.Context, db *gorm.DB, f func(context.Context, *pgx.Conn) error) (bool, error) {
	if db.Dialector.Name() != "postgres" {
		return false, nil
	}
	if _, routed := db.Config.Plugins["gorm:db_resolver"]; routed {
		return false, nil
	}
	pool, ok := db.Statement.ConnPool.(*sql.DB)
	if !ok {
		return false, nil
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return true, err
	}
	defer conn.Close() // back to the pool; a broken connection is dropped there (stdlib's ResetSession)
	return true, conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return errors.New("models: a PostgreSQL connection that is not pgx's")
		}
		return withSocketDeadline(ctx, c.Conn(), f)
	})
}

// withSocketDeadline runs f with ctx's deadline set on the connection's socket, and hands f a
// context that pgx need not watch. pgx watches every cancellable context of every query with
// context.AfterFunc (a channel, closures and an entry in the parent context's children): 5 of a
// list request's 69 allocations. A read or write past the deadline fails with a timeout and pgx
// closes the connection, as it does when a watched context ends; database/sql then drops it. A
// request's context ends only at its deadline (routes' withDeadline); any other cancellation is
// seen before the query is sent, not while it runs.
func withSocketDeadline(ctx context.Context, conn *pgx.Conn, f func(context.Context, *pgx.Conn) error) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		return f(ctx, conn)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	socket := conn.PgConn().Conn()
	if err := socket.SetDeadline(deadline); err != nil {
		return err
	}
	err := f(context.WithoutCancel(ctx), conn)
	if !conn.IsClosed() {
		_ = socket.SetDeadline(time.Time{})
	}
	return err
}

// numbered rewrites a statement written with GORM's ? placeholders for PostgreSQL's $1, $2, …,
// expanding a slice argument (id IN ?) into one placeholder per element, as GORM does. The
// statements are the stores' own: no ? stands inside a quoted literal.
func numbered(query string, args []any) (string, []any) {
	var b strings.Builder
	b.Grow(len(query) + 2*len(args) + 8)
	out := make([]any, 0, len(args))
	next := func(v any) {
		out = append(out, v)
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(len(out)))
	}
	for _, v := range args {
		i := strings.IndexByte(query, '?')
		if i < 0 {
			break
		}
		b.WriteString(query[:i])
		query = query[i+1:]
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8 {
			b.WriteByte('(')
			for j := range rv.Len() {
				if j > 0 {
					b.WriteByte(',')
				}
				next(rv.Index(j).Interface())
			}
			b.WriteByte(')')
			continue
		}
		next(v)
	}
	b.WriteString(query)
	return b.String(), out
}

// ScanBytes reads a pet's status on pgx (pgtype.BytesScanner): the constant itself, without a
// string of its own per row, and without the reflective conversion pgx otherwise makes to a
// named string type (together about 3 % of a list request's instructions). A value that is none of
// the statuses is kept as it is.
func (s *PetStatus) ScanBytes(b []byte) error {
	*s = internStatus(b, PetStatuses)
	return nil
}

// ScanBytes reads an order's status on pgx, as PetStatus.ScanBytes does a pet's.
func (s *OrderStatus) ScanBytes(b []byte) error {
	*s = internStatus(b, OrderStatuses)
	return nil
}

// internStatus returns the status among known that b spells, else a copy of b.
func internStatus[S ~string](b []byte, known []S) S {
	for _, st := range known {
		if string(b) == string(st) {
			return st
		}
	}
	return S(b)
}

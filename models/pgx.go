package models

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// onPgx runs f on one connection of db's PostgreSQL pool, on pgx itself rather than through
// database/sql, which converts every value of every row to a driver.Value and back: for a page of
// pets, a quarter of the request's CPU. The connection is borrowed from database/sql's pool, so
// there is one pool, with its settings and its metrics. It returns false, without calling f,
// where db is not such a pool: SQLite, a transaction, or reads routed to replicas (dbresolver
// picks the pool per statement).
func onPgx(ctx context.Context, db *gorm.DB, f func(*pgx.Conn) error) (bool, error) {
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
		return f(c.Conn())
	})
}

// numbered rewrites a statement written with GORM's ? placeholders for PostgreSQL's $1, $2, …,
// expanding a slice argument (id IN ?) into one placeholder per element, as GORM does. The
// statements are the stores' own: no ? stands inside a quoted literal.
func numbered(query string, args []any) (string, []any) {
	var b strings.Builder
	b.Grow(len(query) + 8)
	out := make([]any, 0, len(args))
	arg := 0
	next := func(v any) {
		out = append(out, v)
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(len(out)))
	}
	for i := 0; i < len(query); i++ {
		if query[i] != '?' || arg >= len(args) {
			b.WriteByte(query[i])
			continue
		}
		v := args[arg]
		arg++
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
	return b.String(), out
}

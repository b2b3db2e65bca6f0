package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// storeError turns a database failure into an *Error a user may see: a missing row becomes
// not_found (with the caller's message), an unreachable or overloaded database becomes
// unavailable, and anything else stays an internal error that is logged and never shown.
func storeError(err error, notFound string) error {
	if err == nil {
		return nil
	}
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case errors.Is(err, gorm.ErrRecordNotFound) && notFound != "":
		return &Error{Code: ENotFound, Message: notFound}
	case isUnavailable(err):
		return &Error{Code: EUnavailable, Message: "The database is unavailable; try again shortly.", cause: err}
	}
	return err
}

func isUnavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception; class 57: operator intervention (shutdown,
		// statement_timeout's query_canceled, cannot_connect_now).
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57")
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "conn closed") ||
		strings.Contains(msg, "broken pipe") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "database is locked")
}

// Ping checks that the database answers.
func Ping(ctx context.Context, db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	return storeError(sqlDB.PingContext(ctx), "")
}

// Then is work a caller adds to a store method's transaction, after its change is written: it
// commits or rolls back with the change (an idempotent request's kept response, for one). It gets
// the transaction and what was written. A nil Then adds nothing.
type Then[T any] func(tx *gorm.DB, written *T) error

func (t Then[T]) run(tx *gorm.DB, v *T) error {
	if t == nil {
		return nil
	}
	return t(tx, v)
}

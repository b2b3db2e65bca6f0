package models

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DBOptions say which database Open opens: PostgreSQL when PostgresURL is set, else the
// embedded SQLite file at SQLitePath.
type DBOptions struct {
	PostgresURL string
	SQLitePath  string
	// Timeout bounds the first ping and, on PostgreSQL, every statement (statement_timeout),
	// unless the URL sets its own.
	Timeout time.Duration
	// The PostgreSQL pool; SQLite always has one connection.
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
}

// Open opens the database o names, with the job queue its stores enqueue deliveries on, and
// waits until it answers. It does not migrate.
func Open(ctx context.Context, o DBOptions) (*gorm.DB, error) {
	gcfg := &gorm.Config{
		// Every write the stores make is a single statement or an explicit transaction.
		SkipDefaultTransaction: true,
		TranslateError:         true,
		Logger:                 logger.Discard,
		NowFunc:                func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
	}
	var (
		db  *gorm.DB
		err error
	)
	if o.PostgresURL != "" {
		db, err = gorm.Open(postgres.New(postgres.Config{DSN: postgresDSN(o.PostgresURL, o.Timeout)}), gcfg)
	} else {
		db, err = gorm.Open(sqlite.Open(sqliteDSN(o.SQLitePath)), gcfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if o.PostgresURL != "" {
		sqlDB.SetMaxOpenConns(o.MaxOpenConns)
		sqlDB.SetMaxIdleConns(o.MaxIdleConns)
		sqlDB.SetConnMaxLifetime(o.ConnMaxLifetime)
	} else {
		// One connection serialises every writer, which SQLite needs anyway; transitions
		// therefore cannot interleave.
		sqlDB.SetMaxOpenConns(1)
	}
	if err := useQueue(db); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("job queue: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close() // the ping's error is the one to report
		return nil, err
	}
	return db, nil
}

// Close closes db's connections.
func Close(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		_ = sqlDB.Close() // on the way out; nothing is left to do about a failed close
	}
}

// postgresDSN adds a server-side statement timeout, so a query the client gave up on does not
// run on, unless the URL already sets one.
func postgresDSN(dsn string, timeout time.Duration) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	if q.Get("statement_timeout") == "" {
		q.Set("statement_timeout", fmt.Sprint(timeout.Milliseconds()))
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// sqliteDSN opens the file in WAL mode. Transactions take the write lock when they begin
// (_txlock=immediate): one that read first and wrote later could not take it after another
// process (the command line beside the service) had written meanwhile, and would fail at once
// instead of waiting out busy_timeout.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)&_txlock=immediate"
}

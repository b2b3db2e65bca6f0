package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// OpenDB opens PostgreSQL when DATABASE_URL is set, else the embedded SQLite file, and waits
// until it answers.
func OpenDB(ctx context.Context, cfg Config, log *slog.Logger) (*gorm.DB, error) {
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
	if cfg.DatabaseURL != "" {
		db, err = gorm.Open(postgres.New(postgres.Config{DSN: postgresDSN(cfg)}), gcfg)
	} else {
		db, err = gorm.Open(sqlite.Open(sqliteDSN(cfg.DBPath)), gcfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if cfg.DatabaseURL != "" {
		sqlDB.SetMaxOpenConns(cfg.DBMaxOpenConns)
		sqlDB.SetMaxIdleConns(cfg.DBMaxIdleConns)
		sqlDB.SetConnMaxLifetime(cfg.DBConnMaxLifetime)
		log.Info("database", "driver", "postgres", "url", redactURL(cfg.DatabaseURL))
	} else {
		// One connection serialises every writer, which SQLite needs anyway; transitions
		// therefore cannot interleave.
		sqlDB.SetMaxOpenConns(1)
		log.Info("database", "driver", "sqlite", "path", cfg.DBPath)
	}
	pingCtx, cancel := context.WithTimeout(ctx, cfg.DBTimeout)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close() // the ping's error is the one to report
		return nil, fmt.Errorf("database at %s does not answer: %w", redactURL(cfg.DatabaseURL), err)
	}
	return db, nil
}

// postgresDSN adds a server-side statement timeout, so a query the client gave up on does not
// run on, unless the URL already sets one.
func postgresDSN(cfg Config) string {
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		return cfg.DatabaseURL
	}
	q := u.Query()
	if q.Get("statement_timeout") == "" {
		q.Set("statement_timeout", fmt.Sprint(cfg.DBTimeout.Milliseconds()))
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)"
}

func closeDB(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		_ = sqlDB.Close() // on the way out; nothing is left to do about a failed close
	}
}

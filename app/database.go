package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// OpenDB opens PostgreSQL when DATABASE_URL is set, else the embedded SQLite file, and waits
// until it answers.
func OpenDB(ctx context.Context, cfg Config, log *slog.Logger) (*gorm.DB, error) {
	if cfg.DatabaseURL == "" {
		if err := checkDBFolder(cfg.DBPath); err != nil {
			return nil, err
		}
	}
	db, err := models.Open(ctx, dbOptions(cfg))
	if err != nil {
		if cfg.DatabaseURL == "" {
			return nil, fmt.Errorf("the SQLite database at %s (PETSTORE_DB_PATH) does not open: %w", cfg.DBPath, err)
		}
		return nil, fmt.Errorf("database at %s does not answer: %w", redactURL(cfg.DatabaseURL), err)
	}
	if cfg.DatabaseURL != "" {
		log.Info("database", "driver", "postgres", "url", redactURL(cfg.DatabaseURL))
	} else {
		log.Info("database", "driver", "sqlite", "path", cfg.DBPath)
	}
	return db, nil
}

// checkDBFolder makes sure SQLite can write in the folder of path, where it keeps the file and
// its journal: SQLite itself would only say "unable to open database file: out of memory (14)".
func checkDBFolder(path string) error {
	dir := filepath.Dir(path)
	fail := func(problem, change string) error {
		return fmt.Errorf("PETSTORE_DB_PATH=%s: %s; %s, or set PETSTORE_DB_PATH to a file in another folder (or DATABASE_URL to use PostgreSQL)", path, problem, change)
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("the folder "+dir+" does not exist", "create it")
	case err != nil:
		return fail(fmt.Sprintf("the folder %s cannot be read (%v)", dir, errors.Unwrap(err)), "let this user read and write it")
	case !info.IsDir():
		return fail(dir+" is a file, not a folder", "make it a folder")
	}
	probe, err := os.CreateTemp(dir, ".petstore-write-check-*")
	if err != nil {
		return fail(fmt.Sprintf("the folder %s cannot be written (%v)", dir, errors.Unwrap(err)), "let this user write it")
	}
	_ = probe.Close()
	return os.Remove(probe.Name())
}

func dbOptions(cfg Config) models.DBOptions {
	return models.DBOptions{
		PostgresURL:     cfg.DatabaseURL,
		SQLitePath:      cfg.DBPath,
		Timeout:         cfg.DBTimeout,
		MaxOpenConns:    cfg.DBMaxOpenConns,
		MaxIdleConns:    cfg.DBMaxIdleConns,
		ConnMaxLifetime: cfg.DBConnMaxLifetime,
	}
}

package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// OpenDB opens PostgreSQL when DATABASE_URL is set, else the embedded SQLite file, and waits
// until it answers.
func OpenDB(ctx context.Context, cfg Config, log *slog.Logger) (*gorm.DB, error) {
	db, err := models.Open(ctx, dbOptions(cfg))
	if err != nil {
		return nil, fmt.Errorf("database at %s does not answer: %w", redactURL(cfg.DatabaseURL), err)
	}
	if cfg.DatabaseURL != "" {
		log.Info("database", "driver", "postgres", "url", redactURL(cfg.DatabaseURL))
	} else {
		log.Info("database", "driver", "sqlite", "path", cfg.DBPath)
	}
	return db, nil
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

package app

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes"
	"gorm.io/gorm"
)

// BodyLimit is the largest request body the service reads (DECISIONS.md: 413 above 64 KiB).
const BodyLimit = 64 << 10

// NewServer builds the HTTP server on its dependencies; it holds no globals, so tests run as
// many servers as they like in one process.
func NewServer(cfg Config, log *slog.Logger, db *gorm.DB) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:               "petstore",
		ErrorHandler:          routes.ErrorHandler(log),
		BodyLimit:             BodyLimit,
		ReadTimeout:           cfg.ReadTimeout,
		WriteTimeout:          cfg.WriteTimeout,
		IdleTimeout:           cfg.IdleTimeout,
		DisableStartupMessage: true,
		JSONEncoder:           routes.EncodeJSON,
	})
	routes.Register(app, routes.Deps{
		Log:        log,
		DB:         db,
		DBTimeout:  cfg.DBTimeout,
		Pets:       models.NewPetStore(db),
		Categories: models.NewCategoryStore(db),
	})
	return app
}

// Package routes is the HTTP surface of the service: every route is registered in Register,
// and each resource's handlers sit in a file of their own beside it.
package routes

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes/ratelimit"
	"gorm.io/gorm"
)

// Deps are everything the routes need; NewServer in package app builds them.
type Deps struct {
	Log        *slog.Logger
	DB         *gorm.DB
	DBTimeout  time.Duration
	Pets       *models.PetStore
	Categories *models.CategoryStore
	Orders     *models.OrderStore
	IdemKeys   *models.IdempotencyStore // the responses of POSTs sent with an Idempotency-Key
	// Keys authenticates API keys; its clock is the service's clock.
	Keys *models.APIKeyStore
	// Limiter counts /v1 requests per key and per client IP. Admin pages read today's traffic
	// from it (Today) and a key's usage (Usage with ratelimit.KeyClient(id)).
	Limiter ratelimit.Limiter
	// A key whose refused requests within one minute reach BanThreshold times its per-minute
	// limit is banned for BanDuration.
	BanThreshold float64
	BanDuration  time.Duration
}

// Register adds every route of the service to app.
func Register(app *fiber.App, d Deps) {
	app.Use(withRequestID(), accessLog(d.Log), recoverPanics(d.Log))

	app.Get("/healthz", healthz)
	app.Get("/readyz", readyz(map[string]ReadyCheck{
		"database": func(ctx context.Context) error { return models.Ping(ctx, d.DB) },
		"ratelimit": func(ctx context.Context) error {
			if err := d.Limiter.Ready(ctx); err != nil {
				return Degraded{Reason: err.Error()}
			}
			return nil
		},
	}))

	app.Use("/v1/pets/:petId", deprecatedGetPet)
	v1 := app.Group("/v1", withDeadline(d.DBTimeout))
	v1.Use(authenticate(d))
	idem := idempotent(d.IdemKeys, d.Log)
	v1.Get("/pets", listPets(d.Pets))
	v1.Post("/pets", idem, createPet(d.Pets))
	v1.Get("/pets/:petId", getPet(d.Pets))
	v1.Get("/categories", listCategories(d.Categories))
	v1.Get("/store/orders", listOrders(d.Orders))
	v1.Post("/store/orders", idem, createOrder(d.Orders))
	v1.Get("/store/orders/:orderId", getOrder(d.Orders))
}

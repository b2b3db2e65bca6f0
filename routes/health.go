package routes

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// ReadyCheck reports whether one dependency can serve. A Degraded error keeps the instance
// ready but is shown in /readyz.
type ReadyCheck func(ctx context.Context) error

// Degraded marks a dependency whose loss the service survives (it falls back).
type Degraded struct{ Reason string }

func (d Degraded) Error() string { return "degraded: " + d.Reason }

// healthz answers while the process is alive.
func healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 when every check passes (or is only degraded), else 503 unavailable.
func readyz(checks map[string]ReadyCheck) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		report := make(map[string]string, len(checks))
		for name, check := range checks {
			if check == nil {
				continue
			}
			err := check(ctx)
			switch err.(type) {
			case nil:
				report[name] = "ok"
			case Degraded:
				report[name] = err.Error()
			default:
				return models.Errorf(models.EUnavailable, "%s is unavailable", name)
			}
		}
		return c.JSON(fiber.Map{"status": "ready", "checks": report})
	}
}

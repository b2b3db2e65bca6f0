package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

type callerLocal struct{}

// setCallerKeyID records which API key sent the request, also as the actor of every change the
// request makes (the audit log's api-key:<id>); the authentication middleware calls it.
func setCallerKeyID(c *fiber.Ctx, id int64) {
	c.Locals(callerLocal{}, id)
	c.SetUserContext(models.WithActor(c.UserContext(), models.APIKeyActor(id)))
}

// callerKeyID is the id of the API key that sent the request, or 0 before authentication.
// Whatever is scoped to a client (idempotency records, usage) is keyed by it.
func callerKeyID(c *fiber.Ctx) int64 {
	id, _ := c.Locals(callerLocal{}).(int64)
	return id
}

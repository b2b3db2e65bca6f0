package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

type callerLocal struct{}

// caller is the API key that sent the request, as the handlers need it.
type caller struct {
	keyID    int64
	clientID int64
	scopes   models.ScopeSet
}

// setCaller records which API key sent the request, also as the actor of every change the
// request makes (the audit log's api-key:<id>); the authentication middleware calls it.
func setCaller(c *fiber.Ctx, k models.APIKey) {
	c.Locals(callerLocal{}, caller{keyID: k.ID, clientID: k.ClientID, scopes: k.Scopes})
	c.SetUserContext(models.WithActor(c.UserContext(), models.APIKeyActor(k.ID)))
}

func callerOf(c *fiber.Ctx) caller {
	v, _ := c.Locals(callerLocal{}).(caller)
	return v
}

// callerKeyID is the id of the API key that sent the request, or 0 before authentication.
// Idempotency records and the history's actor are keyed by it.
func callerKeyID(c *fiber.Ctx) int64 { return callerOf(c).keyID }

// callerScopes are the scopes of the API key that sent the request; none before authentication.
func callerScopes(c *fiber.Ctx) models.ScopeSet { return callerOf(c).scopes }

// callerOwner is whose orders the request sees: its key's client's own.
func callerOwner(c *fiber.Ctx) models.Owner { return models.ClientOwner(callerOf(c).clientID) }

// callerClientID is the client of the API key that sent the request: whose webhook endpoints it
// manages.
func callerClientID(c *fiber.Ctx) int64 { return callerOf(c).clientID }

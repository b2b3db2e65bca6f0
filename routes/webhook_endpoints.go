package routes

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// WebhookEndpoint is a URL the service sends the client's events to.
type WebhookEndpoint struct {
	// Unique identifier assigned by the service.
	ID int64 `json:"id" example:"3" format:"int64" validate:"required"`
	// Where deliveries are POSTed.
	URL string `json:"url" example:"https://shop.example.com/webhooks/petstore" format:"uri" maxLength:"2048" validate:"required"`
	// A note for the client's own use; empty when none was given.
	Description string `json:"description" example:"Order updates for the shop" maxLength:"200" validate:"required"`
	// The event types delivered to it.
	Events []models.EventType `json:"events" validate:"required,min=1,max=7,unique"`
	// True while deliveries are stopped: by the client (PATCH), or because every delivery failed for 5 days.
	Disabled bool `json:"disabled" example:"false" validate:"required"`
	// Why it is disabled: requested (by a PATCH) or failing (every delivery failed for 5 days); absent while enabled.
	DisabledReason string `json:"disabledReason,omitempty" enums:"requested,failing" example:"failing"`
	// When it was added.
	CreatedAt time.Time `json:"createdAt" format:"date-time" example:"2026-11-21T10:00:00Z" validate:"required"`
	// The signing secret (whsec_ and the base64 of 32 bytes). Present only in the answers of creation and rotate-secret: it is shown once.
	Secret string `json:"secret,omitempty" example:"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" maxLength:"100"`
} //	@name	WebhookEndpoint

// NewWebhookEndpoint is the body that adds a webhook endpoint.
type NewWebhookEndpoint struct {
	// Where to POST deliveries: an https URL whose host is not, and does not resolve to, a loopback, private, link-local, unique-local, multicast or unspecified address.
	URL *string `json:"url" example:"https://shop.example.com/webhooks/petstore" format:"uri" maxLength:"2048" validate:"required"`
	// The event types to deliver: at least one, each once. The key needs the read scope of each: pets:read for pet events, orders:read for order events.
	Events []models.EventType `json:"events" validate:"required,min=1,max=7,unique"`
	// A note for the client's own use (white space around it trimmed).
	Description *string `json:"description,omitempty" example:"Order updates for the shop" maxLength:"200"`
} //	@name	NewWebhookEndpoint

// WebhookEndpointPatch changes some of a webhook endpoint's fields; those left out stay.
type WebhookEndpointPatch struct {
	// A new URL, checked as at creation.
	URL *string `json:"url,omitempty" example:"https://shop.example.com/webhooks/v2" format:"uri" maxLength:"2048"`
	// The event types to deliver from now on: at least one, each once.
	Events []models.EventType `json:"events,omitempty" validate:"min=1,max=7,unique"`
	// true stops deliveries; false starts them again (and forgets past failures).
	Disabled *bool `json:"disabled,omitempty" example:"false"`
} //	@name	WebhookEndpointPatch

// endpointResponse shows e; its secret only as creation and rotation made it, never a stored one.
func endpointResponse(e *models.WebhookEndpoint) WebhookEndpoint {
	return WebhookEndpoint{ID: e.ID, URL: e.URL, Description: e.Description, Events: e.Events.List(),
		Disabled: e.Disabled(), DisabledReason: e.DisabledReason, CreatedAt: e.CreatedAt.UTC(), Secret: e.NewSecret}
}

func eventNames(types []models.EventType) []string {
	if types == nil {
		return nil
	}
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = string(t)
	}
	return out
}

// scopeChallenge names, in the answer's challenge, the scope whose lack refused a subscription.
func scopeChallenge(c *fiber.Ctx, err error) error {
	var r *models.ScopeRefusal
	if errors.As(err, &r) {
		c.Set(fiber.HeaderWWWAuthenticate, challengeScope(r.Scope))
	}
	return err
}

func endpointPath(id int64) string { return "/v1/webhook-endpoints/" + strconv.FormatInt(id, 10) }

// listWebhookEndpoints godoc
//
//	@Summary		List webhook endpoints
//	@Description	The client's own webhook endpoints (at most 10) in ascending id order, without their secrets. Not paginated.
//	@ID				listWebhookEndpoints
//	@Tags			events
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"webhooks"
//	@x-max-items	10
//	@Param			If-None-Match	header		string			false	"An ETag of an earlier answer: 304 when the list is unchanged"	maxlength(1024)
//	@Success		200				{array}		WebhookEndpoint	"The client's endpoints"
//	@Success		304				"The list is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag			"Weak entity tag of the list, for If-None-Match"
//	@Router			/webhook-endpoints [get]
func listWebhookEndpoints(store *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		list, err := store.List(c.UserContext(), callerClientID(c))
		if err != nil {
			return err
		}
		out := make([]WebhookEndpoint, len(list))
		for i := range list {
			out[i] = endpointResponse(&list[i])
		}
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

// createWebhookEndpoint godoc
//
//	@Summary		Add a webhook endpoint
//	@Description	Registers a URL to which the service POSTs the client's events of the types named: animal events, and the events of the client's own orders. The answer carries the endpoint's signing `secret`, shown this once; every delivery is signed with it as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The URL must be https, and its host must not be or resolve to a loopback, private, link-local, unique-local, multicast or unspecified address (checked now and again at each delivery). A client has at most 10 endpoints; an 11th, or an unknown event type, is a 400 `validation_failed`. Member names match exactly; unknown, repeated or null members are refused. Besides `webhooks`, the key needs the read scope of every event type named: `pets:read` for `pet.*`, `orders:read` for `order.*`; without it the answer is 403 `insufficient_scope`, whose `WWW-Authenticate` names the scope lacking. Each delivery is sent only while a key of the client (neither revoked nor expired) still has the read scope of its event: once none has, the delivery is not sent and is recorded as skipped.
//	@ID				createWebhookEndpoint
//	@Tags			events
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"webhooks"
//	@Param			endpoint	body		NewWebhookEndpoint	true	"The endpoint to add"
//	@Success		201			{object}	WebhookEndpoint		"Added; the answer's secret is shown only now"
//	@Header			201			{string}	Location			"Absolute URL of the new endpoint"
//	@Header			201			{string}	ETag				"Strong entity tag of this answer, secret included (a GET of the endpoint, without it, has another)"
//	@Failure		400			{object}	Error				"A missing, malformed or refused url, an unknown or repeated event type, an 11th endpoint, malformed JSON or an unknown member"
//	@Failure		413			{object}	Error				"Body larger than 64 KiB"
//	@Failure		415			{object}	Error				"Content-Type is not application/json (in UTF-8), or the body is compressed"
//	@Router			/webhook-endpoints [post]
func createWebhookEndpoint(store *models.WebhookStore, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req NewWebhookEndpoint
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
		n := models.NewWebhookEndpoint{URL: req.URL, Events: eventNames(req.Events), Description: req.Description}
		if req.Events != nil && n.Events == nil {
			n.Events = []string{}
		}
		e, err := store.Create(c.UserContext(), callerClientID(c), callerScopes(c), n, models.APIKeyActor(callerKeyID(c)))
		if err != nil {
			return scopeChallenge(c, err)
		}
		c.Location(base.of(c) + endpointPath(e.ID))
		return sendJSON(c, fiber.StatusCreated, endpointResponse(e), false)
	}
}

// getWebhookEndpoint godoc
//
//	@Summary		Get a webhook endpoint
//	@Description	One of the client's webhook endpoints, without its secret. Another client's endpoint answers 404, as a missing one does.
//	@ID				getWebhookEndpoint
//	@Tags			events
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"webhooks"
//	@Param			endpointId		path		int				true	"Identifier of the endpoint"	Format(int64)	example(3)
//	@Param			If-None-Match	header		string			false	"An ETag of an earlier answer: 304 when the endpoint is unchanged"	maxlength(1024)
//	@Success		200				{object}	WebhookEndpoint	"The endpoint"
//	@Success		304				"The endpoint is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag			"Strong entity tag of the endpoint, for If-None-Match"
//	@Failure		400			{object}	Error			"endpointId is not a 64-bit integer"
//	@Failure		404			{object}	Error			"No endpoint with this id among the client's own"
//	@Router			/webhook-endpoints/{endpointId} [get]
func getWebhookEndpoint(store *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "endpointId")
		if err != nil {
			return err
		}
		e, err := store.Get(c.UserContext(), callerClientID(c), id)
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, endpointResponse(e), false)
	}
}

// updateWebhookEndpoint godoc
//
//	@Summary		Change a webhook endpoint
//	@Description	Changes the `url` (checked as at creation), the `events` delivered, or `disabled`: true stops deliveries (those already queued are dropped), false starts them again for new events and forgets past failures. Fields left out stay as they are; `null` is refused. A change of `url` or `events`, or `disabled: false`, needs the read scope of every event type the endpoint is then subscribed to (`pets:read` for `pet.*`, `orders:read` for `order.*`), else 403 `insufficient_scope` naming it; `disabled: true` needs only `webhooks`. An endpoint whose deliveries have all failed for 5 days is disabled by the service, and this is how the client enables it again.
//	@ID				updateWebhookEndpoint
//	@Tags			events
//	@Accept			json,application/merge-patch+json
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"webhooks"
//	@Param			endpointId	path		int						true	"Identifier of the endpoint"	Format(int64)	example(3)
//	@Param			changes		body		WebhookEndpointPatch	true	"The fields to change"
//	@Success		200			{object}	WebhookEndpoint			"The endpoint as changed"
//	@Header			200			{string}	ETag					"Strong entity tag of the endpoint as it is now: the one a GET of it answers"
//	@Failure		400			{object}	Error					"endpointId is not a 64-bit integer, a malformed or refused url, an unknown or repeated event type, a null, malformed JSON or an unknown member"
//	@Failure		404			{object}	Error					"No endpoint with this id among the client's own"
//	@Failure		413			{object}	Error					"Body larger than 64 KiB"
//	@Failure		415			{object}	Error					"Content-Type is not application/json or application/merge-patch+json (in UTF-8)"
//	@Router			/webhook-endpoints/{endpointId} [patch]
func updateWebhookEndpoint(store *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "endpointId")
		if err != nil {
			return err
		}
		var req WebhookEndpointPatch
		if err := decodeJSON(c, &req, mimeMergePatch); err != nil {
			return err
		}
		p := models.WebhookEndpointPatch{URL: req.URL, Disabled: req.Disabled}
		if req.Events != nil {
			names := eventNames(req.Events)
			p.Events = &names
		}
		e, err := store.Update(c.UserContext(), callerClientID(c), id, callerScopes(c), p, models.APIKeyActor(callerKeyID(c)))
		if err != nil {
			return scopeChallenge(c, err)
		}
		return sendJSON(c, fiber.StatusOK, endpointResponse(e), false)
	}
}

// deleteWebhookEndpoint godoc
//
//	@Summary		Delete a webhook endpoint
//	@Description	Deletes one of the client's webhook endpoints: nothing more is delivered to it, deliveries already queued included.
//	@ID				deleteWebhookEndpoint
//	@Tags			events
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"webhooks"
//	@Param			endpointId	path	int	true	"Identifier of the endpoint"	Format(int64)	example(3)
//	@Success		204			"Deleted"
//	@Failure		400			{object}	Error	"endpointId is not a 64-bit integer"
//	@Failure		404			{object}	Error	"No endpoint with this id among the client's own"
//	@Router			/webhook-endpoints/{endpointId} [delete]
func deleteWebhookEndpoint(store *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "endpointId")
		if err != nil {
			return err
		}
		if err := store.Delete(c.UserContext(), callerClientID(c), id, models.APIKeyActor(callerKeyID(c))); err != nil {
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}

// rotateWebhookSecret godoc
//
//	@Summary		Rotate a webhook endpoint's secret
//	@Description	Gives the endpoint a new signing secret, in this answer only. For the next 24 hours every delivery carries two signatures in `webhook-signature`, one with each secret, so the receiver can switch to the new secret at any moment in that time; after that only the new one signs.
//	@ID				rotateWebhookSecret
//	@Tags			events
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"webhooks"
//	@Param			endpointId	path		int				true	"Identifier of the endpoint"	Format(int64)	example(3)
//	@Success		200			{object}	WebhookEndpoint	"The endpoint with its new secret, shown only now"
//	@Header			200			{string}	ETag			"Strong entity tag of this answer, new secret included"
//	@Failure		400			{object}	Error			"endpointId is not a 64-bit integer"
//	@Failure		404			{object}	Error			"No endpoint with this id among the client's own"
//	@Router			/webhook-endpoints/{endpointId}/rotate-secret [post]
func rotateWebhookSecret(store *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "endpointId")
		if err != nil {
			return err
		}
		e, err := store.RotateSecret(c.UserContext(), callerClientID(c), id, models.APIKeyActor(callerKeyID(c)))
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, endpointResponse(e), false)
	}
}

package routes

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Event is something that happened to a pet or an order, as the API lists it and webhook
// deliveries send it.
type Event struct {
	// Unique identifier: evt_ and 26 characters. Ids sort in the order the events were recorded; a delivery's webhook-id is its event's id.
	ID string `json:"id" example:"evt_000000001dnba0000000000428" minLength:"30" maxLength:"30" validate:"required"`
	// What happened. Clients must ignore types they do not know.
	Type models.EventType `json:"type" example:"order.approved" validate:"required"`
	// When the event was recorded, in the transaction of its change.
	CreatedAt time.Time `json:"createdAt" format:"date-time" example:"2026-11-21T10:00:00Z" validate:"required"`
	// The object and what changed.
	Data struct {
		// The Pet (pet.* events) or the Order (order.* events) as it was right after the change.
		Object json.RawMessage `json:"object" swaggertype:"object" extensions:"x-one-of=Pet|Order" validate:"required"`
		// For updates and order actions, the changed fields' earlier values, by the object's field names; absent for a creation or deletion.
		Previous json.RawMessage `json:"previous,omitempty" swaggertype:"object"`
	} `json:"data" validate:"required"`
} //	@name	Event

// eventResponse is an event as the API shows it: its stored data is already the API's JSON.
func eventResponse(e *models.Event) (Event, error) {
	out := Event{ID: e.PublicID(), Type: e.Type, CreatedAt: e.CreatedAt.UTC()}
	d, err := e.DecodedData()
	out.Data.Object, out.Data.Previous = d.Object, d.Previous
	return out, err
}

// listEvents godoc
//
//	@Summary		List events
//	@Description	Returns up to `limit` events of the last 30 days, oldest first: what happened to animals (with `pets:read`) and to the client's own orders (with `orders:read`), optionally of one `type`. Each event is written in the same transaction as its change, so there is no change without its event and no event without its change; a pet whose status an order changes gives both the order's event and `pet.updated`. An event is listed once every transaction recorded before it has ended, so a page never has a gap that fills in later: following the `Link` header's `rel="next"` from the last page sees every later event exactly once. The body is a plain array; the `Link` header is absent on the last page. A parameter that takes one value must not be repeated or empty.
//	@ID				listEvents
//	@Tags			events
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"pets:read or orders:read"
//	@Param			limit			query		int					false	"Maximum number of events returned"	Format(int32)	minimum(1)	maximum(100)	default(20)
//	@Param			type			query		models.EventType	false	"Return only events of this type"
//	@Param			cursor			query		string				false	"Opaque token from the previous page's Link header"	maxlength(64)
//	@Param			If-None-Match	header		string				false	"An ETag of an earlier answer: 304 when the page is unchanged"	maxlength(1024)
//	@Success		200				{array}		Event				"A page of events, oldest first"
//	@Header			200				{string}	Link				"`<absolute URL of the next page>; rel="next"` (RFC 8288); absent on the last page"
//	@Success		304				"The page is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag				"Weak entity tag of the page, for If-None-Match"
//	@Failure		400				{object}	Error				"A bad limit, type or cursor, or one repeated or empty (invalid_request)"
//	@Router			/events [get]
func listEvents(events *models.EventStore, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q := apiQuery(c)
		limit, err := q.one("limit")
		if err != nil {
			return err
		}
		page := models.Page{Sort: models.EventOrder}
		if page.Limit, err = models.ParseLimit(limit); err != nil {
			return err
		}
		if page.Cursor, err = q.cursor(models.EventOrder); err != nil {
			return err
		}
		var f models.EventFilter
		if f.Type, err = param(q, "type", models.ParseEventType); err != nil {
			return err
		}
		scopes := callerScopes(c)
		f.Pets = scopes.Has(models.ScopePetsRead)
		if scopes.Has(models.ScopeOrdersRead) {
			f.OrdersOf = callerClientID(c)
		}
		list, err := events.List(c.UserContext(), f, page)
		if err != nil {
			return err
		}
		out := make([]Event, len(list.Items))
		for i := range list.Items {
			if out[i], err = eventResponse(&list.Items[i]); err != nil {
				return err
			}
		}
		setNextLink(c, base, list.Next)
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

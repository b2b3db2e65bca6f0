package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

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
//	@Success		200				{array}		models.EventResponse				"A page of events, oldest first"
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
		out := make([]models.EventResponse, len(list.Items))
		for i := range list.Items {
			if out[i], err = list.Items[i].Response(); err != nil {
				return err
			}
		}
		setNextLink(c, base, list.Next)
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

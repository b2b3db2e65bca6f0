package routes

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// NewOrder is the body that places an order.
type NewOrder struct {
	// Identifier of an available animal.
	PetID *int64 `json:"petId" example:"42" format:"int64" minimum:"1" validate:"required"`
	// 1 when given: an order is for one animal.
	Quantity *int32 `json:"quantity,omitempty" example:"1" format:"int32" minimum:"1" maximum:"1" default:"1"`
	// When to ship the animal, an RFC 3339 date-time; not before the current UTC day.
	ShipDate *string `json:"shipDate,omitempty" example:"2030-12-01T10:00:00Z" format:"date-time"`
} //	@name	NewOrder

// withDefaults is the request as the service takes it: a quantity left out is 1.
func (n NewOrder) withDefaults() NewOrder {
	if n.Quantity == nil {
		n.Quantity = ptrTo[int32](1)
	}
	return n
}

// listOrders godoc
//
//	@Summary		List store orders
//	@Description	Returns up to `limit` of the client's own orders (those its keys placed) in ascending id order, optionally only those with one status. The body is a plain array; when more orders follow, the `Link` header carries the absolute URL of the next page (`rel="next"`), and it is absent on the last page. A parameter that takes one value must not be repeated or empty.
//	@ID				listOrders
//	@Tags			store
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"orders:read"
//	@Param			limit			query		int		false	"Maximum number of orders returned"	Format(int32)	minimum(1)	maximum(100)	default(20)
//	@Param			status			query		string	false	"Return only orders with this status"	Enums(placed, approved, delivered, cancelled)
//	@Param			cursor			query		string	false	"Opaque token from the previous page's Link header"	maxlength(64)
//	@Param			If-None-Match	header		string	false	"An ETag of an earlier answer: 304 when the page is unchanged"	maxlength(1024)
//	@Success		200				{array}		models.OrderResponse	"A page of orders"
//	@Header			200				{string}	Link	"`<absolute URL of the next page>; rel="next"` (RFC 8288); absent on the last page"
//	@Success		304				"The page is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag	"Weak entity tag of the page, for If-None-Match"
//	@Failure		400				{object}	Error	"A bad limit, status or cursor, or one repeated or empty (invalid_request)"
//	@Router			/store/orders [get]
func listOrders(orders *models.OrderStore, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q := apiQuery(c)
		page, err := q.page()
		if err != nil {
			return err
		}
		var f models.OrderFilter
		if f.Status, err = param(q, "status", models.ParseOrderStatus); err != nil {
			return err
		}
		list, err := orders.List(c.UserContext(), callerOwner(c), f, page)
		if err != nil {
			return err
		}
		out := make([]models.OrderResponse, len(list.Items))
		for i := range list.Items {
			out[i] = list.Items[i].Response()
		}
		setNextLink(c, base, list.Next)
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

// createOrder godoc
//
//	@Summary		Place a store order
//	@Description	Places an order for one available animal, which becomes `pending` until staff deliver the order (it is then `sold`) or cancel it (it is `available` again). The order belongs to the client whose key placed it. A `shipDate` before the current UTC day is refused with 400 `validation_failed`. Member names match exactly; unknown, repeated or null members are refused. Safe to retry with an `Idempotency-Key`; a retry that spells out a default (`"quantity": 1`) is the same request as one that left it out.
//	@ID				createOrder
//	@Tags			store
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"orders:write"
//	@Param			Idempotency-Key	header		string		false	"Makes the request safe to retry: a retry with the same key and body within 24 hours returns the first response and places nothing. 1 to 255 visible ASCII characters, such as a UUID, or the same in double quotes (the IETF draft's form; an empty quoted string is no key)."	minlength(1)	maxlength(257)
//	@Param			order			body		NewOrder	true	"The order to place"
//	@Success		201				{object}	models.OrderResponse		"Order placed; the animal is now pending"
//	@Failure		400				{object}	Error		"Body missing petId or containing invalid or null values (a shipDate before the current UTC day, say), malformed JSON, or a malformed Idempotency-Key"
//	@Failure		404				{object}	Error		"No animal with this petId"
//	@Failure		409				{object}	Error		"The animal is not available, or a request with the same Idempotency-Key is still in progress (that answer carries Retry-After)"
//	@Failure		413				{object}	Error		"Body larger than 64 KiB"
//	@Failure		415				{object}	Error		"Content-Type is not application/json (in UTF-8), or the body is compressed"
//	@Failure		422				{object}	Error		"The Idempotency-Key was already used for a different request"
//	@Header			201				{string}	Location			"Absolute URL of the new order"
//	@Header			201				{string}	ETag				"Strong entity tag of the order"
//	@Header			201,404,409		{string}	Idempotent-Replayed	"true when this is the stored first response to an earlier request with the same Idempotency-Key"
//	@Router			/store/orders [post]
func createOrder(orders *models.OrderStore, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req NewOrder
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
		n := models.NewOrder{PetID: req.PetID, Quantity: req.Quantity}
		if req.ShipDate != nil {
			d, err := time.Parse(time.RFC3339, *req.ShipDate)
			if err != nil {
				return models.FieldError("shipDate", "must be an RFC 3339 date-time such as 2030-12-01T10:00:00Z, got %q", *req.ShipDate)
			}
			n.ShipDate = &d
		}
		if replayed, err := claimIdempotency(c, req.withDefaults()); replayed || err != nil {
			return err
		}
		respond := func(o *models.Order) (keptResponse, error) {
			body, err := models.EncodeJSON(o.Response())
			return keptResponse{body: body, location: base.of(c) + "/v1/store/orders/" + strconv.FormatInt(o.ID, 10)}, err
		}
		o, err := orders.Place(c.UserContext(), n, callerOwner(c), models.APIKeyActor(callerKeyID(c)), keepCreated(c, respond))
		if err != nil {
			return err
		}
		r, err := respond(o)
		if err != nil {
			return err
		}
		return sendCreated(c, r)
	}
}

// getOrder godoc
//
//	@Summary		Get a store order
//	@Description	The order that `POST /store/orders` placed, as it is now (its `Location`). Another client's order answers 404, as a missing one does.
//	@ID				getOrder
//	@Tags			store
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"orders:read"
//	@Param			orderId			path		int		true	"Identifier of the order"	Format(int64)	example(7)
//	@Param			If-None-Match	header		string	false	"An ETag of an earlier answer: 304 when the order is unchanged"	maxlength(1024)
//	@Success		200				{object}	models.OrderResponse	"The order exists"
//	@Success		304				"The order is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag	"Strong entity tag of the order"
//	@Failure		400				{object}	Error	"orderId is not a 64-bit integer"
//	@Failure		404				{object}	Error	"No order with this id among the client's own"
//	@Router			/store/orders/{orderId} [get]
func getOrder(orders *models.OrderStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "orderId")
		if err != nil {
			return err
		}
		o, err := orders.Get(c.UserContext(), id, callerOwner(c))
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, o.Response(), false)
	}
}

// cancelOrder godoc
//
//	@Summary		Cancel a store order
//	@Description	Cancels one of the client's own orders while it is `placed`; its animal is `available` again. Once staff have approved an order only they can cancel it. Another client's order answers 404, as a missing one does.
//	@ID				cancelOrder
//	@Tags			store
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"orders:write"
//	@Param			orderId	path		int		true	"Identifier of the order"	Format(int64)	example(7)
//	@Success		200		{object}	models.OrderResponse	"The order, now cancelled"
//	@Header			200		{string}	ETag	"Strong entity tag of the order"
//	@Failure		400		{object}	Error	"orderId is not a 64-bit integer"
//	@Failure		404		{object}	Error	"No order with this id among the client's own"
//	@Failure		409		{object}	Error	"The order is not placed (approved, delivered or already cancelled)"
//	@Router			/store/orders/{orderId}/cancel [post]
func cancelOrder(orders *models.OrderStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "orderId")
		if err != nil {
			return err
		}
		o, err := orders.CancelOwn(c.UserContext(), id, callerOwner(c), models.APIKeyActor(callerKeyID(c)))
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, o.Response(), false)
	}
}

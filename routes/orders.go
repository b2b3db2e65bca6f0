package routes

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Order is a store order as the API returns it.
type Order struct {
	// Unique identifier assigned by the service.
	ID int64 `json:"id" example:"7" format:"int64" validate:"required"`
	// The animal ordered.
	PetID int64 `json:"petId" example:"42" format:"int64" validate:"required"`
	// Always 1: an order is for one animal.
	Quantity int32 `json:"quantity" example:"1" format:"int32" validate:"required"`
	// When the client asked for the animal to be shipped; absent when not given.
	ShipDate *time.Time `json:"shipDate,omitempty" example:"2026-12-01T10:00:00Z" format:"date-time"`
	// Where the order is: placed → approved → delivered, or cancelled from placed or approved.
	Status string `json:"status" enums:"placed,approved,delivered,cancelled" example:"placed" validate:"required"`
	// True once the order is delivered.
	Complete bool `json:"complete" example:"false" validate:"required"`
	// When the order was placed.
	CreatedAt time.Time `json:"createdAt" example:"2026-11-21T10:00:00Z" format:"date-time" readonly:"true" validate:"required"`
} //	@name	Order

// NewOrder is the body that places an order.
type NewOrder struct {
	// Identifier of an available animal.
	PetID *int64 `json:"petId" example:"42" format:"int64" minimum:"1" validate:"required"`
	// 1 when given: an order is for one animal.
	Quantity *int32 `json:"quantity,omitempty" example:"1" format:"int32" minimum:"1" maximum:"1" default:"1"`
	// When to ship the animal, an RFC 3339 date-time.
	ShipDate *string `json:"shipDate,omitempty" example:"2026-12-01T10:00:00Z" format:"date-time"`
} //	@name	NewOrder

func orderResponse(o *models.Order) Order {
	return Order{ID: o.ID, PetID: o.PetID, Quantity: o.Quantity, ShipDate: o.ShipDate,
		Status: string(o.Status), Complete: o.Complete, CreatedAt: o.CreatedAt}
}

// listOrders godoc
//
//	@Summary		List store orders
//	@Description	Returns up to `limit` of the client's own orders (those its keys placed) in ascending id order, optionally only those with one status. The body is a plain array; when more orders follow, the `Link` header carries the URL of the next page (`rel="next"`), and it is absent on the last page.
//	@ID				listOrders
//	@Tags			store
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"orders:read"
//	@Param			limit	query		int		false	"Maximum number of orders returned"	Format(int32)	minimum(1)	maximum(100)	default(20)
//	@Param			status	query		string	false	"Return only orders with this status"	Enums(placed, approved, delivered, cancelled)
//	@Param			cursor	query		string	false	"Opaque token from the previous page's Link header"	maxlength(64)
//	@Success		200		{array}		Order	"A page of orders"
//	@Header			200		{string}	Link	"`<URL of the next page>; rel="next"` (RFC 8288); absent on the last page"
//	@Failure		400		{object}	Error	"A bad limit, status or cursor"
//	@Router			/store/orders [get]
func listOrders(orders *models.OrderStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q, err := parseListQuery(c)
		if err != nil {
			return err
		}
		var f models.OrderFilter
		if q.status != "" {
			if f.Status, err = models.ParseOrderStatus("status", q.status); err != nil {
				return invalidParam(err)
			}
		}
		list, more, err := orders.List(c.UserContext(), callerOwner(c), f, q.page)
		if err != nil {
			return err
		}
		out := make([]Order, len(list))
		for i := range list {
			out[i] = orderResponse(&list[i])
		}
		if more {
			setNextLink(c, list[len(list)-1].ID)
		}
		return c.JSON(out)
	}
}

// createOrder godoc
//
//	@Summary		Place a store order
//	@Description	Places an order for one available animal, which becomes `pending` until staff deliver the order (it is then `sold`) or cancel it (it is `available` again). The order belongs to the client whose key placed it. Unknown fields are refused. Safe to retry with an `Idempotency-Key`.
//	@ID				createOrder
//	@Tags			store
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@x-stability	"experimental"
//	@x-required-scope	"orders:write"
//	@Param			Idempotency-Key	header		string		false	"Makes the request safe to retry: a retry with the same key and body within 24 hours returns the first response and places nothing. 1 to 255 visible ASCII characters, such as a UUID, or the same in double quotes (the IETF draft's form; an empty quoted string is no key)."	minlength(1)	maxlength(257)
//	@Param			order			body		NewOrder	true	"The order to place"
//	@Success		201				{object}	Order		"Order placed; the animal is now pending"
//	@Failure		400				{object}	Error		"Body missing petId or containing invalid values, or a malformed Idempotency-Key"
//	@Failure		404				{object}	Error		"No animal with this petId"
//	@Failure		409				{object}	Error		"The animal is not available, or a request with the same Idempotency-Key is still in progress (that answer carries Retry-After)"
//	@Failure		413				{object}	Error		"Body larger than 64 KiB"
//	@Failure		415				{object}	Error		"Content-Type is not application/json, or the body is compressed"
//	@Failure		422				{object}	Error		"The Idempotency-Key was already used for a different request"
//	@Header			201				{string}	Location			"URL of the new order"
//	@Header			201,404,409		{string}	Idempotent-Replayed	"true when this is the stored first response to an earlier request with the same Idempotency-Key"
//	@Router			/store/orders [post]
func createOrder(orders *models.OrderStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req NewOrder
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
		n := models.NewOrder{PetID: req.PetID, Quantity: req.Quantity}
		if req.ShipDate != nil {
			d, err := time.Parse(time.RFC3339, *req.ShipDate)
			if err != nil {
				return models.FieldError("shipDate", "must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z, got %q", *req.ShipDate)
			}
			n.ShipDate = &d
		}
		o, err := orders.Place(c.UserContext(), n, callerOwner(c), models.APIKeyActor(callerKeyID(c)))
		if err != nil {
			return err
		}
		c.Location("/v1/store/orders/" + strconv.FormatInt(o.ID, 10))
		return c.Status(fiber.StatusCreated).JSON(orderResponse(o))
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
//	@Param			orderId	path		int		true	"Identifier of the order"	Format(int64)
//	@Success		200		{object}	Order	"The order exists"
//	@Failure		400		{object}	Error	"orderId is not a 64-bit integer"
//	@Failure		404		{object}	Error	"No order with this id among the client's own"
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
		return c.JSON(orderResponse(o))
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
//	@Param			orderId	path		int		true	"Identifier of the order"	Format(int64)
//	@Success		200		{object}	Order	"The order, now cancelled"
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
		return c.JSON(orderResponse(o))
	}
}

package routes

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Pet is an animal as the API returns it.
type Pet struct {
	// Unique identifier assigned by the service on creation.
	ID int64 `json:"id" example:"42" format:"int64" validate:"required"`
	// The animal's name.
	Name string `json:"name" example:"Rex" minLength:"1" maxLength:"100" validate:"required"`
	// Identifier of the category the animal belongs to.
	CategoryID int64 `json:"categoryId" example:"1" format:"int64" validate:"required"`
	// Availability of the animal.
	Status models.PetStatus `json:"status" example:"available" validate:"required"`
	// When the animal was added.
	CreatedAt time.Time `json:"createdAt" format:"date-time" example:"2026-11-21T10:00:00Z" readonly:"true" validate:"required"`
	// When the animal last changed.
	UpdatedAt time.Time `json:"updatedAt" format:"date-time" example:"2026-11-21T10:00:00Z" readonly:"true" validate:"required"`
} //	@name	Pet

// NewPet is the body that adds an animal.
type NewPet struct {
	// The animal's name: white space around it is trimmed; then 1 to 100 characters, no control characters.
	Name *string `json:"name" example:"Rex" minLength:"1" maxLength:"100" validate:"required"`
	// Identifier of an existing category (see GET /categories).
	CategoryID *int64 `json:"categoryId" example:"1" format:"int64" minimum:"1" validate:"required"`
	// Availability of the animal; available when omitted.
	Status *models.PetStatus `json:"status,omitempty" example:"available"`
} //	@name	NewPet

func petResponse(p *models.Pet) Pet {
	return Pet{ID: p.ID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// listPets godoc
//
//	@Summary		List animals
//	@Description	Returns up to `limit` animals in ascending `id` order, optionally only those with one status. The body is a plain array; while more animals follow, the `Link` header carries the URL of the next page (`rel="next"`); it is absent on the last page.
//	@ID				listPets
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@Param			limit	query		int			false	"Maximum number of animals returned"							Format(int32)	minimum(1)	maximum(100)	default(20)
//	@Param			status	query		string		false	"Return only animals with this status"							Enums(available, pending, sold)
//	@Param			cursor	query		string		false	"Opaque token that continues the list: take it from the Link header"	maxlength(64)
//	@Success		200		{array}		Pet			"A page of animals"
//	@Header			200		{string}	Link		"`<URL of the next page>; rel="next"` (RFC 8288); absent on the last page"
//	@Failure		400		{object}	Error		"A limit, status or cursor that is not valid (invalid_request)"
//	@Router			/pets [get]
func listPets(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q, err := parseListQuery(c)
		if err != nil {
			return err
		}
		var f models.PetFilter
		if q.status != "" {
			if f.Status, err = models.ParsePetStatus("status", q.status); err != nil {
				return invalidParam(err)
			}
		}
		list, more, err := pets.List(c.UserContext(), f, q.page)
		if err != nil {
			return err
		}
		out := make([]Pet, len(list))
		for i := range list {
			out[i] = petResponse(&list[i])
		}
		if more {
			setNextLink(c, list[len(list)-1].ID)
		}
		return c.JSON(out)
	}
}

// createPet godoc
//
//	@Summary		Add an animal
//	@Description	Adds an animal and returns it with its assigned `id`. `status` defaults to `available`. Unknown fields are refused. Safe to retry with an `Idempotency-Key`.
//	@ID				createPet
//	@Tags			animals
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			Idempotency-Key	header		string	false	"Makes the request safe to retry: a retry with the same key and body within 24 hours returns the first response and adds nothing. 1 to 255 visible ASCII characters, such as a UUID, or the same in double quotes (the IETF draft's form; an empty quoted string is no key)."	minlength(1)	maxlength(257)
//	@Param			pet				body		NewPet	true	"The animal to add"
//	@Success		201				{object}	Pet		"Animal added"
//	@Header			201				{string}	Location	"Path of the new animal"
//	@Header			201				{string}	Idempotent-Replayed	"true when this is the stored first response to an earlier request with the same Idempotency-Key"
//	@Failure		400				{object}	Error	"Malformed JSON, an unknown field or a malformed Idempotency-Key (invalid_request); a missing or invalid field, or no such category (validation_failed)"
//	@Failure		409				{object}	Error	"A request with the same Idempotency-Key is still in progress (conflict)"
//	@Header			409				{integer}	Retry-After	"Seconds to wait before retrying"
//	@Failure		413				{object}	Error	"Body larger than 64 KiB (payload_too_large)"
//	@Failure		415				{object}	Error	"Content-Type is not application/json, or the body is compressed (unsupported_media_type)"
//	@Failure		422				{object}	Error	"The Idempotency-Key was already used for a different request (idempotency_key_reused)"
//	@Router			/pets [post]
func createPet(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req NewPet
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
		p, err := pets.Create(c.UserContext(), models.NewPet{Name: req.Name, CategoryID: req.CategoryID, Status: (*string)(req.Status)})
		if err != nil {
			return err
		}
		c.Location("/v1/pets/" + strconv.FormatInt(p.ID, 10))
		return c.Status(fiber.StatusCreated).JSON(petResponse(p))
	}
}

// getPet godoc
//
//	@Summary		Get an animal (deprecated)
//	@Description	Deprecated: this operation will be removed on 5 December 2030. Use `GET /pets` (with the `status` filter) instead. Every response carries `Deprecation`, `Sunset` and a `Link` to the successor.
//	@ID				getPet
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@Deprecated
//	@x-sunset		"2030-12-05"
//	@Param			petId	path		int			true	"Identifier of the animal to retrieve"	Format(int64)	example(42)
//	@Success		200		{object}	Pet			"The animal exists"
//	@Failure		400		{object}	Error		"petId is not a 64-bit integer (invalid_request)"
//	@Failure		404		{object}	Error		"No animal has this id (not_found)"
//	@Header			all		{string}	Deprecation	"`@1795219200`, when the operation was deprecated (RFC 9745)"
//	@Header			all		{string}	Sunset		"`Thu, 05 Dec 2030 00:00:00 GMT`, when the operation will be removed (RFC 8594)"
//	@Header			all		{string}	Link		"`</v1/pets>; rel="successor-version"`, the successor (RFC 8288)"
//	@Router			/pets/{petId} [get]
func getPet(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "petId")
		if err != nil {
			return err
		}
		p, err := pets.Get(c.UserContext(), id)
		if err != nil {
			return err
		}
		return c.JSON(petResponse(p))
	}
}

// Deprecation of getPet (DECISIONS.md): published 2026-11-21, removed 2030-12-05.
const (
	getPetDeprecation = "@1795219200"
	getPetSunset      = "Thu, 05 Dec 2030 00:00:00 GMT"
	getPetSuccessor   = `</v1/pets>; rel="successor-version"`
)

// deprecatedGetPet marks every response of getPet, errors included, so it runs before
// authentication and limits.
func deprecatedGetPet(c *fiber.Ctx) error {
	if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		c.Set("Deprecation", getPetDeprecation)
		c.Set("Sunset", getPetSunset)
		c.Set(fiber.HeaderLink, getPetSuccessor)
	}
	return c.Next()
}

package routes

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// NewPet is the body that adds an animal.
type NewPet struct {
	// The animal's name: white space around it is trimmed; then 1 to 100 characters, no control or invisible format characters.
	Name *string `json:"name" example:"Rex" minLength:"1" maxLength:"100" validate:"required"`
	// Identifier of an existing category (see GET /categories).
	CategoryID *int64 `json:"categoryId" example:"1" format:"int64" minimum:"1" validate:"required"`
	// Availability of the animal; available when omitted.
	Status *models.PetStatus `json:"status,omitempty" example:"available"`
} //	@name	NewPet

// withDefaults is the request as the service takes it: a status left out is available.
func (n NewPet) withDefaults() NewPet {
	if n.Status == nil {
		n.Status = ptrTo(models.PetAvailable)
	}
	return n
}

// PetPatch is a JSON Merge Patch of an animal: the fields given change, the others stay.
type PetPatch struct {
	// The new name: white space around it is trimmed; then 1 to 100 characters, no control or invisible format characters.
	Name *string `json:"name,omitempty" example:"Rex" minLength:"1" maxLength:"100"`
	// Identifier of an existing category (see GET /categories).
	CategoryID *int64 `json:"categoryId,omitempty" example:"2" format:"int64" minimum:"1"`
	// The new status, set by hand: refused while an order holds the animal, and after a sale through an order.
	Status *models.PetStatus `json:"status,omitempty" example:"sold"`
} //	@name	PetPatch

// Inventory counts the animals of the catalogue by status.
type Inventory struct {
	// Animals that can be ordered.
	Available int64 `json:"available" example:"12" format:"int64" validate:"required"`
	// Animals reserved by an order (or by hand).
	Pending int64 `json:"pending" example:"3" format:"int64" validate:"required"`
	// Animals sold.
	Sold int64 `json:"sold" example:"40" format:"int64" validate:"required"`
} //	@name	Inventory

func ptrTo[T any](v T) *T { return &v }

func petPath(id int64) string { return "/v1/pets/" + strconv.FormatInt(id, 10) }

// listPets godoc
//
//	@Summary		List animals
//	@Description	Returns up to `limit` animals in ascending `id` order. The filters `status`, `categoryId` and `id` combine: an animal is listed when it matches all of them. `id` may be repeated (1 to 100 ids) to look animals up by id; ids that do not exist are simply absent. The body is a plain array; while more animals follow, the `Link` header carries the absolute URL of the next page (`rel="next"`); it is absent on the last page. A parameter that takes one value must not be repeated or empty.
//	@ID				listPets
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@Param			limit			query		int			false	"Maximum number of animals returned"							Format(int32)	minimum(1)	maximum(100)	default(20)
//	@Param			status			query		string		false	"Return only animals with this status"							Enums(available, pending, sold)
//	@Param			categoryId		query		int			false	"Return only animals of this category"							Format(int64)	minimum(1)
//	@Param			id				query		[]int		false	"Return only the animals with these ids (repeat the parameter: `id=1&id=2`; 1 to 100 ids)"	collectionFormat(multi)	extensions(x-max-items=100,x-items-minimum=1,x-items-format=int64)
//	@Param			cursor			query		string		false	"Opaque token that continues the list: take it from the Link header"	maxlength(64)
//	@Param			If-None-Match	header		string		false	"An ETag of an earlier answer: 304 when the page is unchanged"	maxlength(1024)
//	@Success		200				{array}		models.PetResponse			"A page of animals"
//	@Header			200				{string}	Link		"`<absolute URL of the next page>; rel="next"` (RFC 8288); absent on the last page"
//	@Success		304				"The page is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag		"Weak entity tag of the page, for If-None-Match"
//	@Failure		400				{object}	Error		"A parameter that is not valid, repeated or empty, or a cursor that is not one (invalid_request)"
//	@Router			/pets [get]
func listPets(pets *models.PetStore, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q := apiQuery(c)
		page, err := q.page()
		if err != nil {
			return err
		}
		var f models.PetFilter
		if f.Status, err = param(q, "status", models.ParsePetStatus); err != nil {
			return err
		}
		if f.CategoryID, err = param(q, "categoryId", parseID); err != nil {
			return err
		}
		if f.IDs, err = q.ids("id", models.MaxLimit); err != nil {
			return err
		}
		list, err := pets.List(c.UserContext(), f, page)
		if err != nil {
			return err
		}
		setNextLink(c, base, list.Next)
		out := make([]models.PetResponse, len(list.Items))
		for i := range list.Items {
			out[i] = list.Items[i].Response()
		}
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

// createPet godoc
//
//	@Summary		Add an animal
//	@Description	Adds an animal and returns it with its assigned `id`. `status` defaults to `available`. Member names match exactly; unknown, repeated or null members are refused. Safe to retry with an `Idempotency-Key`.
//	@ID				createPet
//	@Tags			animals
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			Idempotency-Key	header		string	false	"Makes the request safe to retry: a retry with the same key and body within 24 hours returns the first response and adds nothing. 1 to 255 visible ASCII characters, such as a UUID, or the same in double quotes (the IETF draft's form; an empty quoted string is no key)."	minlength(1)	maxlength(257)
//	@Param			pet				body		NewPet	true	"The animal to add"
//	@Success		201				{object}	models.PetResponse		"Animal added"
//	@Header			201				{string}	Location	"Absolute URL of the new animal (`/v1/pets/{petId}`)"
//	@Header			201				{string}	ETag		"Strong entity tag of the animal, for If-Match"
//	@Header			201				{string}	Idempotent-Replayed	"true when this is the stored first response to an earlier request with the same Idempotency-Key"
//	@Failure		400				{object}	Error	"Malformed JSON (invalid UTF-8 included), an unknown or repeated member, or a malformed Idempotency-Key (invalid_request); a missing, null or invalid field, or no such category (validation_failed)"
//	@Failure		409				{object}	Error	"A request with the same Idempotency-Key is still in progress (conflict)"
//	@Header			409				{integer}	Retry-After	"Seconds to wait before retrying"
//	@Failure		413				{object}	Error	"Body larger than 64 KiB (payload_too_large)"
//	@Failure		415				{object}	Error	"Content-Type is not application/json (in UTF-8), or the body is compressed (unsupported_media_type)"
//	@Failure		422				{object}	Error	"The Idempotency-Key was already used for a different request (idempotency_key_reused)"
//	@Router			/pets [post]
func createPet(pets *models.PetStore, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req NewPet
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
		if replayed, err := claimIdempotency(c, req.withDefaults()); replayed || err != nil {
			return err
		}
		respond := func(p *models.Pet) (keptResponse, error) {
			body, err := models.EncodeJSON(p.Response())
			return keptResponse{body: body, location: base.of(c) + petPath(p.ID)}, err
		}
		p, err := pets.Create(c.UserContext(), models.NewPet{Name: req.Name, CategoryID: req.CategoryID, Status: (*string)(req.Status)},
			keepCreated(c, respond))
		if err != nil {
			return err
		}
		r, err := respond(p)
		if err != nil {
			return err
		}
		return sendCreated(c, r)
	}
}

// getPet godoc
//
//	@Summary		Get an animal (deprecated)
//	@Description	Deprecated: this operation will be removed on 5 December 2030. Use `GET /pets?id={petId}` (or the other filters of `GET /pets`) instead; `PATCH` and `DELETE` on this path stay. Every response carries `Deprecation`, `Sunset` and a `Link` to the successor.
//	@ID				getPet
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@Deprecated
//	@x-sunset		"2030-12-05"
//	@Param			petId			path		int			true	"Identifier of the animal to retrieve"	Format(int64)	example(42)
//	@Param			If-None-Match	header		string		false	"An ETag of an earlier answer: 304 when the animal is unchanged"	maxlength(1024)
//	@Success		200				{object}	models.PetResponse			"The animal exists"
//	@Success		304				"The animal is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag		"Strong entity tag of the animal, for If-None-Match and If-Match"
//	@Failure		400				{object}	Error		"petId is not a 64-bit integer (invalid_request)"
//	@Failure		404				{object}	Error		"No animal has this id, or it was deleted (not_found)"
//	@Header			all				{string}	Deprecation	"`@1795219200`, when the operation was deprecated (RFC 9745)"
//	@Header			all				{string}	Sunset		"`Thu, 05 Dec 2030 00:00:00 GMT`, when the operation will be removed (RFC 8594)"
//	@Header			all				{string}	Link		"`</v1/pets>; rel="successor-version"`, the successor (RFC 8288)"
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
		return sendJSON(c, fiber.StatusOK, p.Response(), false)
	}
}

// updatePet godoc
//
//	@Summary		Change an animal
//	@Description	Changes the fields the body gives (a JSON Merge Patch, RFC 7396) with the rules of creation; the others stay. None can be removed: `null` is refused. A `status` is set by hand: refused while an order holds the animal (approve, deliver or cancel the order instead) and after a sale through an order; the change is recorded in the animal's history. With `If-Match`, the change is made only if the animal is still as that ETag says.
//	@ID				updatePet
//	@Tags			animals
//	@Accept			json,application/merge-patch+json
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			petId		path		int			true	"Identifier of the animal to change"	Format(int64)	example(42)
//	@Param			If-Match	header		string		false	"ETags of the animal as the client last saw it (or *): when none is current, nothing changes and the answer is 412"	maxlength(1024)
//	@Param			patch		body		PetPatch	true	"The fields to change"
//	@Success		200			{object}	models.PetResponse			"The animal as it is now"
//	@Header			200			{string}	ETag		"Strong entity tag of the animal as it is now"
//	@Failure		400			{object}	Error		"petId is not a 64-bit integer, malformed JSON or an unknown or repeated member (invalid_request); a null or invalid field, or no such category (validation_failed)"
//	@Failure		404			{object}	Error		"No animal has this id, or it was deleted (not_found)"
//	@Failure		409			{object}	Error		"The status cannot be set by hand: an order holds the animal, or it was sold through one (conflict)"
//	@Failure		412			{object}	Error		"If-Match names no current ETag of the animal: it changed meanwhile (precondition_failed)"
//	@Failure		413			{object}	Error		"Body larger than 64 KiB (payload_too_large)"
//	@Failure		415			{object}	Error		"Content-Type is not application/merge-patch+json or application/json (in UTF-8), or the body is compressed (unsupported_media_type)"
//	@Router			/pets/{petId} [patch]
func updatePet(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "petId")
		if err != nil {
			return err
		}
		var req PetPatch
		if err := decodeJSON(c, &req, mimeMergePatch); err != nil {
			return err
		}
		p, err := pets.Patch(c.UserContext(), id, models.PetPatch{Name: req.Name, CategoryID: req.CategoryID, Status: (*string)(req.Status)},
			models.APIKeyActor(callerKeyID(c)), ifMatch(c))
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, p.Response(), false)
	}
}

// deletePet godoc
//
//	@Summary		Delete an animal
//	@Description	Takes the animal out of the catalogue: from then on it is absent from every answer (404 here, gone from lists and the inventory). Its orders and history stay, and staff can restore it. Refused while a placed or approved order holds it. With `If-Match`, the animal is deleted only if it is still as that ETag says.
//	@ID				deletePet
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			petId		path		int		true	"Identifier of the animal to delete"	Format(int64)	example(42)
//	@Param			If-Match	header		string	false	"ETags of the animal as the client last saw it (or *): when none is current, nothing changes and the answer is 412"	maxlength(1024)
//	@Success		204			"Deleted"
//	@Failure		400			{object}	Error	"petId is not a 64-bit integer (invalid_request)"
//	@Failure		404			{object}	Error	"No animal has this id, or it was deleted already (not_found)"
//	@Failure		409			{object}	Error	"A placed or approved order holds the animal (conflict)"
//	@Failure		412			{object}	Error	"If-Match names no current ETag of the animal: it changed meanwhile (precondition_failed)"
//	@Router			/pets/{petId} [delete]
func deletePet(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "petId")
		if err != nil {
			return err
		}
		if err := pets.Delete(c.UserContext(), id, models.APIKeyActor(callerKeyID(c)), ifMatch(c)); err != nil {
			return err
		}
		c.Status(fiber.StatusNoContent)
		return nil
	}
}

// getInventory godoc
//
//	@Summary		Count animals by status
//	@Description	How many animals of the catalogue are available, pending and sold; deleted animals are not counted.
//	@ID				getInventory
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@x-stability	"experimental"
//	@Success		200	{object}	Inventory	"The counts"
//	@Router			/store/inventory [get]
func getInventory(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		n, err := pets.CountByStatus(c.UserContext())
		if err != nil {
			return err
		}
		return c.JSON(Inventory{Available: n[models.PetAvailable], Pending: n[models.PetPending], Sold: n[models.PetSold]})
	}
}

// The deprecation of getPet: published 2026-11-21, removed 2030-12-05.
const (
	getPetDeprecation = "@1795219200"
	getPetSunset      = "Thu, 05 Dec 2030 00:00:00 GMT"
	getPetSuccessor   = `</v1/pets>; rel="successor-version"`
)

// deprecatedGetPet marks every response of getPet, errors included, so it runs before
// authentication and limits. The path stays the pet's address: PATCH and DELETE on it are not
// deprecated.
func deprecatedGetPet(c *fiber.Ctx) error {
	// The prefix also matches the pet's photos, which are not deprecated.
	if (c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead) && strings.Count(strings.Trim(c.Path(), "/"), "/") == 2 {
		c.Set("Deprecation", getPetDeprecation)
		c.Set("Sunset", getPetSunset)
		c.Set(fiber.HeaderLink, getPetSuccessor)
	}
	return c.Next()
}

package routes

import (
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

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
	// What a buyer reads about the animal: white space around it is trimmed; then at most 2,000 characters, line breaks allowed, no other control or invisible format characters. Empty when omitted.
	Description *string `json:"description,omitempty" example:"A calm Labrador puppy, house-trained." maxLength:"2000"`
	// At most 10 distinct tags, each 1 to 32 characters of a-z, 0-9 and -, trimmed and lower-cased on the way in. None when omitted.
	Tags *[]string `json:"tags,omitempty" example:"calm,puppy" validate:"max=10" extensions:"x-items-min-length=1,x-items-max-length=32,x-items-pattern=^\\s*[A-Za-z0-9-]+\\s*$"`
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
	// The new description, with the rules of creation; null clears it.
	Description orNull[string] `json:"description,omitzero" swaggertype:"string" example:"A calm Labrador puppy, house-trained." maxLength:"2000" extensions:"x-nullable"`
	// The new set of tags, replacing the whole set, with the rules of creation; null or [] removes them all.
	Tags orNull[[]string] `json:"tags,omitzero" swaggertype:"array,string" example:"calm,puppy" validate:"max=10" extensions:"x-nullable,x-items-min-length=1,x-items-max-length=32,x-items-pattern=^\\s*[A-Za-z0-9-]+\\s*$"`
} //	@name	PetPatch

// orNull is a member of a merge patch that null clears: given says the member was there, and
// value is nil for null. It is read before the strict decoding's refusal of nulls (acceptsNull).
type orNull[T any] struct {
	given bool
	value *T
}

func (o orNull[T]) acceptsNull() {}

// IsZero leaves an absent member out when the patch is encoded (the idempotency key's body).
func (o orNull[T]) IsZero() bool { return !o.given }

func (o *orNull[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	o.given = true
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		return err
	}
	o.value = new(T)
	return json.UnmarshalDecode(dec, o.value)
}

func (o orNull[T]) MarshalJSONTo(enc *jsontext.Encoder) error {
	if o.value == nil {
		return enc.WriteToken(jsontext.Null)
	}
	return json.MarshalEncode(enc, o.value)
}

// cleared is the member as the store takes it: nil when absent, the zero value for null.
func (o orNull[T]) cleared() *T {
	switch {
	case !o.given:
		return nil
	case o.value == nil:
		return new(T)
	}
	return o.value
}

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
//	@Description	Returns up to `limit` animals in ascending `id` order. The filters `status`, `categoryId`, `id`, `tag` and `q` combine: an animal is listed when it matches all of them. `tag` may be repeated (at most 10): an animal is listed when it carries every tag named. `q` is a word search: an animal is listed when its name, description and tags together contain every word of `q`, each as a word, the beginning of a word or another form of the word (English stemming: "puppy" finds "puppies"), ignoring case and accents ("cafe" finds "Café"); the order stays ascending `id`. `id` may be repeated (1 to 100 ids) to look animals up by id; ids that do not exist are simply absent. The body is a plain array; while more animals follow, the `Link` header carries the absolute URL of the next page (`rel="next"`); it is absent on the last page. A parameter that takes one value must not be repeated or empty.
//	@ID				listPets
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@Param			limit			query		int			false	"Maximum number of animals returned"							Format(int32)	minimum(1)	maximum(100)	default(20)
//	@Param			status			query		string		false	"Return only animals with this status"							Enums(available, pending, sold)
//	@Param			categoryId		query		int			false	"Return only animals of this category"							Format(int64)	minimum(1)
//	@Param			id				query		[]int		false	"Return only the animals with these ids (repeat the parameter: `id=1&id=2`; 1 to 100 ids)"	collectionFormat(multi)	extensions(x-max-items=100,x-items-minimum=1,x-items-format=int64)
//	@Param			tag				query		[]string	false	"Return only the animals carrying every one of these tags (repeat the parameter: `tag=calm&tag=puppy`; at most 10)"	collectionFormat(multi)	extensions(x-max-items=10,x-items-min-length=1,x-items-max-length=32,x-items-pattern=^\s*[A-Za-z0-9-]+\s*$)
//	@Param			q				query		string		false	"Return only the animals whose name, description and tags contain every word of this text (as words, beginnings of words or other forms of the words; case and accents ignored; a text of only signs and spaces holds no word and filters nothing)"	minlength(1)	maxlength(100)
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
		if f.Tags, err = models.ParseTagFilter("tag", q.all("tag")); err != nil {
			return invalidParam(err)
		}
		if f.Words, err = param(q, "q", models.ParseSearch); err != nil {
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
		p, err := pets.Create(c.UserContext(), models.NewPet{Name: req.Name, CategoryID: req.CategoryID, Status: (*string)(req.Status),
			Description: req.Description, Tags: req.Tags},
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
//	@Description	Changes the fields the body gives (a JSON Merge Patch, RFC 7396) with the rules of creation; the others stay. `null` clears `description` and removes every tag; the other fields cannot be removed: `null` is refused for them. `tags` replaces the whole set. A `status` is set by hand: refused while an order holds the animal (approve, deliver or cancel the order instead) and after a sale through an order; the change is recorded in the animal's history. With `If-Match`, the change is made only if the animal is still as that ETag says.
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
		p, err := pets.Patch(c.UserContext(), id, models.PetPatch{Name: req.Name, CategoryID: req.CategoryID, Status: (*string)(req.Status),
			Description: req.Description.cleared(), Tags: req.Tags.cleared()},
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

// TagCount is a tag and how many animals carry it.
type TagCount struct {
	// The tag.
	Name string `json:"name" example:"puppy" minLength:"1" maxLength:"32" validate:"required"`
	// How many animals of the catalogue (not deleted) carry it.
	Count int64 `json:"count" example:"12" format:"int64" minimum:"1" validate:"required"`
} //	@name	TagCount

// listTags godoc
//
//	@Summary		List the tags in use
//	@Description	The tags the animals of the catalogue carry (deleted animals are not counted), most used first, then by name; at most 1,000. Counting them reads every animal, so each instance of the service keeps the list it counted for a short while (10 seconds unless its operator set another time) and answers from it: a change may take that long to show here. `Age` says how many seconds ago the list was counted.
//	@ID				listTags
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@x-stability	"beta"
//	@x-max-items	1000
//	@Param			If-None-Match	header		string		false	"An ETag of an earlier answer: 304 when the list is unchanged"	maxlength(1024)
//	@Success		200				{array}		TagCount	"The tags, most used first"
//	@Header			200				{integer}	Age			"Seconds since the tags were counted"
//	@Success		304				"The list is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag		"Weak entity tag of the list, for If-None-Match"
//	@Router			/tags [get]
func listTags(pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		tags, age, err := pets.Tags(c.UserContext())
		if err != nil {
			return err
		}
		setAge(c, age)
		out := make([]TagCount, len(tags))
		for i, t := range tags {
			out[i] = TagCount{Name: t.Name, Count: t.Count}
		}
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

// getInventory godoc
//
//	@Summary		Count animals by status
//	@Description	How many animals of the catalogue are available, pending and sold; deleted animals are not counted. Counting reads every animal, so each instance of the service keeps the counts it made for a short while (10 seconds unless its operator set another time) and answers from them: a change may take that long to show here. The answer's `Age` header says how many seconds ago they were counted.
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
		n, age, err := pets.CountByStatus(c.UserContext())
		if err != nil {
			return err
		}
		setAge(c, age)
		return c.JSON(Inventory{Available: n[models.PetAvailable], Pending: n[models.PetPending], Sold: n[models.PetSold]})
	}
}

// setAge says in Age (RFC 9111) how many whole seconds ago the counts of an answer were made: an
// instance keeps them up to PETSTORE_COUNTS_MAX_AGE.
func setAge(c *fiber.Ctx, age time.Duration) {
	c.Set(fiber.HeaderAge, strconv.FormatInt(int64(age/time.Second), 10))
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

package routes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/models"
)

// PhotoMove puts a photo at another place among its animal's photos.
type PhotoMove struct {
	// The photo's new place: 0 is the cover; the others move up or down. A position past the last puts it last.
	Position *int `json:"position" example:"0" format:"int32" minimum:"0" validate:"required"`
} //	@name	PhotoMove

// Photos are what the photo routes need: the rows, the blobs and the decoder.
type Photos struct {
	Rows   *models.PhotoStore
	Media  media.Store
	Images *media.Processor
	// MediaURL starts the photos' URLs (PETSTORE_MEDIA_URL); empty: the service's own /media/.
	MediaURL string
}

// uploadTimeout bounds an upload's wait for its turn to decode, the decoding and the storing:
// under a burst of uploads the decoding budget makes them queue, longer than a request's
// database deadline allows.
const uploadTimeout = 60 * time.Second

func photoPath(petID, id int64) string {
	return petPath(petID) + "/photos/" + strconv.FormatInt(id, 10)
}

// photoUpload is an upload as its Idempotency-Key's fingerprint knows it: a retry sends the same
// bytes.
type photoUpload struct {
	PetID       int64  `json:"petId"`
	ContentType string `json:"contentType"`
	SHA256      string `json:"sha256"`
}

// isPhotoUpload reports whether the request is addPetPhoto's (or the admin pages' upload), whose
// body may be an image of up to media.MaxUploadBytes rather than MaxBodyBytes.
func isPhotoUpload(c *fiber.Ctx) bool {
	return c.Method() == fiber.MethodPost && (strings.HasPrefix(c.Path(), "/v1/pets/") || strings.HasPrefix(c.Path(), "/admin/pets/")) &&
		strings.HasSuffix(c.Path(), "/photos")
}

// addPetPhoto godoc
//
//	@Summary		Add a photo of an animal
//	@Description	The body is the image itself, JPEG, PNG or WebP, at most 10 MiB and 40 megapixels (read from the image's header before it is decoded). The service decodes it, applies its EXIF orientation, scales it to at most 2,048 pixels on its long side, makes a thumbnail of at most 400, and stores both without any metadata; JPEG and PNG keep their type, WebP becomes JPEG (PNG when it has transparency). The photo is added last among the animal's photos, at most 10; the first is the cover. A `201` means the image is stored. Safe to retry with an `Idempotency-Key`.
//	@ID				addPetPhoto
//	@Tags			animals
//	@Accept			image/jpeg,image/png,image/webp
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			petId			path		int		true	"Identifier of the animal"	Format(int64)	example(42)
//	@Param			Idempotency-Key	header		string	false	"Makes the request safe to retry: a retry with the same key and body within 24 hours returns the first response and adds nothing. 1 to 255 visible ASCII characters, such as a UUID, or the same in double quotes (the IETF draft's form; an empty quoted string is no key)."	minlength(1)	maxlength(257)
//	@Param			image			body		string	true	"The image: JPEG, PNG or WebP, at most 10 MiB"	format(binary)	maxlength(10485760)
//	@Success		201				{object}	models.PhotoResponse	"Photo added"
//	@Header			201				{string}	Location	"Absolute URL of the new photo (`/v1/pets/{petId}/photos/{photoId}`)"
//	@Header			201				{string}	ETag		"Strong entity tag of the photo"
//	@Header			201,404,409		{string}	Idempotent-Replayed	"true when this is the stored first response to an earlier request with the same Idempotency-Key"
//	@Failure		400				{object}	Error	"petId is not a 64-bit integer or a malformed Idempotency-Key (invalid_request); the body is not a decodable image of its Content-Type, or it is over 40 megapixels (validation_failed)"
//	@Failure		404				{object}	Error	"No animal has this id, or it was deleted (not_found)"
//	@Failure		409				{object}	Error	"The animal has 10 photos already, or a request with the same Idempotency-Key is still in progress (that answer carries Retry-After) (conflict)"
//	@Failure		413				{object}	Error	"Body larger than 10 MiB (payload_too_large)"
//	@Failure		415				{object}	Error	"Content-Type is not image/jpeg, image/png or image/webp, or the body is compressed (unsupported_media_type)"
//	@Failure		422				{object}	Error	"The Idempotency-Key was already used for a different request (idempotency_key_reused)"
//	@Router			/pets/{petId}/photos [post]
func addPetPhoto(p Photos, dbTimeout time.Duration, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		petID, err := pathID(c, "petId")
		if err != nil {
			return err
		}
		mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
		if _, ok := media.UploadTypes[mt]; err != nil || !ok {
			return &models.Error{Code: codeMediaType, Message: "Content-Type must be image/jpeg, image/png or image/webp"}
		}
		if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
			return &models.Error{Code: codeMediaType, Message: "Content-Encoding " + strconv.Quote(enc) + " is not supported: send the image as it is"}
		}
		body := c.Request().Body()
		if len(body) > media.MaxUploadBytes {
			return &models.Error{Code: codeTooLarge, Message: "the image is larger than 10 MiB"}
		}
		sum := sha256.Sum256(body)
		if replayed, err := claimIdempotency(c, photoUpload{PetID: petID, ContentType: mt, SHA256: hex.EncodeToString(sum[:])}); replayed || err != nil {
			return err
		}
		// Refused before the costly decoding when it would be refused after it.
		n, err := p.Rows.Count(c.UserContext(), petID)
		if err != nil {
			return err
		}
		if n >= models.MaxPhotos {
			return &models.Error{Code: models.EConflict, Field: "petId", Message: "pet " + strconv.FormatInt(petID, 10) +
				" has " + strconv.Itoa(models.MaxPhotos) + " photos already, the most it may have; delete one first"}
		}
		// The request's database deadline started when it arrived; the decoding and storing get
		// their own, and the transaction a fresh one after them.
		work := context.WithoutCancel(c.UserContext())
		img, err := p.store(work, body, mt)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(work, dbTimeout)
		defer cancel()
		respond := func(ph *models.Photo) (keptResponse, error) {
			body, err := models.EncodeJSON(ph.Response())
			return keptResponse{body: body, location: base.of(c) + photoPath(petID, ph.ID)}, err
		}
		ph, err := p.Rows.Add(ctx, petID, models.NewPhoto{Key: img.Full.Key, ThumbKey: img.Thumb.Key,
			ContentType: img.Full.ContentType, Width: img.Full.Width, Height: img.Full.Height},
			models.APIKeyActor(callerKeyID(c)), keepCreated(c, respond))
		if err != nil {
			return err
		}
		r, err := respond(ph)
		if err != nil {
			return err
		}
		return sendCreated(c, r)
	}
}

// store decodes and re-encodes an upload, then stores its image and thumbnail. Both blobs are
// stored before the row is written: a crash between the two leaves blobs that no row names
// (removed after a day), never a row without its image.
func (p Photos) store(ctx context.Context, body []byte, mt string) (media.Photo, error) {
	ctx, cancel := context.WithTimeout(ctx, uploadTimeout)
	defer cancel()
	img, err := p.Images.Process(ctx, body, mt)
	if err != nil {
		return img, err
	}
	for _, im := range []media.Image{img.Full, img.Thumb} {
		if err := p.Media.Put(ctx, im.Key, im.ContentType, im.Data); err != nil {
			return img, err
		}
	}
	return img, nil
}

// getPetPhoto godoc
//
//	@Summary		Get a photo of an animal
//	@Description	The photo's addresses, size and type. The image itself is at its `url`, which needs no key.
//	@ID				getPetPhoto
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@Param			petId			path		int			true	"Identifier of the animal"	Format(int64)	example(42)
//	@Param			photoId			path		int			true	"Identifier of the photo"	Format(int64)	example(7)
//	@Param			If-None-Match	header		string		false	"An ETag of an earlier answer: 304 when the photo is unchanged"	maxlength(1024)
//	@Success		200				{object}	models.PhotoResponse	"The photo"
//	@Success		304				"The photo is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag		"Strong entity tag of the photo"
//	@Failure		400				{object}	Error		"petId or photoId is not a 64-bit integer (invalid_request)"
//	@Failure		404				{object}	Error		"No animal has this id (or it was deleted), or it has no such photo (not_found)"
//	@Router			/pets/{petId}/photos/{photoId} [get]
func getPetPhoto(p Photos) fiber.Handler {
	return func(c *fiber.Ctx) error {
		petID, id, err := photoIDs(c)
		if err != nil {
			return err
		}
		ph, err := p.Rows.Get(c.UserContext(), petID, id)
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, ph.Response(), false)
	}
}

// updatePetPhoto godoc
//
//	@Summary		Move a photo of an animal
//	@Description	Puts the photo at `position` among the animal's photos (0 is the cover); the others move up or down to make room. A change of order is an update of the animal: `pet.updated`, with the earlier order in `previous.photos`.
//	@ID				updatePetPhoto
//	@Tags			animals
//	@Accept			json,application/merge-patch+json
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			petId		path		int			true	"Identifier of the animal"	Format(int64)	example(42)
//	@Param			photoId		path		int			true	"Identifier of the photo"	Format(int64)	example(7)
//	@Param			move		body		PhotoMove	true	"The photo's new place"
//	@Success		200			{object}	models.PhotoResponse	"The photo, at its new place"
//	@Header			200			{string}	ETag		"Strong entity tag of the photo"
//	@Failure		400			{object}	Error		"petId or photoId is not a 64-bit integer, malformed JSON or an unknown or repeated member (invalid_request); a missing, null or negative position (validation_failed)"
//	@Failure		404			{object}	Error		"No animal has this id (or it was deleted), or it has no such photo (not_found)"
//	@Failure		413			{object}	Error		"Body larger than 64 KiB (payload_too_large)"
//	@Failure		415			{object}	Error		"Content-Type is not application/json or application/merge-patch+json (in UTF-8), or the body is compressed (unsupported_media_type)"
//	@Router			/pets/{petId}/photos/{photoId} [patch]
func updatePetPhoto(p Photos) fiber.Handler {
	return func(c *fiber.Ctx) error {
		petID, id, err := photoIDs(c)
		if err != nil {
			return err
		}
		var req PhotoMove
		if err := decodeJSON(c, &req, mimeMergePatch); err != nil {
			return err
		}
		if req.Position == nil {
			return models.FieldError("position", "is required")
		}
		ph, err := p.Rows.Move(c.UserContext(), petID, id, *req.Position, models.APIKeyActor(callerKeyID(c)))
		if err != nil {
			return err
		}
		return sendJSON(c, fiber.StatusOK, ph.Response(), false)
	}
}

// deletePetPhoto godoc
//
//	@Summary		Remove a photo of an animal
//	@Description	Removes the photo from the animal; the photos after it move up (removing the cover makes the next photo the cover). The image's address may keep answering for a while, as caches hold it.
//	@ID				deletePetPhoto
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:write"
//	@Param			petId		path		int		true	"Identifier of the animal"	Format(int64)	example(42)
//	@Param			photoId		path		int		true	"Identifier of the photo"	Format(int64)	example(7)
//	@Success		204			"Removed"
//	@Failure		400			{object}	Error	"petId or photoId is not a 64-bit integer (invalid_request)"
//	@Failure		404			{object}	Error	"No animal has this id (or it was deleted), or it has no such photo (not_found)"
//	@Router			/pets/{petId}/photos/{photoId} [delete]
func deletePetPhoto(p Photos) fiber.Handler {
	return func(c *fiber.Ctx) error {
		petID, id, err := photoIDs(c)
		if err != nil {
			return err
		}
		if err := p.Rows.Delete(c.UserContext(), petID, id, models.APIKeyActor(callerKeyID(c))); err != nil {
			return err
		}
		c.Status(fiber.StatusNoContent)
		return nil
	}
}

func photoIDs(c *fiber.Ctx) (petID, id int64, err error) {
	if petID, err = pathID(c, "petId"); err != nil {
		return 0, 0, err
	}
	id, err = pathID(c, "photoId")
	return petID, id, err
}

// withMediaBase makes the request's photos answer absolute URLs: under mediaURL
// (PETSTORE_MEDIA_URL) when set, else under the service's own /media/.
func withMediaBase(mediaURL string, base publicBase) fiber.Handler {
	return func(c *fiber.Ctx) error {
		b := mediaURL + "/"
		if mediaURL == "" {
			b = base.of(c) + "/media/"
		}
		c.SetUserContext(models.WithMediaBase(c.UserContext(), b))
		return c.Next()
	}
}

package routes

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// photoViews are a pet's photos as its page shows them, from the service's own /media/ (the
// admin pages' content security policy allows images from the service alone).
func photoViews(photos []models.Photo) []views.PhotoView {
	out := make([]views.PhotoView, len(photos))
	for i, ph := range photos {
		out[i] = views.PhotoView{ID: ph.ID, Thumb: "/media/" + ph.ThumbKey, Full: "/media/" + ph.Key, Width: ph.Width, Height: ph.Height}
	}
	return out
}

// addPetPhotos uploads the photos chosen on a pet's page, in the order chosen, each through the
// API's own path (re-encoded, stored, then added).
func addPetPhotos(sessions adminSessions, photos Photos, dbTimeout time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		form, err := c.MultipartForm()
		if err != nil {
			return models.Errorf(models.EInvalid, "choose one or more photos to upload")
		}
		files := form.File["photos"]
		if len(files) == 0 {
			return models.FieldError("photos", "choose one or more photos to upload")
		}
		actor := models.StaffActor(currentStaff(c).Username)
		// As in the API's upload, the request's database deadline does not bound the decoding and
		// storing of several images: each photo's transaction gets a deadline of its own after them.
		work := context.WithoutCancel(c.UserContext())
		for n, fh := range files {
			mt := fh.Header.Get(fiber.HeaderContentType)
			if _, ok := media.UploadTypes[mt]; !ok {
				return &models.Error{Code: codeMediaType, Message: fh.Filename + ": not a JPEG, PNG or WebP image"}
			}
			if fh.Size > media.MaxUploadBytes {
				return &models.Error{Code: codeTooLarge, Message: fh.Filename + ": larger than 10 MiB"}
			}
			f, err := fh.Open()
			if err != nil {
				return err
			}
			body, err := io.ReadAll(io.LimitReader(f, media.MaxUploadBytes))
			_ = f.Close()
			if err != nil {
				return err
			}
			img, err := photos.store(work, body, mt)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(work, dbTimeout)
			_, err = photos.Rows.Add(ctx, id, models.NewPhoto{Key: img.Full.Key, ThumbKey: img.Thumb.Key, ContentType: img.Full.ContentType,
				Width: img.Full.Width, Height: img.Full.Height}, actor, nil)
			cancel()
			if err != nil {
				if n > 0 && formRefusal(err) {
					return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), strconv.Itoa(n)+" photos added; "+err.Error())
				}
				return err
			}
		}
		return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), strconv.Itoa(len(files))+" photos added.")
	}
}

// makeCover moves a photo to the front.
func makeCover(sessions adminSessions, photos Photos) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, photoID, err := adminPhotoIDs(c)
		if err != nil {
			return err
		}
		if _, err := photos.Rows.Move(c.UserContext(), id, photoID, 0, models.StaffActor(currentStaff(c).Username)); err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), "The cover photo is changed.")
	}
}

// deletePhoto removes a photo.
func deletePhoto(sessions adminSessions, photos Photos) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, photoID, err := adminPhotoIDs(c)
		if err != nil {
			return err
		}
		if err := photos.Rows.Delete(c.UserContext(), id, photoID, models.StaffActor(currentStaff(c).Username)); err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), "The photo is deleted.")
	}
}

func adminPhotoIDs(c *fiber.Ctx) (int64, int64, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return 0, 0, err
	}
	photoID, err := pathID(c, "photoId")
	return id, photoID, err
}

package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// formRefusal reports whether err is about what was typed, so the form is shown again with it,
// rather than failing the request.
func formRefusal(err error) bool {
	switch models.ErrorCode(err) {
	case models.EValidation, models.EInvalid, models.EConflict:
		return true
	}
	return false
}

// fieldMessage is the message shown beside one field for a refused form.
func fieldMessage(err error, field string) string {
	if msg := models.FieldMessages(err)[field]; msg != "" {
		return msg
	}
	return models.ErrorMessage(err)
}

// statusOf is the HTTP status the API answers for err.
func statusOf(err error) int {
	if s, ok := statusOfCode[models.ErrorCode(err)]; ok {
		return s
	}
	return fiber.StatusInternalServerError
}

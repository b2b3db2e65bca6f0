package routes

import (
	"context"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// suggest answers the suggestions of a field (views.Suggest with a Source) for what is typed,
// ?q=, as a JSON array of strings, from find (a store's Suggest, at most
// models.MaxSuggestions): the optional script puts them in the field's datalist. Each kind of
// object has its route under /admin/suggest/, behind the right that shows those objects.
func suggest(find func(ctx context.Context, q string) ([]string, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q, err := adminQuery(c).one("q")
		if err != nil {
			return err
		}
		if utf8.RuneCountInString(q) > models.MaxNameLength {
			return models.Errorf(models.EInvalid, "q: must be at most %d characters", models.MaxNameLength)
		}
		found, err := find(c.UserContext(), q)
		if err != nil {
			return err
		}
		return c.JSON(found)
	}
}

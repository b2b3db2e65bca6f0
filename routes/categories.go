package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Category groups animals.
type Category struct {
	// Unique identifier of the category.
	ID int64 `json:"id" example:"1" format:"int64" validate:"required"`
	// The category's name, unique.
	Name string `json:"name" example:"Dogs" minLength:"1" maxLength:"100" validate:"required"`
} //	@name	Category

// listCategories godoc
//
//	@Summary		List categories
//	@Description	Every category, in ascending id order: at most 1,000, so the list is not paginated. Staff manage categories in the admin pages.
//	@ID				listCategories
//	@Tags			animals
//	@Produce		json
//	@Security		BearerAuth
//	@x-required-scope	"pets:read"
//	@x-stability	"beta"
//	@x-max-items	1000
//	@Param			If-None-Match	header		string		false	"An ETag of an earlier answer: 304 when the list is unchanged"	maxlength(1024)
//	@Success		200				{array}		Category	"All categories"
//	@Success		304				"The list is unchanged since the ETag given in If-None-Match"
//	@Header			200,304			{string}	ETag		"Weak entity tag of the list, for If-None-Match"
//	@Router			/categories [get]
func listCategories(cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		list, err := cats.List(c.UserContext())
		if err != nil {
			return err
		}
		out := make([]Category, len(list))
		for i, cat := range list {
			out[i] = Category{ID: cat.ID, Name: cat.Name}
		}
		return sendJSON(c, fiber.StatusOK, out, true)
	}
}

package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// categoryRows lists every category with its number of pets (estimated in a large catalogue).
func categoryRows(c *fiber.Ctx, pets *models.PetStore, categories *models.CategoryStore) ([]views.CategoryRow, error) {
	cats, err := categories.List(c.UserContext())
	if err != nil {
		return nil, err
	}
	counts, exact, err := pets.CategoryTotals(c.UserContext())
	if err != nil {
		return nil, err
	}
	rows := make([]views.CategoryRow, len(cats))
	for i, cat := range cats {
		rows[i] = views.CategoryRow{ID: cat.ID, Name: cat.Name, Pets: counts[cat.ID], PetsAbout: !exact}
	}
	return rows, nil
}

func renderCategories(c *fiber.Ctx, props views.CategoriesProps) error {
	props.Max = models.MaxCategories
	return render(c, views.Categories(page(c, "Categories", views.SectionCategories), props))
}

// adminListCategories is the categories page.
func adminListCategories(pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		rows, err := categoryRows(c, pets, cats)
		if err != nil {
			return err
		}
		return renderCategories(c, views.CategoriesProps{Rows: rows})
	}
}

// createCategory adds a category; a refused name comes back beside the field, as typed.
func createCategory(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		name := c.FormValue("name")
		cat, err := cats.Create(c.UserContext(), name)
		if err == nil {
			return sessions.redirectWithFlash(c, "/admin/categories", "Added the category "+cat.Name+".")
		}
		if !formRefusal(err) {
			return err
		}
		rows, rerr := categoryRows(c, pets, cats)
		if rerr != nil {
			return rerr
		}
		c.Status(statusOf(err))
		return renderCategories(c, views.CategoriesProps{Rows: rows, NewName: name, AddError: fieldMessage(err, "name")})
	}
}

// renameCategory renames one category; a refused name comes back in its row, as typed.
func renameCategory(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		name := c.FormValue("name")
		cat, err := cats.Rename(c.UserContext(), id, name)
		if err == nil {
			return sessions.redirectWithFlash(c, "/admin/categories", "Renamed the category to "+cat.Name+".")
		}
		if !formRefusal(err) {
			return err
		}
		rows, rerr := categoryRows(c, pets, cats)
		if rerr != nil {
			return rerr
		}
		for i := range rows {
			if rows[i].ID == id {
				rows[i].Rename, rows[i].RenameError = name, fieldMessage(err, "name")
			}
		}
		c.Status(statusOf(err))
		return renderCategories(c, views.CategoriesProps{Rows: rows})
	}
}

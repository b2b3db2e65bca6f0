package routes

import (
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// maxBulkPets bounds one bulk action: the pets ticked on a page, or all that match the table's
// filters ("select all"), one by one in a request's time.
const maxBulkPets = 1000

// bulkPets sets the status of, or deletes, the pets ticked in the pets table. The first post
// shows what will be done to how many pets; the confirmed one does it, pet by pet, each in its
// own transaction with its own rules and audit entry, and lists what was refused and why.
func bulkPets(pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		back := petsBack(c)
		if back == "" {
			back = "/admin/pets"
		}
		action := c.FormValue("action")
		if action != views.BulkDelete {
			if _, err := models.ParsePetStatus("action", action); err != nil {
				return models.Errorf(models.EInvalid, "action: must be one of available, pending, sold or %s", views.BulkDelete)
			}
		}
		ids, err := checkedIDs(c, maxBulkPets, "pets")
		if err != nil {
			return err
		}
		ctx := c.UserContext()
		if c.FormValue("all") == "yes" && c.FormValue("confirm") != "yes" {
			if ids, err = matchingPets(c, pets, cats, back); err != nil {
				return err
			}
		}
		b := views.BulkProps{Action: action, Back: back}
		for _, id := range ids {
			p, err := pets.Get(ctx, id)
			if models.ErrorCode(err) == models.ENotFound {
				// Deleted or gone since the list was read: nothing to do to it.
				continue
			}
			if err != nil {
				return err
			}
			b.Pets = append(b.Pets, petRow(p, nil))
		}
		if len(b.Pets) == 0 {
			c.Status(fiber.StatusBadRequest)
			return render(c, views.BulkNothing(page(c, "No pets selected", views.SectionPets), back))
		}
		if c.FormValue("confirm") != "yes" {
			return render(c, views.BulkConfirm(page(c, "Confirm a bulk change", views.SectionPets), b))
		}
		actor := models.StaffActor(currentStaff(c).Username)
		for _, r := range b.Pets {
			var err error
			if action == views.BulkDelete {
				err = pets.Delete(ctx, r.ID, actor, nil)
			} else if r.Status == action {
				b.Unchanged++
				continue
			} else {
				_, err = pets.SetStatus(ctx, r.ID, models.PetStatus(action), actor)
			}
			switch code := models.ErrorCode(err); {
			case err == nil:
				b.Changed++
			case code == models.EConflict || code == models.ENotFound:
				why, werr := refusal(c, orders, r, action, err)
				if werr != nil {
					return werr
				}
				b.Refusals = append(b.Refusals, why)
			default:
				return err
			}
		}
		return render(c, views.BulkDone(page(c, "Bulk change", views.SectionPets), b))
	}
}

// matchingPets are the ids of every pet the list at back shows, on all its pages: "select all"
// acts on the list's filters, not on the ticked boxes.
func matchingPets(c *fiber.Ctx, pets *models.PetStore, cats *models.CategoryStore, back string) ([]int64, error) {
	u, err := url.Parse(back)
	if err != nil {
		return nil, invalidParam(err)
	}
	q := u.Query()
	_, filter, err := petFilter(c.UserContext(), cats, func(name string) (string, error) { return q.Get(name), nil }, nil)
	if err != nil {
		return nil, err
	}
	if filter.Deleted {
		return nil, models.Errorf(models.EInvalid, "all: deleted pets take no bulk action; restore them one by one")
	}
	list, err := pets.List(c.UserContext(), filter, models.Page{Limit: maxBulkPets + 1})
	if err != nil {
		return nil, err
	}
	if len(list.Items) > maxBulkPets {
		return nil, models.Errorf(models.EInvalid, "all: more than %d pets match; narrow the filters first", maxBulkPets)
	}
	ids := make([]int64, len(list.Items))
	for i := range list.Items {
		ids[i] = list.Items[i].ID
	}
	return ids, nil
}

// refusal says why the action was refused for a pet, naming the order that holds it, if any
// (the page puts a space either side of the order's link).
func refusal(c *fiber.Ctx, orders *models.OrderStore, r views.PetRow, action string, err error) (views.BulkRefusal, error) {
	out := views.BulkRefusal{PetID: r.ID, PetName: r.Name}
	verb := "was not set to " + action
	if action == views.BulkDelete {
		verb = "was not deleted"
	}
	if models.ErrorCode(err) == models.ENotFound {
		out.Before = verb + ": it is no longer in the catalogue."
		return out, nil
	}
	petOrders, err := orders.ListForPet(c.UserContext(), r.ID)
	if err != nil {
		return out, err
	}
	h := models.HoldingOrder(petOrders)
	if h == nil {
		out.Before = verb + ": an order holds it."
		return out, nil
	}
	out.OrderID = h.ID
	switch {
	case h.Status == models.OrderDelivered:
		out.Before, out.After = verb+": it was sold through", "and stays sold."
	case action == views.BulkDelete:
		out.Before, out.After = verb+":", "("+string(h.Status)+") holds it. Cancel or deliver that order first."
	default:
		out.Before, out.After = verb+":", "("+string(h.Status)+") holds it; "+views.OrderMoves(string(h.Status))+" that order to move it on."
	}
	return out, nil
}

package routes

import (
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// maxBulkPets bounds one bulk action: the pets ticked on a page of the table, with room to spare.
const maxBulkPets = 100

// bulkPets sets the status of, or deletes, the pets ticked in the pets table. The first post
// shows what will be done to how many pets; the confirmed one does it, pet by pet, each in its
// own transaction with its own rules and audit entry, and lists what was refused and why.
func (a *admin) bulkPets(c *fiber.Ctx) error {
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
	var ids []int64
	for _, v := range c.Request().PostArgs().PeekMulti("id") {
		id, err := parseID("id", string(v))
		if err != nil {
			return invalidParam(err)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxBulkPets {
		return models.Errorf(models.EInvalid, "id: at most %d pets at once, got %d", maxBulkPets, len(ids))
	}
	ctx := c.UserContext()
	b := views.BulkProps{Action: action, Back: back}
	for _, id := range ids {
		p, err := a.pets.Get(ctx, id)
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
			err = a.pets.Delete(ctx, r.ID, actor, nil)
		} else if r.Status == action {
			b.Unchanged++
			continue
		} else {
			_, err = a.pets.SetStatus(ctx, r.ID, models.PetStatus(action), actor)
		}
		switch code := models.ErrorCode(err); {
		case err == nil:
			b.Changed++
		case code == models.EConflict || code == models.ENotFound:
			why, werr := a.refusal(c, r, action, err)
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

// refusal says, in a sentence, why the action was refused for a pet.
func (a *admin) refusal(c *fiber.Ctx, r views.PetRow, action string, err error) (string, error) {
	pet := r.Name + " (#" + strconv.FormatInt(r.ID, 10) + ")"
	verb := "was not set to " + action
	if action == views.BulkDelete {
		verb = "was not deleted"
	}
	if models.ErrorCode(err) == models.ENotFound {
		return pet + " " + verb + ": it is no longer in the catalogue.", nil
	}
	orders, err := a.orders.ListForPet(c.UserContext(), r.ID)
	if err != nil {
		return "", err
	}
	h := models.HoldingOrder(orders)
	switch {
	case h == nil:
		return pet + " " + verb + ": an order holds it.", nil
	case h.Status == models.OrderDelivered:
		return pet + " " + verb + ": it was sold through order #" + strconv.FormatInt(h.ID, 10) + ", so it stays sold.", nil
	case action == views.BulkDelete:
		return pet + " " + verb + ": order #" + strconv.FormatInt(h.ID, 10) + " (" + string(h.Status) + ") holds it. Cancel or deliver that order first.", nil
	}
	return pet + " " + verb + ": order #" + strconv.FormatInt(h.ID, 10) + " (" + string(h.Status) + ") holds it; approve, deliver or cancel that order to move it on.", nil
}

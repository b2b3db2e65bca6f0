package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

func (a *admin) renderStaff(c *fiber.Ctx, props views.StaffProps) error {
	list, err := a.staff.List(c.UserContext())
	if err != nil {
		return err
	}
	me := currentStaff(c)
	props.Rows = make([]views.StaffRow, len(list))
	for i, st := range list {
		props.Rows[i] = views.StaffRow{ID: st.ID, Username: st.Username, Role: string(st.Role), Disabled: !st.Active(),
			LastLoginAt: st.LastLoginAt, CreatedAt: st.CreatedAt, Self: st.ID == me.ID}
	}
	return render(c, views.StaffPage(page(c, "Staff", views.SectionStaff), props))
}

// listStaff is the staff page.
func (a *admin) listStaff(c *fiber.Ctx) error {
	return a.renderStaff(c, views.StaffProps{Role: string(models.RoleStaff)})
}

// createStaff adds an account; a refused form comes back with what was typed (never the
// password) and each message beside its field.
func (a *admin) createStaff(c *fiber.Ctx) error {
	props := views.StaffProps{Username: c.FormValue("username"), Role: c.FormValue("role")}
	st, err := a.staff.Create(c.UserContext(), models.NewStaff{Username: props.Username, Password: c.FormValue("password"), Role: props.Role})
	if err == nil {
		return a.redirectWithFlash(c, "/admin/staff", "Added "+string(st.Role)+" "+st.Username+".")
	}
	if !formRefusal(err) {
		return err
	}
	props.Errors = models.FieldMessages(err)
	c.Status(statusOf(err))
	return a.renderStaff(c, props)
}

// setStaffDisabled disables or enables an account; the store refuses to lock out the last
// admin or the person asking.
func (a *admin) setStaffDisabled(disabled bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		st, err := a.staff.SetDisabled(c.UserContext(), id, disabled, currentStaff(c).ID)
		if err != nil {
			return err
		}
		verb := "Enabled "
		if disabled {
			verb = "Disabled "
		}
		return a.redirectWithFlash(c, "/admin/staff", verb+st.Username+".")
	}
}

package routes

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// sessNewPassword carries a reset's one-time password to the one page that shows it, as
// sessNewKey does a new key.
const sessNewPassword = "new_password"

func staffRow(st *models.Staff, me *models.Staff) views.StaffRow {
	return views.StaffRow{ID: st.ID, Username: st.Username, Role: string(st.Role), Disabled: !st.Active(),
		LastLoginAt: st.LastLoginAt, CreatedAt: st.CreatedAt, Self: st.ID == me.ID,
		PasswordChangedAt: st.PasswordChangedAt, MustChange: st.MustChangePassword}
}

func renderStaff(c *fiber.Ctx, staff *models.StaffStore, props views.StaffProps) error {
	list, err := staff.List(c.UserContext())
	if err != nil {
		return err
	}
	me := currentStaff(c)
	props.Rows = make([]views.StaffRow, len(list))
	for i := range list {
		props.Rows[i] = staffRow(&list[i], me)
	}
	return render(c, views.StaffPage(page(c, "Staff", views.SectionStaff), props))
}

// showStaff is one account's page; right after a reset it shows the one-time password, once.
func showStaff(sessions adminSessions, staff *models.StaffStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		st, err := staff.Get(c.UserContext(), id)
		if err != nil {
			return err
		}
		sess, err := sessions.store.Get(c)
		if err != nil {
			return err
		}
		d := views.StaffDetailProps{Staff: staffRow(st, currentStaff(c)),
			ActorURL: "/admin/audit?actor=" + url.QueryEscape(models.StaffActor(st.Username))}
		if v, _ := sess.Get(sessNewPassword).(string); strings.HasPrefix(v, strconv.FormatInt(id, 10)+":") {
			d.OneTimePassword = strings.TrimPrefix(v, strconv.FormatInt(id, 10)+":")
			sess.Delete(sessNewPassword)
			if err := sess.Save(); err != nil {
				return err
			}
		}
		if d.Audit, d.AuditURL, err = trail.objectAudit(c, models.ObjectStaff, id); err != nil {
			return err
		}
		return render(c, views.StaffDetail(page(c, st.Username, views.SectionStaff), d))
	}
}

// resetPassword gives another account a one-time password and shows it once, on its page.
func resetPassword(sessions adminSessions, staff *models.StaffStore, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		st, password, err := staff.ResetPassword(c.UserContext(), id, currentStaff(c).ID)
		if err != nil {
			return err
		}
		sess, err := sessions.store.Get(c)
		if err != nil {
			return err
		}
		sess.Set(sessNewPassword, strconv.FormatInt(id, 10)+":"+password)
		sess.Set(sessFlash, "Reset the password of "+st.Username+".")
		if err := sess.Save(); err != nil {
			return err
		}
		log.Info("staff password reset", "request_id", requestID(c), "username", st.Username, "by", currentStaff(c).Username)
		return c.Redirect("/admin/staff/"+strconv.FormatInt(id, 10), fiber.StatusSeeOther)
	}
}

// listStaff is the staff page.
func listStaff(staff *models.StaffStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		return renderStaff(c, staff, views.StaffProps{Role: string(models.RoleStaff)})
	}
}

// createStaff adds an account; a refused form comes back with what was typed (never the
// password) and each message beside its field.
func createStaff(sessions adminSessions, staff *models.StaffStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		props := views.StaffProps{Username: c.FormValue("username"), Role: c.FormValue("role")}
		st, err := staff.Create(c.UserContext(), models.NewStaff{Username: props.Username, Password: c.FormValue("password"), Role: props.Role})
		if err == nil {
			return sessions.redirectWithFlash(c, "/admin/staff", "Added "+string(st.Role)+" "+st.Username+".")
		}
		if !formRefusal(err) {
			return err
		}
		props.Errors = models.FieldMessages(err)
		c.Status(statusOf(err))
		return renderStaff(c, staff, props)
	}
}

// setStaffDisabled disables or enables an account; the store refuses to lock out the last
// admin or the person asking.
func setStaffDisabled(sessions adminSessions, staff *models.StaffStore, disabled bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		st, err := staff.SetDisabled(c.UserContext(), id, disabled, currentStaff(c).ID)
		if err != nil {
			return err
		}
		verb := "Enabled "
		if disabled {
			verb = "Disabled "
		}
		return sessions.redirectWithFlash(c, "/admin/staff", verb+st.Username+".")
	}
}

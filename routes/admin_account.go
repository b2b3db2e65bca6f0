package routes

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

func renderAccount(c *fiber.Ctx, props views.AccountProps) error {
	me := currentStaff(c)
	props.Username, props.Role, props.PasswordChangedAt, props.MustChange = me.Username, string(me.Role), me.PasswordChangedAt, me.MustChangePassword
	return render(c, views.Account(page(c, "Your account", views.SectionAccount), props))
}

// account is the signed-in staff member's own page.
func account(c *fiber.Ctx) error {
	return renderAccount(c, views.AccountProps{})
}

// changePassword replaces the signed-in staff member's password. The current password is checked
// as a login checks it: counted first against the same budgets (a wrong one uses up the
// account's attempts from this address, as a failed login does) and in the same slots. On
// success the session starts afresh under a new id, and the account's other sessions end.
func changePassword(sessions adminSessions, staff *models.StaffStore, logins *loginGuard, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		me := currentStaff(c)
		password := c.FormValue("password")
		if password != c.FormValue("repeat") {
			c.Status(fiber.StatusBadRequest)
			return renderAccount(c, views.AccountProps{Errors: views.FormErrors{"repeat": "must be the same as the new password"}})
		}
		ctx, try := c.UserContext(), newLoginTry(me.Username, c.IP())
		release, last, refused, err := logins.admit(ctx, try)
		if err != nil {
			return err
		}
		if refused != nil {
			log.Warn("password change refused", "request_id", requestID(c), "username", me.Username, "ip", c.IP(), "status", refused.status, "wait", refused.wait.String())
			return renderAccount(c, views.AccountProps{Error: refuse(c, refused)})
		}
		st, err := func() (*models.Staff, error) {
			defer release()
			return staff.ChangePassword(ctx, me.ID, c.FormValue("current"), password)
		}()
		if err != nil && !formRefusal(err) {
			return err
		}
		if err == models.ErrWrongPassword {
			log.Warn("password change with a wrong current password", "request_id", requestID(c), "username", me.Username, "ip", c.IP())
			if last {
				if err := logins.lockedOut(c, staff, log, try); err != nil {
					return err
				}
			}
		} else if err := logins.succeeded(ctx, try); err != nil {
			// The current password was right, whatever is wrong with the new one.
			return err
		}
		if err != nil {
			c.Status(statusOf(err))
			return renderAccount(c, views.AccountProps{Errors: models.FieldMessages(err)})
		}
		if err := sessions.startSession(c, st, "Your password has been changed. Other browsers signed in as "+st.Username+" have been signed out."); err != nil {
			return err
		}
		log.Info("staff password changed", "request_id", requestID(c), "username", st.Username, "ip", c.IP())
		return c.Redirect("/admin/account", fiber.StatusSeeOther)
	}
}

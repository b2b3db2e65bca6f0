package routes

import (
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

func (a *admin) renderAccount(c *fiber.Ctx, props views.AccountProps) error {
	me := currentStaff(c)
	props.Username, props.Role, props.PasswordChangedAt, props.MustChange = me.Username, string(me.Role), me.PasswordChangedAt, me.MustChangePassword
	return render(c, views.Account(page(c, "Your account", views.SectionAccount), props))
}

// account is the signed-in staff member's own page.
func (a *admin) account(c *fiber.Ctx) error {
	return a.renderAccount(c, views.AccountProps{})
}

// changePassword replaces the signed-in staff member's password. The current password is checked
// as a login checks it, and wrong guesses count toward the same throttle; on success the session
// starts afresh under a new id, and the account's other sessions end.
func (a *admin) changePassword(c *fiber.Ctx) error {
	me := currentStaff(c)
	keys := loginKeys(me.Username, c.IP())
	if wait := a.throttle.wait(keys); wait > 0 {
		a.log.Warn("password change throttled", "request_id", requestID(c), "username", me.Username, "ip", c.IP(), "wait", wait.Round(time.Second).String())
		c.Set(fiber.HeaderRetryAfter, fmt.Sprint(int((wait+time.Second-1)/time.Second)))
		c.Status(fiber.StatusTooManyRequests)
		return a.renderAccount(c, views.AccountProps{Error: fmt.Sprintf("Too many wrong passwords for this account or from this address. Try again in %s.", roundWait(wait))})
	}
	password := c.FormValue("password")
	if password != c.FormValue("repeat") {
		c.Status(fiber.StatusBadRequest)
		return a.renderAccount(c, views.AccountProps{Errors: views.FormErrors{"repeat": "must be the same as the new password"}})
	}
	st, err := a.staff.ChangePassword(c.UserContext(), me.ID, c.FormValue("current"), password)
	if err == models.ErrWrongPassword {
		a.log.Warn("password change with a wrong current password", "request_id", requestID(c), "username", me.Username, "ip", c.IP())
		if err := a.throttle.fail(keys); err != nil {
			return err
		}
	}
	if err != nil {
		if !formRefusal(err) {
			return err
		}
		c.Status(statusOf(err))
		return a.renderAccount(c, views.AccountProps{Errors: models.FieldMessages(err)})
	}
	if err := a.throttle.succeed(keys); err != nil {
		return err
	}
	if err := a.startSession(c, st, "Your password has been changed. Other browsers signed in as "+st.Username+" have been signed out."); err != nil {
		return err
	}
	a.log.Info("staff password changed", "request_id", requestID(c), "username", st.Username, "ip", c.IP())
	return c.Redirect("/admin/account", fiber.StatusSeeOther)
}

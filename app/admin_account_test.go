package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"golang.org/x/crypto/bcrypt"
)

// loginStatus tries a password in a fresh browser and returns the answer's status.
func loginStatus(t *testing.T, s *apptest.Server, username, password string) int {
	t.Helper()
	b := s.NewBrowser(t)
	b.Get(t, "/admin/login")
	return b.Post(t, "/admin/login", url.Values{"username": {username}, "password": {password}}).StatusCode
}

func TestStaffChangeTheirOwnPasswordWithTheCurrentOne(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		home := b.Login(t, "sam", staffPassword)
		if href := home.TestID("account-link").AttrOr("href", ""); href != "/admin/account" {
			t.Fatalf("the signed-in name links to %q, want the account page", href)
		}
		elsewhere := s.NewBrowser(t)
		elsewhere.Login(t, "sam", staffPassword)
		account := b.Get(t, "/admin/account")
		wantStatus(t, account, http.StatusOK)
		if account.TestID("change-password").Find(`input[type="password"]`).Length() != 3 {
			t.Fatal("the account page has no form with the current password and the new one twice")
		}

		const newPassword = "the clerk's new password"
		for _, tc := range []struct {
			name        string
			form        url.Values
			status      int
			field, says string
		}{
			{"wrong current password", url.Values{"current": {"not my password"}, "password": {newPassword}, "repeat": {newPassword}}, 400, "current", "That is not your current password."},
			{"repeat differs", url.Values{"current": {staffPassword}, "password": {newPassword}, "repeat": {newPassword + "!"}}, 400, "repeat", "must be the same as the new password"},
			{"too short", url.Values{"current": {staffPassword}, "password": {"short"}, "repeat": {"short"}}, 400, "password", "at least 12 characters"},
			{"unchanged", url.Values{"current": {staffPassword}, "password": {staffPassword}, "repeat": {staffPassword}}, 400, "password", "must differ from your current password"},
		} {
			p := b.Post(t, "/admin/account/password", tc.form)
			if p.StatusCode != tc.status || !strings.Contains(p.Text("error-"+tc.field), tc.says) {
				t.Fatalf("%s: %d, beside %s %q; want %d and %q", tc.name, p.StatusCode, tc.field, p.Text("error-"+tc.field), tc.status, tc.says)
			}
			if v := p.Doc.Find(`input[type="password"][value!=""]`).Length(); v != 0 {
				t.Fatalf("%s: the refused form shows a password again", tc.name)
			}
		}
		// The form needs its CSRF token, as every form does.
		form := url.Values{"current": {staffPassword}, "password": {newPassword}, "repeat": {newPassword}}
		form.Set("_csrf", "forged")
		wantStatus(t, b.Post(t, "/admin/account/password", form), http.StatusForbidden)
		form.Del("_csrf")

		before := b.Cookie("petstore_session")
		p := b.Post(t, "/admin/account/password", form)
		wantStatus(t, p, http.StatusSeeOther)
		if after := b.Cookie("petstore_session"); after == "" || after == before {
			t.Fatalf("session id after the change %q, want a new one", after)
		}
		if flash := b.Follow(t, p).Text("flash"); !strings.HasPrefix(flash, "Your password has been changed.") {
			t.Fatalf("flash %q", flash)
		}
		// This browser stays signed in; the other one is signed out; only the new password works.
		wantStatus(t, b.Get(t, "/admin/pets"), http.StatusOK)
		wantStatus(t, elsewhere.Get(t, "/admin/pets"), http.StatusSeeOther)
		if got := loginStatus(t, s, "sam", staffPassword); got != http.StatusUnauthorized {
			t.Fatalf("the old password: %d, want 401", got)
		}
		if got := loginStatus(t, s, "sam", newPassword); got != http.StatusSeeOther {
			t.Fatalf("the new password: %d, want 303", got)
		}
		var st models.Staff
		// A bcrypt hash of the new password, never the password itself. (Looking for "new" in the
		// hash failed once in a few thousand runs: bcrypt's random salt can spell it.)
		if err := s.DB.Where("username = ?", "sam").Take(&st).Error; err != nil || strings.Contains(st.PasswordHash, newPassword) ||
			bcrypt.CompareHashAndPassword([]byte(st.PasswordHash), []byte(newPassword)) != nil {
			t.Fatalf("stored as %q (%v), want a bcrypt hash of the new password", st.PasswordHash, err)
		}
	})
}

func TestWrongCurrentPasswordsAreSlowedDownLikeFailedLogins(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	b := s.NewBrowser(t)
	b.Login(t, "sam", staffPassword)
	b.Get(t, "/admin/account")
	for i := range 5 {
		p := b.Post(t, "/admin/account/password", url.Values{"current": {fmt.Sprintf("guess number %d", i)}, "password": {"a new password 1"}, "repeat": {"a new password 1"}})
		wantStatus(t, p, http.StatusBadRequest)
	}
	// Even the right one waits now, and the count is the login form's own.
	p := b.Post(t, "/admin/account/password", url.Values{"current": {staffPassword}, "password": {"a new password 1"}, "repeat": {"a new password 1"}})
	wantStatus(t, p, http.StatusTooManyRequests)
	if !strings.Contains(p.Text("form-error"), "Try again in 15 minutes") || p.Header.Get("Retry-After") != "900" {
		t.Fatalf("throttled change says %q, Retry-After %q", p.Text("form-error"), p.Header.Get("Retry-After"))
	}
	if got := loginStatus(t, s, "sam", staffPassword); got != http.StatusTooManyRequests {
		t.Fatalf("a login after five wrong current passwords: %d, want 429", got)
	}
}

func TestAnAdminResetsAPasswordShownOnceAndChangedAtTheNextLogin(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		samID := staffID(t, s, "sam")
		sam := s.NewBrowser(t)
		sam.Login(t, "sam", staffPassword)
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)

		page := ada.Get(t, "/admin/staff/"+itoa(samID))
		wantStatus(t, page, http.StatusOK)
		if page.TestID("reset-password").Length() != 1 {
			t.Fatal("sam's page offers no password reset")
		}
		p := ada.Post(t, "/admin/staff/"+itoa(samID)+"/password", nil)
		wantStatus(t, p, http.StatusSeeOther)
		shown := ada.Follow(t, p)
		oneTime := shown.Text("secret")
		if len(oneTime) < 20 || shown.Text("flash") != "Reset the password of sam." {
			t.Fatalf("the reset shows %q, flash %q", oneTime, shown.Text("flash"))
		}
		if again := ada.Get(t, "/admin/staff/"+itoa(samID)); again.TestID("secret").Length() != 0 {
			t.Fatal("the one-time password was shown a second time")
		}
		// Sam's session has ended, and the old password no longer works.
		wantStatus(t, sam.Get(t, "/admin"), http.StatusSeeOther)
		if got := loginStatus(t, s, "sam", staffPassword); got != http.StatusUnauthorized {
			t.Fatalf("the old password after a reset: %d", got)
		}

		// The one-time password opens only the page that replaces it.
		sam = s.NewBrowser(t)
		sam.Login(t, "sam", oneTime)
		for _, path := range []string{"/admin", "/admin/pets", "/admin/orders/1"} {
			p := sam.Get(t, path)
			if p.StatusCode != http.StatusSeeOther || p.Location() != "/admin/account" {
				t.Fatalf("GET %s with a one-time password: %d to %q, want the account page", path, p.StatusCode, p.Location())
			}
		}
		account := sam.Get(t, "/admin/account")
		if account.TestID("must-change").Length() != 1 {
			t.Fatal("the account page does not say the password must change")
		}
		p = sam.Post(t, "/admin/account/password", url.Values{"current": {oneTime}, "password": {"the clerk's own password"}, "repeat": {"the clerk's own password"}})
		wantStatus(t, p, http.StatusSeeOther)
		wantStatus(t, sam.Get(t, "/admin/pets"), http.StatusOK)

		// Admins change their own password on their account page; staff reset nobody's.
		if p := ada.Post(t, "/admin/staff/"+itoa(staffID(t, s, "ada"))+"/password", nil); p.StatusCode != http.StatusConflict {
			t.Fatalf("an admin resetting their own password: %d, want 409", p.StatusCode)
		}
		sam.Get(t, "/admin/pets")
		wantStatus(t, sam.Post(t, "/admin/staff/"+itoa(staffID(t, s, "ada"))+"/password", nil), http.StatusForbidden)

		// The log says who did what, and never what the passwords were. (Between the changes it
		// has sam's logins.)
		all := auditEntries(ada.Get(t, "/admin/audit?object=staff&id="+itoa(samID)))
		var entries []auditEntry
		for _, e := range all {
			if e.action != "signed in" && e.action != "failed to sign in" {
				entries = append(entries, e)
			}
		}
		if len(entries) < 2 || entries[0].actor != "sam" || entries[0].action != "changed the password" ||
			entries[1].actor != "ada" || entries[1].action != "reset the password" || !strings.Contains(entries[1].changes, "Must change password no → yes") {
			t.Fatalf("sam's entries: %+v", entries)
		}
		if strings.Contains(fmt.Sprint(all), oneTime) {
			t.Fatal("the audit log shows the one-time password")
		}
	})
}

func TestStaffSetPasswordOnTheCommandLineEndsTheAccountsSessions(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		// The command line hashes at bcrypt's own cost, which under the race detector on a busy
		// machine can outlast a request's database deadline (5 s) when the login checks it.
		cfg := apptest.Config(t, store)
		cfg.DBTimeout = time.Minute
		s := apptest.New(t, cfg)
		s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
		env := map[string]string{"DATABASE_URL": s.Cfg.DatabaseURL, "PETSTORE_DB_PATH": s.Cfg.DBPath}
		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)
		out, stderr, err := runWithStdin(t, env, "the admin's recovered password\n", "staff", "set-password", "--username", "ADA", "--password-stdin")
		if err != nil || !strings.Contains(out, `set the password of admin "ada"`) {
			t.Fatalf("staff set-password: %v\nstdout %s\nstderr %s", err, out, stderr)
		}
		wantStatus(t, b.Get(t, "/admin"), http.StatusSeeOther)
		if got := loginStatus(t, s, "ada", adminPassword); got != http.StatusUnauthorized {
			t.Fatalf("the old password: %d", got)
		}
		if got := loginStatus(t, s, "ada", "the admin's recovered password"); got != http.StatusSeeOther {
			t.Fatalf("the new password: %d", got)
		}
		var e models.AuditEntry
		if err := s.DB.Where("action = ?", models.AuditSetPassword).Take(&e).Error; err != nil || e.Actor != models.ActorCLI || e.ObjectName != "ada" {
			t.Fatalf("audit entry %+v (%v), want ada's password set by the command line", e, err)
		}
		for _, tc := range []struct {
			name, stdin string
			args        []string
			mentions    string
		}{
			{"unknown account", "a long enough password\n", []string{"--username", "nobody", "--password-stdin"}, `no staff account named "nobody"`},
			{"short password", "short\n", []string{"--username", "ada", "--password-stdin"}, "at least 12"},
			{"password not from stdin", "", []string{"--username", "ada"}, "--password-stdin"},
			{"a role", "a long enough password\n", []string{"--username", "ada", "--password-stdin", "--role", "admin"}, "--role is for create only"},
		} {
			_, _, err := runWithStdin(t, env, tc.stdin, append([]string{"staff", "set-password"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.mentions)
			}
		}
		if _, err := models.NewStaffStore(s.DB).Authenticate(context.Background(), "ada", "the admin's recovered password", "192.0.2.1"); err != nil {
			t.Fatalf("refused commands changed the password: %v", err)
		}
	})
}

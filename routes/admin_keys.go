package routes

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/ratelimit"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// sessNewKey carries a key's plain text from the form that issued it to the one page that shows
// it, so reloading that page cannot issue a second key.
const sessNewKey = "new_key"

// keyViews are what the pages of keys and clients show keys with: the keys, their clients'
// names, today's usage from the limiter, and the clock that says which have expired.
type keyViews struct {
	keys    *models.APIKeyStore
	clients *models.ClientStore
	limiter ratelimit.Limiter
	now     func() time.Time
}

// row is a key as the pages show it, with its client's name and its usage of the current
// windows.
func (kv keyViews) row(c *fiber.Ctx, k *models.APIKey, clientName string) (views.KeyRow, error) {
	u, err := kv.limiter.Usage(c.UserContext(), ratelimit.KeyClient(k.ID))
	if err != nil {
		return views.KeyRow{}, err
	}
	l := k.Limits()
	return views.KeyRow{ID: k.ID, Name: k.Name, Prefix: k.Prefix, ClientID: k.ClientID, ClientName: clientName,
		Scopes: k.Scopes.Strings(), Plan: string(k.Plan), PerMinute: l.PerMinute, PerDay: l.PerDay,
		State: k.State(kv.now()), UsedToday: u.Day, UsedMinute: u.Minute, LastUsedAt: k.LastUsedAt, CreatedAt: k.CreatedAt,
		ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, BannedUntil: k.BannedUntil}, nil
}

// rows are keys as the pages show them.
func (kv keyViews) rows(c *fiber.Ctx, keys []models.APIKey) ([]views.KeyRow, error) {
	clients, err := kv.clients.List(c.UserContext(), kv.now())
	if err != nil {
		return nil, err
	}
	names := make(map[int64]string, len(clients))
	for _, cl := range clients {
		names[cl.ID] = cl.Name
	}
	rows := make([]views.KeyRow, len(keys))
	for i := range keys {
		if rows[i], err = kv.row(c, &keys[i], names[keys[i].ClientID]); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// renderKeys is the keys page; ?state= keeps the keys in one state (the dashboard's banned keys).
func renderKeys(c *fiber.Ctx, kv keyViews, form views.KeyForm) error {
	state, err := adminQuery(c).one("state")
	if err != nil {
		return err
	}
	if state != "" && !slices.Contains(keyStates, state) {
		return &models.Error{Code: models.EInvalid, Field: "state", Message: "state: must be one of " + strings.Join(keyStates, ", ") + ", or left out for every key"}
	}
	keys, err := kv.keys.List(c.UserContext())
	if err != nil {
		return err
	}
	if state != "" {
		now := kv.now()
		keys = slices.DeleteFunc(keys, func(k models.APIKey) bool { return k.State(now) != state })
	}
	rows, err := kv.rows(c, keys)
	if err != nil {
		return err
	}
	return render(c, views.Keys(page(c, "API keys", views.SectionKeys), views.KeysProps{Form: form, Rows: rows, State: state}))
}

var keyStates = []string{models.KeyActive, models.KeyBanned, models.KeyExpired, models.KeyRevoked}

// newKeyForm is the form that issues a key, before anything is typed: every scope ticked.
func newKeyForm() views.KeyForm {
	return views.KeyForm{Plan: string(models.PlanFree), Scopes: models.AllScopes.Strings()}
}

// listKeys is the API keys page; with format=csv, every key as CSV.
func listKeys(kv keyViews, export exporter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if csv, err := wantsCSV(adminQuery(c)); csv || err != nil {
			if err != nil {
				return err
			}
			return exportKeys(c, kv.keys, export)
		}
		return renderKeys(c, kv, newKeyForm())
	}
}

// formScopes reads the ticked scopes; none ticked is refused by the store.
func formScopes(c *fiber.Ctx) []string {
	var out []string
	for _, v := range c.Request().PostArgs().PeekMulti("scopes") {
		out = append(out, string(v))
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// formLimit reads a custom limit: empty is none (0); anything else must be a whole number.
func formLimit(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// keyLimits reads the custom limits of a key form; the store checks their values.
func keyLimits(f views.KeyForm) (perMinute, perDay int, errs views.FormErrors) {
	errs = views.FormErrors{}
	var ok bool
	if perMinute, ok = formLimit(f.PerMinute); !ok {
		errs["perMinute"] = "must be a whole number"
	}
	if perDay, ok = formLimit(f.PerDay); !ok {
		errs["perDay"] = "must be a whole number"
	}
	return perMinute, perDay, errs
}

// createKey issues a key, with a new client of its name, and shows it once, on the key's page.
func createKey(sessions adminSessions, kv keyViews) fiber.Handler {
	return func(c *fiber.Ctx) error {
		return issueKey(c, sessions, kv.keys, 0, func(c *fiber.Ctx, f views.KeyForm) error { return renderKeys(c, kv, f) })
	}
}

// issueKey issues the key the form describes for client (a new one when 0) and shows it once,
// on the key's page; a refused form is shown again by rerender.
func issueKey(c *fiber.Ctx, sessions adminSessions, keys *models.APIKeyStore, client int64, rerender func(*fiber.Ctx, views.KeyForm) error) error {
	f := views.KeyForm{Name: c.FormValue("name"), Plan: c.FormValue("plan"), PerMinute: c.FormValue("perMinute"),
		PerDay: c.FormValue("perDay"), ExpiresOn: c.FormValue("expiresOn"), Scopes: formScopes(c)}
	perMinute, perDay, errs := keyLimits(f)
	n := models.NewAPIKey{Name: f.Name, ClientID: client, Plan: f.Plan, Scopes: f.Scopes, PerMinute: perMinute, PerDay: perDay}
	if f.ExpiresOn != "" {
		d, err := time.Parse("2006-01-02", f.ExpiresOn)
		if err != nil {
			errs["expiresOn"] = "must be a date such as 2027-01-31"
		}
		n.ExpiresAt = &d
	}
	if len(errs) > 0 {
		f.Errors = errs
		c.Status(fiber.StatusBadRequest)
		return rerender(c, f)
	}
	k, plain, err := keys.Create(c.UserContext(), n)
	if err != nil {
		if !formRefusal(err) {
			return err
		}
		f.Errors = models.FieldMessages(err)
		if msg, ok := f.Errors["expiresAt"]; ok {
			f.Errors["expiresOn"] = msg
		}
		c.Status(statusOf(err))
		return rerender(c, f)
	}
	sess, err := sessions.store.Get(c)
	if err != nil {
		return err
	}
	sess.Set(sessNewKey, strconv.FormatInt(k.ID, 10)+":"+plain)
	sess.Set(sessFlash, "Issued the key "+k.Name+".")
	if err := sess.Save(); err != nil {
		return err
	}
	return c.Redirect("/admin/keys/"+strconv.FormatInt(k.ID, 10), fiber.StatusSeeOther)
}

// showKey is a key's page; right after its creation, it shows the plain key, once.
func showKey(sessions adminSessions, kv keyViews, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		k, err := kv.keys.Get(c.UserContext(), id)
		if err != nil {
			return err
		}
		secret, err := popNewKey(c, sessions, id)
		if err != nil {
			return err
		}
		return renderKey(c, kv, trail, k, secret, planForm(k), views.KeyForm{Scopes: k.Scopes.Strings()})
	}
}

// planForm is the plan form of key k as it stands.
func planForm(k *models.APIKey) views.KeyForm {
	form := views.KeyForm{Plan: string(k.Plan)}
	if k.Plan == models.PlanEnterprise {
		form.PerMinute, form.PerDay = strconv.Itoa(k.PerMinute), strconv.Itoa(k.PerDay)
	}
	return form
}

// popNewKey takes the plain key of key id out of the session, if it is there.
func popNewKey(c *fiber.Ctx, sessions adminSessions, id int64) (string, error) {
	sess, err := sessions.store.Get(c)
	if err != nil {
		return "", err
	}
	v, _ := sess.Get(sessNewKey).(string)
	prefix := strconv.FormatInt(id, 10) + ":"
	if !strings.HasPrefix(v, prefix) {
		return "", nil
	}
	sess.Delete(sessNewKey)
	if err := sess.Save(); err != nil {
		return "", err
	}
	return strings.TrimPrefix(v, prefix), nil
}

func renderKey(c *fiber.Ctx, kv keyViews, trail auditTrail, k *models.APIKey, secret string, plan, scopes views.KeyForm) error {
	cl, err := kv.clients.Get(c.UserContext(), k.ClientID)
	if err != nil {
		return err
	}
	row, err := kv.row(c, k, cl.Name)
	if err != nil {
		return err
	}
	d := views.KeyDetailProps{Key: row, Secret: secret, Plan: plan, Scopes: scopes}
	if d.Audit, d.AuditURL, err = trail.objectAudit(c, models.ObjectAPIKey, k.ID); err != nil {
		return err
	}
	return render(c, views.KeyDetail(page(c, k.Name, views.SectionKeys), d))
}

// changeKeyPlan moves a key to another plan, with custom limits on Enterprise.
func changeKeyPlan(sessions adminSessions, kv keyViews, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		f := views.KeyForm{Plan: c.FormValue("plan"), PerMinute: c.FormValue("perMinute"), PerDay: c.FormValue("perDay")}
		perMinute, perDay, errs := keyLimits(f)
		var k *models.APIKey
		if len(errs) == 0 {
			k, err = kv.keys.SetPlan(c.UserContext(), id, f.Plan, perMinute, perDay)
			if err == nil {
				return sessions.redirectWithFlash(c, "/admin/keys/"+strconv.FormatInt(id, 10), k.Name+" is now on the "+string(k.Plan)+" plan.")
			}
			if !formRefusal(err) {
				return err
			}
			errs = models.FieldMessages(err)
			c.Status(statusOf(err))
		} else {
			c.Status(fiber.StatusBadRequest)
		}
		if k, err = kv.keys.Get(c.UserContext(), id); err != nil {
			return err
		}
		f.Errors = errs
		return renderKey(c, kv, trail, k, "", f, views.KeyForm{Scopes: k.Scopes.Strings()})
	}
}

// changeKeyScopes replaces a key's scopes; every instance applies them within a second.
func changeKeyScopes(sessions adminSessions, kv keyViews, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		f := views.KeyForm{Scopes: formScopes(c)}
		k, err := kv.keys.SetScopes(c.UserContext(), id, f.Scopes)
		if err == nil {
			return sessions.redirectWithFlash(c, "/admin/keys/"+strconv.FormatInt(id, 10), k.Name+" now has the scopes "+strings.Join(k.Scopes.Strings(), ", ")+".")
		}
		if !formRefusal(err) {
			return err
		}
		f.Errors = models.FieldMessages(err)
		c.Status(statusOf(err))
		if k, err = kv.keys.Get(c.UserContext(), id); err != nil {
			return err
		}
		return renderKey(c, kv, trail, k, "", planForm(k), f)
	}
}

// revokeKey ends a key for good.
func revokeKey(sessions adminSessions, keys *models.APIKeyStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		k, err := keys.Revoke(c.UserContext(), id)
		if err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, "/admin/keys/"+strconv.FormatInt(id, 10), "Revoked the key "+k.Name+".")
	}
}

// unbanKey lifts a temporary ban at once.
func unbanKey(sessions adminSessions, keys *models.APIKeyStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		k, err := keys.Unban(c.UserContext(), id)
		if err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, "/admin/keys/"+strconv.FormatInt(id, 10), "Lifted the ban on "+k.Name+".")
	}
}

// exportKeys writes every key as CSV: what the keys page shows of each, never a secret. Keys are
// few, and read in one go.
func exportKeys(c *fiber.Ctx, store *models.APIKeyStore, export exporter) error {
	keys, err := store.List(c.UserContext())
	if err != nil {
		return err
	}
	header := []string{"id", "name", "client id", "prefix", "plan", "scopes", "per minute", "per day", "state", "created", "expires", "revoked", "banned until", "last used"}
	now := export.now()
	return export.csv(c, "api-keys", header, func(_ context.Context, rows csvRows) error {
		for i := range keys {
			k := &keys[i]
			l := k.Limits()
			err := rows.Row(strconv.FormatInt(k.ID, 10), k.Name, strconv.FormatInt(k.ClientID, 10), k.Prefix, string(k.Plan), k.Scopes.String(), strconv.Itoa(l.PerMinute), strconv.Itoa(l.PerDay),
				k.State(now), rows.Time(&k.CreatedAt), rows.Time(k.ExpiresAt), rows.Time(k.RevokedAt), rows.Time(k.BannedUntil), rows.Time(k.LastUsedAt))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

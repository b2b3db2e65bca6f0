package routes

import (
	"context"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// auditObject is how the pages name one kind of object in the audit log, and where its page is.
type auditObject struct {
	noun string
	// page is the object's page, or its list's when it has none of its own.
	page      func(id string) string
	adminOnly bool
}

var auditObjects = map[string]auditObject{
	models.ObjectPet:      {"Pet", func(id string) string { return "/admin/pets/" + id }, false},
	models.ObjectOrder:    {"Order", func(id string) string { return "/admin/orders/" + id }, false},
	models.ObjectCategory: {"Category", func(string) string { return "/admin/categories" }, true},
	models.ObjectAPIKey:   {"API key", func(id string) string { return "/admin/keys/" + id }, true},
	models.ObjectStaff:    {"Staff", func(id string) string { return "/admin/staff/" + id }, true},

	models.ObjectClient: {"Client", func(id string) string { return "/admin/clients/" + id }, true},
	// An endpoint's page is under its client's; this address leads there.
	models.ObjectWebhookEndpoint: {"Webhook endpoint", func(id string) string { return "/admin/webhook-endpoints/" + id }, true},
}

// auditActions say what an entry's action did, as a verb.
var auditActions = map[string]string{
	models.AuditCreate:             "created",
	models.AuditUpdate:             "changed",
	models.AuditDelete:             "deleted",
	models.AuditRestore:            "restored",
	string(models.ActionSetStatus): "set the status by hand",
	string(models.ActionPlace):     "placed",
	string(models.ActionApprove):   "approved",
	string(models.ActionDeliver):   "marked delivered",
	string(models.ActionCancel):    "cancelled",
	models.AuditRevoke:             "revoked",
	models.AuditBan:                "banned",
	models.AuditUnban:              "lifted the ban",
	models.AuditDisable:            "disabled",
	models.AuditEnable:             "enabled",
	models.AuditChangePassword:     "changed the password",
	models.AuditResetPassword:      "reset the password",
	models.AuditSetPassword:        "set the password",
	models.AuditRotateSecret:       "rotated the signing secret",
	models.AuditLogIn:              "signed in",
	models.AuditLogInFailed:        "failed to sign in",
	models.AuditLockOut:            "locked out",
	models.AuditLogOut:             "signed out",
}

// auditFieldNames label the audited fields whose label is not their name in words (see
// fieldLabel): a new field reads as its name, "bannedUntil" as "Banned until", without an entry.
var auditFieldNames = map[string]string{
	"categoryId": "Category", "petId": "Pet", "expiresAt": "Expires", "revokedAt": "Revoked",
	"passwordChangedAt": "Password changed", "clientId": "Client", "url": "URL",
	"previousSecretUntil": "Old secret signs until", "email": "E-mail", "lockedUntil": "Locked out until",
}

// fieldLabel is how the pages label an audited field: its entry in auditFieldNames, or its
// camel-cased name in words.
func fieldLabel(name string) string {
	if label, ok := auditFieldNames[name]; ok {
		return label
	}
	var b strings.Builder
	for i, r := range name {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsUpper(r):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// actorWords name the actors that are not a person or a key.
var actorWords = map[string]string{
	models.ActorCLI: "command line", models.ActorRateLimiter: "rate limiter", models.SeedActor: "seed",
	models.ActorDeliveries: "webhook deliveries", models.ActorVisitor: "someone not signed in",
}

// auditTrailSize is how many of an object's newest entries its page shows.
const auditTrailSize = 10

// listAudit is the audit log: every change, newest first, filtered by the query string.
func listAudit(trail auditTrail, export exporter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		f := views.AuditFilter{
			Actor:    strings.TrimSpace(utils.CopyString(c.Query("actor"))),
			Object:   utils.CopyString(c.Query("object")),
			ObjectID: utils.CopyString(c.Query("id")),
			Action:   utils.CopyString(c.Query("action")),
			Date:     utils.CopyString(c.Query("date")),
		}
		filter := models.AuditFilter{Actor: f.Actor, Object: f.Object, Action: f.Action}
		// A bare name is a staff member's: "ada" finds staff:ada.
		if f.Actor != "" && !strings.Contains(f.Actor, ":") && actorWords[f.Actor] == "" {
			filter.Actor = models.StaffActor(strings.ToLower(f.Actor))
		}
		var err error
		if f.Object != "" && !slices.Contains(models.AuditObjects, f.Object) {
			return models.Errorf(models.EInvalid, "object: must be one of %s", strings.Join(models.AuditObjects, ", "))
		}
		if f.ObjectID != "" {
			if filter.ObjectID, err = strconv.ParseInt(f.ObjectID, 10, 64); err != nil || filter.ObjectID < 1 || f.Object == "" {
				return models.Errorf(models.EInvalid, "id: must be an object's id, with object")
			}
		}
		if f.Action != "" && !slices.Contains(models.AuditActions, f.Action) {
			return models.Errorf(models.EInvalid, "action: must be one of %s", strings.Join(models.AuditActions, ", "))
		}
		if f.Date != "" {
			if filter.Day, err = time.ParseInLocation(time.DateOnly, f.Date, trail.zone); err != nil {
				return models.Errorf(models.EInvalid, "date: must be a day such as 2026-11-23")
			}
		}
		pg, err := listPage(adminQuery(c), models.AuditOrder)
		if err != nil {
			return err
		}
		if csv, err := wantsCSV(adminQuery(c)); csv || err != nil {
			if err != nil {
				return err
			}
			return exportAudit(c, trail, export, filter)
		}
		entries, err := trail.audit.List(c.UserContext(), filter, pg)
		if err != nil {
			return err
		}
		rows, err := trail.auditRows(c, entries.Items)
		if err != nil {
			return err
		}
		props := views.AuditProps{Filter: f, Rows: rows, CSVURL: withQuery(c, "format", "csv")}
		for _, o := range models.AuditObjects {
			props.Objects = append(props.Objects, views.Option{Value: o, Label: auditObjects[o].noun})
		}
		for _, act := range models.AuditActions {
			props.Actions = append(props.Actions, views.Option{Value: act, Label: auditActions[act]})
		}
		props.Pager = pager(c, pg, entries)
		return render(c, views.AuditPage(page(c, "Audit log", views.SectionAudit), props))
	}
}

// exportAudit streams the entries the filter keeps, newest first, as CSV, written as the page
// writes them: who by name, the action's verb, and each changed field as "Name: Charlie →
// Charlie Brown", one to a line. The actor's and the action's codes stay beside them, for a
// filter in the spreadsheet.
func exportAudit(c *fiber.Ctx, trail auditTrail, export exporter, f models.AuditFilter) error {
	header := []string{"id", "time", "who", "actor", "object", "object id", "object name", "action", "did", "changes"}
	cats, err := trail.categoryNames(c.UserContext())
	if err != nil {
		return err
	}
	return export.csv(c, "audit", header, func(ctx context.Context, rows csvRows) error {
		return exportPages(ctx, export.timeout, models.Page{}, func(ctx context.Context, pg models.Page) (models.Paged[models.AuditEntry], error) {
			return trail.audit.List(ctx, f, pg)
		}, func(ctx context.Context, entries []models.AuditEntry) error {
			actors := make([]string, len(entries))
			for i := range entries {
				actors[i] = entries[i].Actor
			}
			names, err := trail.audit.Actors(ctx, actors)
			if err != nil {
				return err
			}
			for i := range entries {
				e := &entries[i]
				did := auditActions[e.Action]
				if did == "" {
					did = e.Action
				}
				changes := fieldChanges(e.BeforeFields(), e.AfterFields(), cats, trail.zone)
				lines := make([]string, len(changes))
				for j, ch := range changes {
					lines[j] = ch.String()
				}
				err := rows.Row(strconv.FormatInt(e.ID, 10), rows.Time(&e.CreatedAt), actorLink(names[e.Actor], true).Label, e.Actor,
					e.ObjectType, strconv.FormatInt(e.ObjectID, 10), e.ObjectName, e.Action, did, strings.Join(lines, "\n"))
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// auditTrail writes audit entries for the pages that show them.
type auditTrail struct {
	audit *models.AuditStore
	// cats name the categories the entries of pets refer to by id.
	cats *models.CategoryStore
	// zone is the store's time zone, in which the entries' times are written.
	zone *time.Location
}

// categoryNames names the categories by id, as the audit log writes a pet's category.
func (t auditTrail) categoryNames(ctx context.Context) (map[int64]string, error) {
	cats, err := t.cats.List(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[int64]string, len(cats))
	for _, cat := range cats {
		names[cat.ID] = cat.Name
	}
	return names, nil
}

// objectAudit is an object's newest entries for its page, and the address of all of them.
func (t auditTrail) objectAudit(c *fiber.Ctx, object string, id int64) ([]views.AuditRow, string, error) {
	entries, err := t.audit.List(c.UserContext(), models.AuditFilter{Object: object, ObjectID: id}, models.Page{Limit: auditTrailSize})
	if err != nil {
		return nil, "", err
	}
	rows, err := t.auditRows(c, entries.Items)
	if err != nil {
		return nil, "", err
	}
	all := ""
	if me := currentStaff(c); me != nil && me.IsAdmin() {
		all = "/admin/audit?" + url.Values{"object": {object}, "id": {strconv.FormatInt(id, 10)}}.Encode()
	}
	return rows, all, nil
}

// auditRows writes entries for people: actors by name, objects with their names, fields with
// their labels and values, each linked to its page when the viewer may open it.
func (t auditTrail) auditRows(c *fiber.Ctx, entries []models.AuditEntry) ([]views.AuditRow, error) {
	ctx := c.UserContext()
	actors := make([]string, len(entries))
	for i := range entries {
		actors[i] = entries[i].Actor
	}
	names, err := t.audit.Actors(ctx, actors)
	if err != nil {
		return nil, err
	}
	catNames, err := t.categoryNames(ctx)
	if err != nil {
		return nil, err
	}
	admin := currentStaff(c).IsAdmin()
	rows := make([]views.AuditRow, len(entries))
	for i := range entries {
		e := &entries[i]
		rows[i] = views.AuditRow{ID: e.ID, At: e.CreatedAt, Actor: actorLink(names[e.Actor], admin),
			Object: objectLink(e, admin), Action: auditActions[e.Action]}
		if rows[i].Action == "" {
			rows[i].Action = e.Action
		}
		rows[i].Changes = fieldChanges(e.BeforeFields(), e.AfterFields(), catNames, t.zone)
	}
	return rows, nil
}

func actorLink(a models.Actor, admin bool) views.Link {
	switch a.Kind {
	case models.ObjectStaff:
		l := views.Link{Label: a.Name}
		if admin && a.ID != 0 {
			l.URL = "/admin/staff/" + strconv.FormatInt(a.ID, 10)
		}
		return l
	case models.ObjectAPIKey:
		if a.ID == 0 {
			return views.Link{Label: a.Name}
		}
		l := views.Link{Label: a.Name + " (API key)"}
		if admin {
			l.URL = "/admin/keys/" + strconv.FormatInt(a.ID, 10)
		}
		return l
	}
	if w := actorWords[a.Name]; w != "" {
		return views.Link{Label: w}
	}
	return views.Link{Label: a.Name}
}

// auditNameLength is as much of an object's name as the log's Object column shows: an endpoint
// is named by its URL, which can run to 2,048 characters (its changes show it whole).
const auditNameLength = 60

// cutName cuts s to n characters, marking the cut with an ellipsis.
func cutName(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func objectLink(e *models.AuditEntry, admin bool) views.Link {
	id := strconv.FormatInt(e.ObjectID, 10)
	o, ok := auditObjects[e.ObjectType]
	if !ok {
		return views.Link{Label: e.ObjectType + " #" + id}
	}
	if e.ObjectID == 0 { // a failed login's name that is no account's
		return views.Link{Label: o.noun + " · " + cutName(e.ObjectName, auditNameLength)}
	}
	l := views.Link{Label: o.noun + " #" + id}
	if e.ObjectName != "" {
		l.Label += " · " + cutName(e.ObjectName, auditNameLength)
	}
	if admin || !o.adminOnly {
		l.URL = o.page(id)
	}
	return l
}

// fieldChanges lists an entry's fields in a steady order, each value written as people read it,
// times in zone.
func fieldChanges(before, after models.Fields, categories map[int64]string, zone *time.Location) []views.FieldChange {
	keys := make([]string, 0, len(before)+len(after))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, dup := before[k]; !dup {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]views.FieldChange, 0, len(keys))
	for _, k := range keys {
		label := fieldLabel(k)
		b, hasB := before[k]
		af, hasA := after[k]
		// A creation or a deletion lists what the object had; fields it had none of, and flags
		// it did not have set, say nothing.
		if (before == nil && (blank(k, af) || af == false)) || (after == nil && (blank(k, b) || b == false)) {
			continue
		}
		out = append(out, views.FieldChange{Field: label, HasBefore: hasB && before != nil, HasAfter: hasA && after != nil,
			Before: fieldValue(k, b, categories, zone), After: fieldValue(k, af, categories, zone)})
	}
	return out
}

// blank reports whether a field's value says the object has none: no value, an empty text or
// list, or an API key's own limit of 0, which leaves its plan's.
func blank(field string, v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case float64:
		return v == 0 && (field == "perMinute" || field == "perDay")
	}
	return false
}

func fieldValue(field string, v any, categories map[int64]string, zone *time.Location) string {
	if blank(field, v) {
		switch field {
		case "perMinute", "perDay":
			return "the plan's"
		case "scopes", "events":
			return "none"
		}
		return "—"
	}
	switch v := v.(type) {
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			out[i] = fieldValue(field, e, categories, zone)
		}
		return strings.Join(out, ", ")
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case float64:
		if v != math.Trunc(v) {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		n := int64(v)
		switch field {
		case "categoryId":
			if name := categories[n]; name != "" {
				return name
			}
		case "petId", "clientId", "client":
			return "#" + strconv.FormatInt(n, 10)
		}
		return views.Thousands(n)
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			if field == "shipDate" { // a calendar day, as the order shows it, the same in every zone
				return t.UTC().Format(time.DateOnly)
			}
			return t.In(zone).Format("2006-01-02 15:04")
		}
		if field == "events" { // an endpoint's event types, recorded space-separated
			return strings.Join(strings.Fields(v), ", ")
		}
		return v
	}
	return ""
}

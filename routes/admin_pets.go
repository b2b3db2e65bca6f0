package routes

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// categorySuggestions lists the categories' names, as a category field suggests them (every one: there
// are at most models.MaxCategories), and by id.
func categorySuggestions(c *fiber.Ctx, categories *models.CategoryStore) ([]string, map[int64]string, error) {
	cats, err := categories.List(c.UserContext())
	if err != nil {
		return nil, nil, err
	}
	list := make([]string, len(cats))
	names := make(map[int64]string, len(cats))
	for i, cat := range cats {
		list[i] = cat.Name
		names[cat.ID] = cat.Name
	}
	slices.Sort(list)
	return list, names, nil
}

func petRow(p *models.Pet, categories map[int64]string) views.PetRow {
	return views.PetRow{ID: p.ID, Name: p.Name, CategoryID: p.CategoryID, Category: categories[p.CategoryID],
		Status: string(p.Status), Description: p.Description, Tags: p.Tags.List(), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Deleted: p.DeletedAt.Valid,
		Photos: photoViews(p.Photos)}
}

// petColumns are the pets table's sortable columns; it is sorted by id by default.
var petColumns = []sortColumn{
	{key: "id", label: "ID", num: true, asc: "Added, oldest first", desc: "Added, newest first"},
	{key: "name", label: "Name", asc: "Name, A to Z", desc: "Name, Z to A"},
	{key: "status", label: "Status", asc: "Status, A to Z", desc: "Status, Z to A"},
	{key: "updated", label: "Updated", newestFirst: true, asc: "Updated, oldest first", desc: "Updated, newest first"},
}

// petFilter reads the pets table's filters, each parameter's value given by get: as typed, and
// as the store takes them. The category is a pick (its name or number), shown by its name.
func petFilter(ctx context.Context, cats *models.CategoryStore, get func(name string) (string, error), categories map[int64]string) (views.PetFilter, models.PetFilter, error) {
	var f views.PetFilter
	var filter models.PetFilter
	for name, dst := range map[string]*string{"status": &f.Status, "category": &f.Category, "q": &f.Q, "tag": &f.Tag, "show": &f.Show} {
		v, err := get(name)
		if err != nil {
			return f, filter, err
		}
		*dst = v
	}
	f.Q = strings.TrimSpace(f.Q)
	var err error
	if f.Status != "" {
		if filter.Status, err = models.ParsePetStatus("status", f.Status); err != nil {
			return f, filter, invalidParam(err)
		}
	}
	if filter.CategoryID, err = cats.Pick(ctx, "category", f.Category); err != nil {
		return f, filter, invalidParam(err)
	}
	if name, ok := categories[filter.CategoryID]; ok {
		f.Category = name
	}
	if utf8.RuneCountInString(f.Q) > models.MaxNameLength {
		return f, filter, models.Errorf(models.EInvalid, "q: must be at most %d characters", models.MaxNameLength)
	}
	filter.Search = f.Q
	if filter.Tags, err = models.ParseTagFilter("tag", models.SplitTags(f.Tag)); err != nil {
		return f, filter, invalidParam(err)
	}
	switch f.Show {
	case "":
	case views.ShowDeleted:
		filter.Deleted = true
	default:
		return f, filter, &models.Error{Code: models.EInvalid, Field: "show", Message: "show: must be " + views.ShowDeleted + ", or left out for the catalogue"}
	}
	return f, filter, nil
}

// adminListPets is the pets table: filters by status, category and a search (an id, or part of a
// name), the deleted pets instead of the catalogue, sorted by a column, keyset-paginated with
// its total, all in the query string; or, with format=csv, the whole filtered list as CSV.
func adminListPets(pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore, export exporter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q := adminQuery(c)
		opts, names, err := categorySuggestions(c, cats)
		if err != nil {
			return err
		}
		f, filter, err := petFilter(c.UserContext(), cats, q.one, names)
		if err != nil {
			return err
		}
		sort, err := sortOf(q, petColumns, models.Sort{})
		if err != nil {
			return err
		}
		pg, err := listPage(q, sort)
		if err != nil {
			return err
		}
		csv, err := wantsCSV(q)
		if err != nil {
			return err
		}
		if csv {
			return exportPets(c, pets, export, filter, pg.Sort, names)
		}
		list, err := pets.List(c.UserContext(), filter, pg)
		if err != nil {
			return err
		}
		tags, err := tagNames(c, pets)
		if err != nil {
			return err
		}
		l := views.PetsListProps{Filter: f, Categories: opts, Tags: tags, Rows: make([]views.PetRow, len(list.Items)),
			Sort: sortHeaders(c, petColumns, pg.Sort, models.Sort{}), CSVURL: withQuery(c, "format", "csv"), ListURL: c.OriginalURL()}
		if l.ListURL != "/admin/pets" {
			l.Back = l.ListURL
		}
		l.SortOptions = sortOptions(petColumns, models.Sort{})
		if pg.Sort != (models.Sort{}) {
			l.SortParam = pg.Sort.String()
		}
		ids := make([]int64, len(list.Items))
		for i := range list.Items {
			l.Rows[i] = petRow(&list.Items[i], names)
			ids[i] = list.Items[i].ID
		}
		holders, err := orders.Holders(c.UserContext(), ids)
		if err != nil {
			return err
		}
		for i := range l.Rows {
			if h, ok := holders[l.Rows[i].ID]; ok {
				l.Rows[i].HeldBy, l.Rows[i].HeldStatus = h.ID, string(h.Status)
			}
		}
		l.Pager = pager(c, pg, list)
		if l.Pager.Exact && l.Pager.Total > int64(len(l.Rows)) && l.Pager.Total <= maxBulkPets {
			l.SelectAll = int(l.Pager.Total)
		}
		pp := page(c, "Pets", views.SectionPets)
		pp.Search = "q"
		return render(c, views.PetsList(pp, l))
	}
}

// exportPets streams the filtered pets, in the table's order, as CSV.
func exportPets(c *fiber.Ctx, pets *models.PetStore, export exporter, f models.PetFilter, sort models.Sort, categories map[int64]string) error {
	header := []string{"id", "name", "category", "status", "description", "tags", "cover", "created", "updated", "deleted"}
	return export.csv(c, "pets", header, func(ctx context.Context, rows csvRows) error {
		return exportPages(ctx, export.timeout, models.Page{Sort: sort}, func(ctx context.Context, pg models.Page) (models.Paged[models.Pet], error) {
			return pets.List(ctx, f, pg)
		}, func(_ context.Context, batch []models.Pet) error {
			for i := range batch {
				p := &batch[i]
				var deleted *time.Time
				if p.DeletedAt.Valid {
					deleted = &p.DeletedAt.Time
				}
				err := rows.Row(strconv.FormatInt(p.ID, 10), p.Name, categories[p.CategoryID], string(p.Status),
					p.Description, strings.Join(p.Tags, " "), coverURL(p), rows.Time(&p.CreatedAt), rows.Time(&p.UpdatedAt), rows.Time(deleted))
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// showPet is a pet's page.
func showPet(pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{})
	}
}

// maxBackLength bounds the list address a page carries back: a list's filters, sort and cursor
// fit well within it.
const maxBackLength = 2048

// petsBack is the pets list a pet's page or form was opened from (?back=, or the form's back
// field), or "" when there is none: only an address of the pets list itself is kept, so the
// parameter cannot send anyone to another page or site.
func petsBack(c *fiber.Ctx) string {
	raw := c.Query("back")
	if c.Method() == fiber.MethodPost {
		raw = c.FormValue("back")
	}
	if raw == "" || len(raw) > maxBackLength {
		return ""
	}
	if u := safeNext(raw); u == "/admin/pets" || strings.HasPrefix(u, "/admin/pets?") {
		return utils.CopyString(u)
	}
	return ""
}

// petURL is a pet's page, with the list it was opened from.
func petURL(id int64, back string) string {
	u := "/admin/pets/" + strconv.FormatInt(id, 10)
	if back != "" {
		u += "?back=" + url.QueryEscape(back)
	}
	return u
}

// renderPet shows a pet's page; d carries what a refused form typed and why it was refused.
func renderPet(c *fiber.Ctx, pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore, trail auditTrail, id int64, d views.PetDetailProps) error {
	ctx := c.UserContext()
	d.Back = petsBack(c)
	p, err := pets.GetAny(ctx, id)
	if err != nil {
		return err
	}
	cat, err := cats.Get(ctx, p.CategoryID)
	if err != nil {
		return err
	}
	petOrders, err := orders.ListForPet(ctx, id)
	if err != nil {
		return err
	}
	history, err := pets.History(ctx, id)
	if err != nil {
		return err
	}
	d.Pet = petRow(p, map[int64]string{cat.ID: cat.Name})
	d.Orders = make([]views.OrderRow, len(petOrders))
	for i := range petOrders {
		d.Orders[i] = orderRow(&petOrders[i], p.Name)
	}
	if h := models.HoldingOrder(petOrders); h != nil {
		d.Holder = orderRow(h, p.Name)
	}
	if d.History, err = trail.historyRows(c, history); err != nil {
		return err
	}
	d.Today = time.Now().UTC().Format(time.DateOnly)
	if d.Audit, d.AuditURL, err = trail.objectAudit(c, models.ObjectPet, id); err != nil {
		return err
	}
	return render(c, views.PetDetail(page(c, p.Name, views.SectionPets), d))
}

// setPetStatus sets a pet's status by hand; the store records who did it, and refuses a pet
// that an order holds.
func setPetStatus(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		status := c.FormValue("status")
		p, err := pets.SetStatus(c.UserContext(), id, models.PetStatus(status), models.StaffActor(currentStaff(c).Username))
		if err == nil {
			return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), p.Name+" is now "+string(p.Status)+".")
		}
		if !formRefusal(err) {
			return err
		}
		c.Status(statusOf(err))
		if models.ErrorCode(err) == models.EConflict {
			// The page was stale: an order took the pet since. The page shown now says which.
			return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{Refusal: "The status was not changed: an order now decides it (see below)."})
		}
		return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{Status: status, StatusError: fieldMessage(err, "status")})
	}
}

// placeOrder places an order for a pet, as a client of the API would, on behalf of the signed-in
// staff member (a phone order, for instance).
func placeOrder(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		typed := c.FormValue("shipDate")
		n := models.NewOrder{PetID: &id}
		if typed != "" {
			d, perr := time.Parse("2006-01-02", typed)
			if perr != nil {
				c.Status(fiber.StatusBadRequest)
				return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{ShipDate: typed, OrderError: "must be a date such as 2026-12-24"})
			}
			n.ShipDate = &d
		}
		o, err := orders.Place(c.UserContext(), n, models.StaffOwner, models.StaffActor(currentStaff(c).Username), nil)
		if err == nil {
			return sessions.redirectWithFlash(c, "/admin/orders/"+strconv.FormatInt(o.ID, 10), "Placed order #"+strconv.FormatInt(o.ID, 10)+".")
		}
		if !formRefusal(err) {
			return err
		}
		c.Status(statusOf(err))
		if models.ErrorCode(err) == models.EConflict {
			// The page was stale: the pet is no longer available, and the page shown now has no order form.
			return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{Refusal: "The order was not placed: this pet is no longer available."})
		}
		return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{ShipDate: typed, OrderError: fieldMessage(err, "shipDate")})
	}
}

// tagNames are the tags in use among the newest pets, most used first, as the tag fields
// suggest them (models.PetStore.TagSuggestions: the same cost at any size).
func tagNames(c *fiber.Ctx, pets *models.PetStore) ([]string, error) {
	return pets.TagSuggestions(c.UserContext())
}

// formTags reads the tags typed in a pet's form, separated by commas or white space.
func formTags(f views.PetFormProps) *[]string {
	tags := models.SplitTags(f.Tags)
	return &tags
}

// newPetForm is the empty form that adds a pet.
func newPetForm(pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		opts, _, err := categorySuggestions(c, cats)
		if err != nil {
			return err
		}
		tags, err := tagNames(c, pets)
		if err != nil {
			return err
		}
		f := views.PetFormProps{Status: string(models.PetAvailable), Categories: opts, TagNames: tags, Back: petsBack(c)}
		return render(c, views.PetForm(page(c, "Add a pet", views.SectionPets), f))
	}
}

// formCategoryID reads the category typed in a pet's form (a pick: its name or number): empty
// is "not chosen", which the store reports as required.
func formCategoryID(c *fiber.Ctx, cats *models.CategoryStore, typed string) (*int64, error) {
	id, err := cats.Pick(c.UserContext(), "categoryId", typed)
	if err != nil || id == 0 {
		return nil, err
	}
	return &id, nil
}

// adminCreatePet adds a pet with the API's rules; on a mistake the form comes back with what was
// typed and each message beside its field.
func adminCreatePet(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		f := views.PetFormProps{Name: c.FormValue("name"), Category: c.FormValue("categoryId"), Status: c.FormValue("status"),
			Description: c.FormValue("description"), Tags: c.FormValue("tags"), Back: petsBack(c)}
		catID, err := formCategoryID(c, cats, f.Category)
		var p *models.Pet
		if err == nil {
			p, err = pets.Create(c.UserContext(), models.NewPet{Name: &f.Name, CategoryID: catID, Status: &f.Status,
				Description: &f.Description, Tags: formTags(f)}, nil)
		}
		if err != nil {
			return petFormError(c, pets, cats, f, err, "Add a pet")
		}
		return sessions.redirectWithFlash(c, petURL(p.ID, f.Back), "Added "+p.Name+".")
	}
}

// petFormError shows the form again after a refused change, or fails the request when the error
// is not about what was typed.
func petFormError(c *fiber.Ctx, pets *models.PetStore, cats *models.CategoryStore, f views.PetFormProps, err error, title string) error {
	code := models.ErrorCode(err)
	if code != models.EValidation && code != models.EInvalid {
		return err
	}
	f.Errors = models.FieldMessages(err)
	if len(f.Errors) == 0 {
		f.Error = models.ErrorMessage(err)
	}
	opts, names, oerr := categorySuggestions(c, cats)
	if oerr != nil {
		return oerr
	}
	f.Categories = opts
	if f.TagNames, oerr = tagNames(c, pets); oerr != nil {
		return oerr
	}
	// A category typed by its number comes back by its name.
	if id, perr := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(f.Category), "#"), 10, 64); perr == nil && names[id] != "" {
		f.Category = names[id]
	}
	c.Status(fiber.StatusBadRequest)
	return render(c, views.PetForm(page(c, title, views.SectionPets), f))
}

// editPetForm is the form that changes a pet's name and category.
func editPetForm(pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		p, err := pets.Get(c.UserContext(), id)
		if err != nil {
			return err
		}
		opts, names, err := categorySuggestions(c, cats)
		if err != nil {
			return err
		}
		tags, err := tagNames(c, pets)
		if err != nil {
			return err
		}
		f := views.PetFormProps{ID: p.ID, Name: p.Name, Category: names[p.CategoryID], Categories: opts,
			Description: p.Description, Tags: strings.Join(p.Tags, ", "), TagNames: tags, Back: petsBack(c)}
		return render(c, views.PetForm(page(c, "Edit "+p.Name, views.SectionPets), f))
	}
}

// adminUpdatePet saves the edit form.
func adminUpdatePet(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		f := views.PetFormProps{ID: id, Name: c.FormValue("name"), Category: c.FormValue("categoryId"),
			Description: c.FormValue("description"), Tags: c.FormValue("tags"), Back: petsBack(c)}
		catID, err := formCategoryID(c, cats, f.Category)
		var p *models.Pet
		if err == nil {
			p, err = pets.Update(c.UserContext(), id, models.PetPatch{Name: &f.Name, CategoryID: catID, Description: &f.Description, Tags: formTags(f)}, models.StaffActor(currentStaff(c).Username))
		}
		if err != nil {
			return petFormError(c, pets, cats, f, err, "Edit pet")
		}
		// Saved from a list, the staff member goes back to that list, where they were.
		to := f.Back
		if to == "" {
			to = petURL(p.ID, "")
		}
		return sessions.redirectWithFlash(c, to, "Saved "+p.Name+".")
	}
}

// adminDeletePet takes a pet out of the catalogue with the API's rules; a refusal (an order holds the
// pet) shows the pet's page again with the reason.
func adminDeletePet(sessions adminSessions, pets *models.PetStore, cats *models.CategoryStore, orders *models.OrderStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		err = pets.Delete(c.UserContext(), id, models.StaffActor(currentStaff(c).Username), nil)
		if models.ErrorCode(err) == models.EConflict {
			// The page was stale: an order took the pet since. Say which, in a sentence.
			petOrders, lerr := orders.ListForPet(c.UserContext(), id)
			if lerr != nil {
				return lerr
			}
			why := "This pet cannot be deleted now: an order holds it."
			if h := models.HoldingOrder(petOrders); h != nil {
				why = "This pet cannot be deleted now: order #" + strconv.FormatInt(h.ID, 10) + " (" + string(h.Status) + ") holds it. Cancel or deliver that order first."
			}
			c.Status(fiber.StatusConflict)
			return renderPet(c, pets, cats, orders, trail, id, views.PetDetailProps{DeleteError: why})
		}
		if err != nil {
			return err
		}
		p, err := pets.GetAny(c.UserContext(), id)
		if err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), "Deleted "+p.Name+". It stays here, and can be restored.")
	}
}

// restorePet puts a deleted pet back in the catalogue.
func restorePet(sessions adminSessions, pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		p, err := pets.Restore(c.UserContext(), id, models.StaffActor(currentStaff(c).Username))
		if err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, petURL(id, petsBack(c)), p.Name+" is back in the catalogue.")
	}
}

// coverURL is the absolute URL of a pet's cover photo, as the API gives it; "" without one.
func coverURL(p *models.Pet) string {
	if len(p.Photos) == 0 {
		return ""
	}
	return p.Photos[0].Response().URL
}

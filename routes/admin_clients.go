package routes

import (
	"context"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// clientOrdersShown is how many of a client's most recent orders its page shows.
const clientOrdersShown = 20

func clientRow(c *models.ClientSummary) views.ClientRow {
	return views.ClientRow{ID: c.ID, Name: c.Name, Email: c.Email, Keys: c.Keys, ActiveKeys: c.ActiveKeys,
		Orders: c.Orders, CreatedAt: c.CreatedAt}
}

func (a *admin) renderClients(c *fiber.Ctx, form views.ClientForm) error {
	list, err := a.clients.List(c.UserContext(), a.now())
	if err != nil {
		return err
	}
	props := views.ClientsProps{Form: form, Rows: make([]views.ClientRow, len(list))}
	for i := range list {
		props.Rows[i] = clientRow(&list[i])
	}
	return render(c, views.Clients(page(c, "Clients", views.SectionClients), props))
}

// listClients is the clients page; with format=csv, every client as CSV.
func (a *admin) listClients(c *fiber.Ctx) error {
	if csv, err := wantsCSV(adminQuery(c)); csv || err != nil {
		if err != nil {
			return err
		}
		return a.exportClients(c)
	}
	return a.renderClients(c, views.ClientForm{})
}

// exportClients writes every client as CSV, with the numbers its list shows. Clients are few,
// and read in one go.
func (a *admin) exportClients(c *fiber.Ctx) error {
	list, err := a.clients.List(c.UserContext(), a.now())
	if err != nil {
		return err
	}
	header := []string{"id", "name", "email", "created", "keys", "active keys", "orders"}
	return a.exportCSV(c, "clients", header, func(_ context.Context, rows csvRows) error {
		for i := range list {
			cl := &list[i]
			err := rows.Row(strconv.FormatInt(cl.ID, 10), cl.Name, cl.Email, rows.Time(&cl.CreatedAt),
				strconv.Itoa(cl.Keys), strconv.Itoa(cl.ActiveKeys), strconv.Itoa(cl.Orders))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// createClient adds a client and goes to its page, where it is given keys.
func (a *admin) createClient(c *fiber.Ctx) error {
	f := views.ClientForm{Name: c.FormValue("name"), Email: c.FormValue("email")}
	cl, err := a.clients.Create(c.UserContext(), models.NewClient{Name: f.Name, Email: f.Email})
	if err != nil {
		if !formRefusal(err) {
			return err
		}
		f.Errors = models.FieldMessages(err)
		c.Status(statusOf(err))
		return a.renderClients(c, f)
	}
	return a.redirectWithFlash(c, "/admin/clients/"+strconv.FormatInt(cl.ID, 10), "Added the client "+cl.Name+". Issue it a key below.")
}

// showClient is a client's page: its keys, its recent orders, its webhook endpoints, and a form
// to issue it a key.
func (a *admin) showClient(c *fiber.Ctx) error { return a.renderClient(c, newKeyForm()) }

func (a *admin) renderClient(c *fiber.Ctx, form views.KeyForm) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	cl, err := a.clients.Get(ctx, id)
	if err != nil {
		return err
	}
	summaries, err := a.clients.List(ctx, a.now())
	if err != nil {
		return err
	}
	d := views.ClientDetailProps{Client: views.ClientRow{ID: cl.ID, Name: cl.Name, Email: cl.Email, CreatedAt: cl.CreatedAt}, KeyForm: form}
	for i := range summaries {
		if summaries[i].ID == id {
			d.Client = clientRow(&summaries[i])
		}
	}
	keys, err := a.keys.ListForClient(ctx, id)
	if err != nil {
		return err
	}
	if d.Keys, err = a.keyRows(c, keys); err != nil {
		return err
	}
	orders, err := a.orders.ListForClient(ctx, id, clientOrdersShown)
	if err != nil {
		return err
	}
	petIDs := make([]int64, len(orders))
	for i, o := range orders {
		petIDs[i] = o.PetID
	}
	names, err := a.pets.Names(ctx, petIDs)
	if err != nil {
		return err
	}
	d.Orders = make([]views.OrderRow, len(orders))
	for i := range orders {
		d.Orders[i] = orderRow(&orders[i], names[orders[i].PetID])
	}
	endpoints, err := a.clientWebhooks(c, id)
	if err != nil {
		return err
	}
	d.Webhooks = views.ClientWebhooks(endpoints)
	if d.Audit, d.AuditURL, err = a.objectAudit(c, models.ObjectClient, id); err != nil {
		return err
	}
	return render(c, views.ClientDetail(page(c, cl.Name, views.SectionClients), d))
}

// createClientKey issues a key for the client with the chosen scopes and shows it once.
func (a *admin) createClientKey(c *fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if _, err := a.clients.Get(c.UserContext(), id); err != nil {
		return err
	}
	return a.issueKey(c, id, a.renderClient)
}

package routes

import (
	"context"
	"strconv"
	"time"

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

func renderClients(c *fiber.Ctx, clients *models.ClientStore, now func() time.Time, form views.ClientForm) error {
	list, err := clients.List(c.UserContext(), now())
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
func listClients(kv keyViews, export exporter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if csv, err := wantsCSV(adminQuery(c)); csv || err != nil {
			if err != nil {
				return err
			}
			return exportClients(c, kv.clients, export)
		}
		return renderClients(c, kv.clients, kv.now, views.ClientForm{})
	}
}

// exportClients writes every client as CSV, with the numbers its list shows. Clients are few,
// and read in one go.
func exportClients(c *fiber.Ctx, clients *models.ClientStore, export exporter) error {
	list, err := clients.List(c.UserContext(), export.now())
	if err != nil {
		return err
	}
	header := []string{"id", "name", "email", "created", "keys", "active keys", "orders"}
	return export.csv(c, "clients", header, func(_ context.Context, rows csvRows) error {
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
func createClient(sessions adminSessions, kv keyViews) fiber.Handler {
	return func(c *fiber.Ctx) error {
		f := views.ClientForm{Name: c.FormValue("name"), Email: c.FormValue("email")}
		cl, err := kv.clients.Create(c.UserContext(), models.NewClient{Name: f.Name, Email: f.Email})
		if err != nil {
			if !formRefusal(err) {
				return err
			}
			f.Errors = models.FieldMessages(err)
			c.Status(statusOf(err))
			return renderClients(c, kv.clients, kv.now, f)
		}
		return sessions.redirectWithFlash(c, "/admin/clients/"+strconv.FormatInt(cl.ID, 10), "Added the client "+cl.Name+". Issue it a key below.")
	}
}

// showClient is a client's page: its keys, its recent orders, its webhook endpoints, and a form
// to issue it a key.
func showClient(kv keyViews, orders *models.OrderStore, pets *models.PetStore, webhooks *models.WebhookStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error { return renderClient(c, kv, orders, pets, webhooks, trail, newKeyForm()) }
}

func renderClient(c *fiber.Ctx, kv keyViews, orders *models.OrderStore, pets *models.PetStore, webhooks *models.WebhookStore, trail auditTrail, form views.KeyForm) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	cl, err := kv.clients.Get(ctx, id)
	if err != nil {
		return err
	}
	summaries, err := kv.clients.List(ctx, kv.now())
	if err != nil {
		return err
	}
	d := views.ClientDetailProps{Client: views.ClientRow{ID: cl.ID, Name: cl.Name, Email: cl.Email, CreatedAt: cl.CreatedAt}, KeyForm: form}
	for i := range summaries {
		if summaries[i].ID == id {
			d.Client = clientRow(&summaries[i])
		}
	}
	keys, err := kv.keys.ListForClient(ctx, id)
	if err != nil {
		return err
	}
	if d.Keys, err = kv.rows(c, keys); err != nil {
		return err
	}
	placed, err := orders.ListForClient(ctx, id, clientOrdersShown)
	if err != nil {
		return err
	}
	petIDs := make([]int64, len(placed))
	for i, o := range placed {
		petIDs[i] = o.PetID
	}
	names, err := pets.Names(ctx, petIDs)
	if err != nil {
		return err
	}
	d.Orders = make([]views.OrderRow, len(placed))
	for i := range placed {
		d.Orders[i] = orderRow(&placed[i], names[placed[i].PetID])
	}
	endpoints, err := clientWebhooks(c, webhooks, id)
	if err != nil {
		return err
	}
	d.Webhooks = views.ClientWebhooks(endpoints)
	if d.Audit, d.AuditURL, err = trail.objectAudit(c, models.ObjectClient, id); err != nil {
		return err
	}
	return render(c, views.ClientDetail(page(c, cl.Name, views.SectionClients), d))
}

// createClientKey issues a key for the client with the chosen scopes and shows it once.
func createClientKey(sessions adminSessions, kv keyViews, orders *models.OrderStore, pets *models.PetStore, webhooks *models.WebhookStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		if _, err := kv.clients.Get(c.UserContext(), id); err != nil {
			return err
		}
		return issueKey(c, sessions, kv.keys, id, func(c *fiber.Ctx, f views.KeyForm) error {
			return renderClient(c, kv, orders, pets, webhooks, trail, f)
		})
	}
}

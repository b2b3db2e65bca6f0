package routes

import (
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// endpointAttemptsShown is how many of an endpoint's most recent attempts its page shows.
const endpointAttemptsShown = 50

// endpointRow shows an endpoint in its state (a failing one is never "active") and since when.
func endpointRow(e *models.WebhookEndpoint) views.EndpointRow {
	r := views.EndpointRow{ID: e.ID, ClientID: e.ClientID, URL: e.URL, Description: e.Description, State: e.State(),
		FailingSince: e.FailingSince, Since: e.Since(), CreatedAt: e.CreatedAt}
	for _, t := range e.Events.List() {
		r.Events = append(r.Events, string(t))
	}
	if r.State == models.EndpointDisabled {
		r.DisabledWhy = map[string]string{models.DisabledByClient: "by the client",
			models.DisabledByFailing: "after 5 days of failed deliveries"}[e.DisabledReason]
	}
	return r
}

// endpointRows are endpoints of several clients, each with its client's name.
func endpointRows(c *fiber.Ctx, clients *models.ClientStore, list []models.WebhookEndpoint) ([]views.EndpointRow, error) {
	ids := make([]int64, 0, len(list))
	for _, e := range list {
		if !slices.Contains(ids, e.ClientID) {
			ids = append(ids, e.ClientID)
		}
	}
	names, err := clients.Names(c.UserContext(), ids)
	rows := make([]views.EndpointRow, len(list))
	for i := range list {
		rows[i] = endpointRow(&list[i])
		rows[i].ClientName = names[list[i].ClientID]
	}
	return rows, err
}

// webhooksShown bounds the endpoints in trouble listed at once.
const webhooksShown = 500

// listWebhooks lists the webhook endpoints in trouble, every client's: failing or disabled
// (?state=), the longest in trouble first.
func listWebhooks(clients *models.ClientStore, webhooks *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		state, err := adminQuery(c).one("state")
		if err != nil {
			return err
		}
		if state != "" && state != models.EndpointFailing && state != models.EndpointDisabled {
			return &models.Error{Code: models.EInvalid, Field: "state", Message: "state: must be failing or disabled, or left out for both"}
		}
		list, err := webhooks.Troubled(c.UserContext(), webhooksShown)
		if err != nil {
			return err
		}
		kept := list[:0]
		for _, e := range list {
			if state == "" || e.State() == state {
				kept = append(kept, e)
			}
		}
		rows, err := endpointRows(c, clients, kept)
		if err != nil {
			return err
		}
		return render(c, views.WebhooksList(page(c, "Webhook endpoints in trouble", views.SectionClients), views.WebhooksListProps{State: state, Rows: rows}))
	}
}

// clientWebhooks is the webhook endpoints section of a client's page.
func clientWebhooks(c *fiber.Ctx, webhooks *models.WebhookStore, clientID int64) ([]views.EndpointRow, error) {
	list, err := webhooks.ForClient(c.UserContext(), clientID)
	rows := make([]views.EndpointRow, len(list))
	for i := range list {
		rows[i] = endpointRow(&list[i])
	}
	return rows, err
}

// clientEndpoint reads the endpoint of the path, which must be the path's client's.
func clientEndpoint(c *fiber.Ctx, clients *models.ClientStore, webhooks *models.WebhookStore) (*models.Client, *models.WebhookEndpoint, error) {
	clientID, err := pathID(c, "id")
	if err != nil {
		return nil, nil, err
	}
	id, err := pathID(c, "endpoint")
	if err != nil {
		return nil, nil, err
	}
	cl, err := clients.Get(c.UserContext(), clientID)
	if err != nil {
		return nil, nil, err
	}
	e, err := webhooks.GetAny(c.UserContext(), id)
	if err == nil && e.ClientID != clientID {
		err = &models.Error{Code: models.ENotFound, Message: "webhook endpoint " + strconv.FormatInt(id, 10) + " is not this client's"}
	}
	return cl, e, err
}

// showEndpoint is a webhook endpoint's page: its recent attempts, each event's resending, and
// enabling it again.
func showEndpoint(clients *models.ClientStore, webhooks *models.WebhookStore, events *models.EventStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		cl, e, err := clientEndpoint(c, clients, webhooks)
		if err != nil {
			return err
		}
		ctx := c.UserContext()
		attempts, err := webhooks.Attempts(ctx, e.ID, endpointAttemptsShown)
		if err != nil {
			return err
		}
		d := views.EndpointDetailProps{ClientName: cl.Name, Endpoint: endpointRow(e), Attempts: make([]views.AttemptRow, len(attempts))}
		for i, at := range attempts {
			ev := models.Event{ID: at.EventID}
			d.Attempts[i] = views.AttemptRow{At: at.At, EventID: at.EventID, EventType: string(at.EventType), Attempt: at.Attempt,
				StatusCode: at.StatusCode, Duration: at.Duration, Error: at.Error, Outcome: at.Outcome}
			if full, err := events.Get(ctx, at.EventID); err == nil {
				ev = *full
			}
			d.Attempts[i].EventName = ev.PublicID()
		}
		if d.Audit, d.AuditURL, err = trail.objectAudit(c, models.ObjectWebhookEndpoint, e.ID); err != nil {
			return err
		}
		return render(c, views.EndpointDetail(page(c, "Webhook endpoint", views.SectionClients), d))
	}
}

// enableEndpoint enables a disabled endpoint again: deliveries of new events resume.
func enableEndpoint(sessions adminSessions, clients *models.ClientStore, webhooks *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		_, e, err := clientEndpoint(c, clients, webhooks)
		if err != nil {
			return err
		}
		if e.DeletedAt.Valid {
			return models.Errorf(models.EConflict, "the client deleted this endpoint; it cannot be enabled")
		}
		if _, err := webhooks.Enable(c.UserContext(), e.ID, models.ActorOf(c.UserContext())); err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, endpointAdminPath(e), "Enabled the endpoint: new events are delivered to it again.")
	}
}

// resendEvent delivers one event to the endpoint once more, as a new delivery with retries.
func resendEvent(sessions adminSessions, clients *models.ClientStore, webhooks *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		_, e, err := clientEndpoint(c, clients, webhooks)
		if err != nil {
			return err
		}
		eventID, err := parseID("event", c.FormValue("event"))
		if err != nil {
			return err
		}
		if e.DeletedAt.Valid {
			return models.Errorf(models.EConflict, "the client deleted this endpoint; nothing is delivered to it")
		}
		if err := webhooks.Resend(c.UserContext(), eventID, e.ID); err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, endpointAdminPath(e), "Queued the event for delivery again.")
	}
}

func endpointAdminPath(e *models.WebhookEndpoint) string {
	return "/admin/clients/" + strconv.FormatInt(e.ClientID, 10) + "/endpoints/" + strconv.FormatInt(e.ID, 10)
}

// endpointByID leads from an endpoint's id (the audit log's link) to its page under its client.
func endpointByID(webhooks *models.WebhookStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "endpoint")
		if err != nil {
			return err
		}
		e, err := webhooks.GetAny(c.UserContext(), id)
		if err != nil {
			return err
		}
		return c.Redirect(endpointAdminPath(e), fiber.StatusSeeOther)
	}
}

package routes

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// dashboardTroubleShown is how many troubled webhook endpoints the dashboard names.
const dashboardTroubleShown = 5

// dashboardChangesShown is how many of the latest changes the dashboard shows.
const dashboardChangesShown = 5

// dashboard is the work waiting and the problems first, each linked to the list that holds it,
// then the counts a shift starts with. Webhook endpoints, keys and the audit log show only to the
// roles that may open their pages (models.Rights).
func dashboard(clock storeClock, kv keyViews, pets *models.PetStore, orders *models.OrderStore, webhooks *models.WebhookStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		today := clock.today()
		day := today.Format(time.DateOnly)
		work, err := orders.Work(ctx, today)
		if err != nil {
			return err
		}
		d := views.DashboardProps{Today: day, Work: []views.Stat{
			{Label: "Orders waiting for approval", Key: "waiting", N: work.Waiting.N, About: about(work.Waiting), URL: "/admin/orders?status=placed&sort=placed", Alert: true},
			{Label: "Due to ship today", Key: "due-today", N: work.DueToday.N, About: about(work.DueToday), URL: ordersURL(url.Values{"status": {statusLive}, "shipFrom": {day}, "shipTo": {day}}), Alert: true},
			{Label: "Overdue (ship date passed)", Key: "overdue", N: work.Overdue.N, About: about(work.Overdue), URL: ordersURL(url.Values{"status": {statusLive}, "shipTo": {today.AddDate(0, 0, -1).Format(time.DateOnly)}}), Alert: true},
		}}
		role := currentStaff(c).Role
		if role.May(models.RightClients) {
			failing, disabled, err := webhooks.CountTroubled(ctx)
			if err != nil {
				return err
			}
			d.Work = append(d.Work,
				views.Stat{Label: "Failing webhook endpoints", Key: "failing", N: failing, URL: "/admin/webhooks?state=" + models.EndpointFailing, Alert: true},
				views.Stat{Label: "Disabled webhook endpoints", Key: "disabled", N: disabled, URL: "/admin/webhooks?state=" + models.EndpointDisabled, Alert: true})
			troubled, err := webhooks.Troubled(ctx, dashboardTroubleShown)
			if err != nil {
				return err
			}
			if d.Troubled, err = endpointRows(c, kv.clients, troubled); err != nil {
				return err
			}
		}
		if role.May(models.RightKeys) {
			banned, err := kv.keys.CountBanned(ctx, clock.now())
			if err != nil {
				return err
			}
			d.Work = append(d.Work, views.Stat{Label: "API keys banned now", Key: "banned", N: banned, URL: "/admin/keys?state=" + models.KeyBanned, Alert: true})
		}
		if role.May(models.RightAudit) {
			changes, err := trail.audit.List(ctx, models.AuditFilter{}, models.Page{Limit: dashboardChangesShown, Sort: models.AuditOrder})
			if err != nil {
				return err
			}
			if d.Changes, err = trail.auditRows(c, changes.Items); err != nil {
				return err
			}
			d.ShowChanges = true
		}
		// By status, counted as the lists count (models.Total): estimated, and marked so, in a large
		// store, where exact counts of every pet would cost the page hundreds of milliseconds.
		byStatus, exact, err := pets.StatusTotals(ctx)
		if err != nil {
			return err
		}
		for _, s := range models.PetStatuses {
			d.Pets = append(d.Pets, views.Stat{Key: string(s), Badge: true, N: byStatus[s], About: !exact, URL: "/admin/pets?status=" + string(s)})
		}
		byOrderStatus, exact, err := orders.StatusTotals(ctx)
		if err != nil {
			return err
		}
		for _, s := range models.OrderStatuses {
			d.Orders = append(d.Orders, views.Stat{Key: string(s), Badge: true, N: byOrderStatus[s], About: !exact, URL: "/admin/orders?status=" + string(s)})
		}
		traffic, err := kv.limiter.Today(ctx)
		if err != nil {
			return err
		}
		d.Traffic = []views.Stat{
			{Label: "Requests served", Key: "admitted", N: int64(traffic.Admitted)},
			{Label: "Refused with 429", Key: "refused", N: int64(traffic.Refused), Alert: true},
		}
		return render(c, views.Dashboard(page(c, "Dashboard", views.SectionDashboard), d))
	}
}

// about reports whether a count is shown as an estimate; one that ran out of time both ways (0
// and not exact) is too.
func about(t models.Total) bool { return !t.Exact }

func ordersURL(q url.Values) string { return "/admin/orders?" + q.Encode() }

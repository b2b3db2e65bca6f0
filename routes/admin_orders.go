package routes

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

func orderRow(o *models.Order, petName string) views.OrderRow {
	return views.OrderRow{ID: o.ID, PetID: o.PetID, PetName: petName, Status: string(o.Status),
		ShipDate: o.ShipDate, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// historyRows writes status changes for the timeline, their actors by name as in the audit log.
func (a *admin) historyRows(c *fiber.Ctx, changes []models.StatusChange) ([]views.HistoryRow, error) {
	actors := make([]string, len(changes))
	for i := range changes {
		actors[i] = changes[i].Actor
	}
	names, err := a.audit.Actors(c.UserContext(), actors)
	if err != nil {
		return nil, err
	}
	admin := currentStaff(c).IsAdmin()
	out := make([]views.HistoryRow, len(changes))
	for i, h := range changes {
		out[i] = views.HistoryRow{At: h.CreatedAt, Actor: actorLink(names[h.Actor], admin), Action: string(h.Action),
			PetFrom: string(h.PetFrom), PetTo: string(h.PetTo), OrderFrom: string(h.OrderFrom), OrderTo: string(h.OrderTo)}
		if h.OrderID != nil {
			out[i].OrderID = *h.OrderID
		}
	}
	return out, nil
}

// orderColumns are the orders table's sortable columns; it shows the newest first by default.
var orderColumns = []sortColumn{
	{key: "placed", label: "Placed", newestFirst: true, asc: "Placed, oldest first", desc: "Placed, newest first"},
	{key: "id", label: "Order", num: true, asc: "Number, lowest first", desc: "Number, highest first"},
	{key: "status", label: "Status", asc: "Status, A to Z", desc: "Status, Z to A"},
	{key: "shipDate", label: "Ship date", newestFirst: true, asc: "Ship date, soonest first", desc: "Ship date, latest first"},
}

var newestOrdersFirst = models.Sort{Key: "placed", Desc: true}

// listOrders is the orders table: a status filter, a search (an order's id, or part of its pet's
// name), a sort and keyset pages with their total, in the query string; or, with format=csv, the
// whole filtered list as CSV.
func (a *admin) listOrders(c *fiber.Ctx) error {
	q := adminQuery(c)
	status, err := q.one("status")
	if err != nil {
		return err
	}
	search, err := q.one("q")
	if err != nil {
		return err
	}
	l := views.OrdersListProps{Status: status, Q: strings.TrimSpace(search)}
	if utf8.RuneCountInString(l.Q) > models.MaxNameLength {
		return models.Errorf(models.EInvalid, "q: must be at most %d characters", models.MaxNameLength)
	}
	f := models.OrderFilter{Search: l.Q}
	if f.Status, err = param(q, "status", models.ParseOrderStatus); err != nil {
		return err
	}
	sort, err := sortOf(q, orderColumns, newestOrdersFirst)
	if err != nil {
		return err
	}
	pg, err := listPage(q, sort)
	if err != nil {
		return err
	}
	if csv, err := wantsCSV(q); csv || err != nil {
		if err != nil {
			return err
		}
		return a.exportOrders(c, f, pg.Sort)
	}
	orders, err := a.orders.List(c.UserContext(), models.StaffOwner, f, pg)
	if err != nil {
		return err
	}
	ids := make([]int64, len(orders.Items))
	for i, o := range orders.Items {
		ids[i] = o.PetID
	}
	names, err := a.pets.Names(c.UserContext(), ids)
	if err != nil {
		return err
	}
	l.Rows = make([]views.OrderRow, len(orders.Items))
	for i := range orders.Items {
		l.Rows[i] = orderRow(&orders.Items[i], names[orders.Items[i].PetID])
	}
	l.Pager = pager(c, pg, orders)
	l.Sort = sortHeaders(c, orderColumns, pg.Sort, newestOrdersFirst)
	l.CSVURL = withQuery(c, "format", "csv")
	l.SortOptions = sortOptions(orderColumns, newestOrdersFirst)
	if pg.Sort != newestOrdersFirst {
		l.SortParam = pg.Sort.String()
	}
	return render(c, views.OrdersList(page(c, "Orders", views.SectionOrders), l))
}

// exportOrders streams the filtered orders, in the table's order, as CSV.
func (a *admin) exportOrders(c *fiber.Ctx, f models.OrderFilter, sort models.Sort) error {
	header := []string{"id", "pet id", "pet", "status", "ship date", "placed", "updated"}
	return a.exportCSV(c, "orders", header, func(ctx context.Context, rows csvRows) error {
		return exportPages(ctx, a.dbTimeout, models.Page{Sort: sort}, func(ctx context.Context, pg models.Page) (models.Paged[models.Order], error) {
			return a.orders.List(ctx, models.StaffOwner, f, pg)
		}, func(ctx context.Context, orders []models.Order) error {
			ids := make([]int64, len(orders))
			for i := range orders {
				ids[i] = orders[i].PetID
			}
			names, err := a.pets.Names(ctx, ids)
			if err != nil {
				return err
			}
			for i := range orders {
				o := &orders[i]
				ship := ""
				if o.ShipDate != nil {
					ship = o.ShipDate.UTC().Format(time.DateOnly)
				}
				err := rows.Row(strconv.FormatInt(o.ID, 10), strconv.FormatInt(o.PetID, 10), names[o.PetID], string(o.Status),
					ship, rows.Time(&o.CreatedAt), rows.Time(&o.UpdatedAt))
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// showOrder is an order's page.
func (a *admin) showOrder(c *fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	return a.renderOrder(c, id, "")
}

// orderActionLabels are the buttons' words; cancel asks for a confirmation first.
var orderActionLabels = map[models.Action]views.OrderAction{
	models.ActionApprove: {Action: "approve", Label: "Approve"},
	models.ActionDeliver: {Action: "deliver", Label: "Mark delivered"},
	models.ActionCancel:  {Action: "cancel", Label: "Cancel order", Danger: true, Keep: "Keep the order"},
}

// orderActionDone says what each action would have made of the order, for a refusal.
var orderActionDone = map[models.Action]string{
	models.ActionApprove: "approved", models.ActionDeliver: "marked delivered", models.ActionCancel: "cancelled",
}

// renderOrder shows an order with exactly the actions its status allows (the lifecycle's own
// list); refusal is why the last action was refused.
func (a *admin) renderOrder(c *fiber.Ctx, id int64, refusal string) error {
	ctx := c.UserContext()
	o, err := a.orders.Get(ctx, id, models.StaffOwner)
	if err != nil {
		return err
	}
	p, err := a.pets.GetAny(ctx, o.PetID)
	if err != nil {
		return err
	}
	history, err := a.orders.History(ctx, id)
	if err != nil {
		return err
	}
	d := views.OrderDetailProps{Order: orderRow(o, p.Name), Error: refusal}
	if d.History, err = a.historyRows(c, history); err != nil {
		return err
	}
	for _, act := range o.Actions() {
		d.Actions = append(d.Actions, orderActionLabels[act])
	}
	if d.Audit, d.AuditURL, err = a.objectAudit(c, models.ObjectOrder, id); err != nil {
		return err
	}
	return render(c, views.OrderDetail(page(c, "Order #"+strconv.FormatInt(id, 10), views.SectionOrders), d))
}

// allowedWords lists actions as a sentence says them.
func allowedWords(acts []models.Action) string {
	if len(acts) == 0 {
		return "nothing more"
	}
	words := make([]string, len(acts))
	for i, act := range acts {
		words[i] = strings.ToLower(orderActionLabels[act].Label)
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// orderAction approves, delivers or cancels an order through the lifecycle's rules; an action
// its status no longer allows (a stale page) shows the order again with the reason.
func (a *admin) orderAction(act models.Action) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		o, err := a.orders.Apply(c.UserContext(), id, act, models.StaffActor(currentStaff(c).Username))
		if models.ErrorCode(err) == models.EConflict {
			// The page was stale: someone else moved the order on. Say so, and show it as it is now.
			now, gerr := a.orders.Get(c.UserContext(), id, models.StaffOwner)
			if gerr != nil {
				return gerr
			}
			c.Status(fiber.StatusConflict)
			return a.renderOrder(c, id, "Order #"+strconv.FormatInt(id, 10)+" was not "+orderActionDone[act]+
				": it is "+string(now.Status)+" now, which allows "+allowedWords(now.Actions())+".")
		}
		if err != nil {
			return err
		}
		return a.redirectWithFlash(c, "/admin/orders/"+strconv.FormatInt(id, 10), "Order #"+strconv.FormatInt(id, 10)+" is now "+string(o.Status)+".")
	}
}

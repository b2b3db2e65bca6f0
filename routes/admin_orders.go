package routes

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

func orderRow(o *models.Order, petName string) views.OrderRow {
	r := views.OrderRow{ID: o.ID, PetID: o.PetID, PetName: petName, Status: string(o.Status),
		ShipDate: o.ShipDate, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	if o.ClientID != nil {
		r.ClientID = *o.ClientID
	}
	return r
}

// statusLive is the status filter's choice for the orders that still hold their pet.
const statusLive = "live"

// dateParam reads a day such as 2026-11-28 from the query; the zero time when absent.
func dateParam(q query, name string) (time.Time, error) {
	s, err := q.one(name)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, &models.Error{Code: models.EInvalid, Field: name, Message: name + ": must be a day such as 2026-11-28, got " + strconv.Quote(s)}
	}
	return d, nil
}

// orderFilter reads the orders table's filters: status (or live), search, client, and the days
// placed (the store's days) and to ship (calendar days), each range with both ends included.
func orderFilter(ctx context.Context, clients *models.ClientStore, zone *time.Location, q query, l *views.OrdersListProps) (models.OrderFilter, error) {
	var f models.OrderFilter
	var err error
	if l.Status, err = q.one("status"); err != nil {
		return f, err
	}
	search, err := q.one("q")
	if err != nil {
		return f, err
	}
	l.Q = strings.TrimSpace(search)
	if utf8.RuneCountInString(l.Q) > models.MaxNameLength {
		return f, models.Errorf(models.EInvalid, "q: must be at most %d characters", models.MaxNameLength)
	}
	f.Search = l.Q
	if l.Status == statusLive {
		f.Live = true
	} else if f.Status, err = param(q, "status", models.ParseOrderStatus); err != nil {
		return f, err
	}
	if l.Client, err = q.one("client"); err != nil {
		return f, err
	}
	if f.ClientID, err = clients.Pick(ctx, "client", l.Client); err != nil {
		return f, invalidParam(err)
	}
	days := []struct {
		name string
		day  *time.Time
		text *string
	}{{"placedFrom", &f.PlacedFrom, &l.PlacedFrom}, {"placedTo", &f.PlacedTo, &l.PlacedTo}, {"shipFrom", &f.ShipFrom, &l.ShipFrom}, {"shipTo", &f.ShipTo, &l.ShipTo}}
	for _, d := range days {
		if *d.day, err = dateParam(q, d.name); err != nil {
			return f, err
		}
		if !d.day.IsZero() {
			*d.text = d.day.Format(time.DateOnly)
		}
	}
	if !f.PlacedTo.IsZero() && f.PlacedTo.Before(f.PlacedFrom) {
		return f, &models.Error{Code: models.EInvalid, Field: "placedTo", Message: "placedTo: must not be before placedFrom"}
	}
	if !f.ShipTo.IsZero() && f.ShipTo.Before(f.ShipFrom) {
		return f, &models.Error{Code: models.EInvalid, Field: "shipTo", Message: "shipTo: must not be before shipFrom"}
	}
	// The store's days for when orders were placed; ship dates are calendar days, stored at UTC
	// midnight. A range's last day is included: it ends at the next day's start.
	if !f.PlacedFrom.IsZero() {
		f.PlacedFrom = time.Date(f.PlacedFrom.Year(), f.PlacedFrom.Month(), f.PlacedFrom.Day(), 0, 0, 0, 0, zone)
	}
	if !f.PlacedTo.IsZero() {
		f.PlacedTo = time.Date(f.PlacedTo.Year(), f.PlacedTo.Month(), f.PlacedTo.Day()+1, 0, 0, 0, 0, zone)
	}
	if !f.ShipTo.IsZero() {
		_, f.ShipTo = models.DayRange(f.ShipTo)
	}
	return f, nil
}

// historyRows writes status changes for the timeline, their actors by name as in the audit log.
func (t auditTrail) historyRows(c *fiber.Ctx, changes []models.StatusChange) ([]views.HistoryRow, error) {
	actors := make([]string, len(changes))
	for i := range changes {
		actors[i] = changes[i].Actor
	}
	names, err := t.audit.Actors(c.UserContext(), actors)
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

// adminListOrders is the orders table: a status filter, a search (an order's id, or part of its pet's
// name), a sort and keyset pages with their total, in the query string; or, with format=csv, the
// whole filtered list as CSV.
func adminListOrders(orders *models.OrderStore, pets *models.PetStore, clients *models.ClientStore, zone *time.Location, export exporter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q := adminQuery(c)
		var l views.OrdersListProps
		f, err := orderFilter(c.UserContext(), clients, zone, q, &l)
		if err != nil {
			return err
		}
		if f.ClientID != 0 {
			cl, err := clients.Get(c.UserContext(), f.ClientID)
			if err != nil {
				return err
			}
			l.ClientID, l.ClientName = cl.ID, cl.Name
			l.Client = models.Named{ID: cl.ID, Name: cl.Name}.Suggestion(true)
		}
		if l.Clients, err = clients.Suggest(c.UserContext(), ""); err != nil {
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
			return exportOrders(c, orders, pets, clients, export, f, pg.Sort)
		}
		list, err := orders.List(c.UserContext(), models.StaffOwner, f, pg)
		if err != nil {
			return err
		}
		ids := make([]int64, len(list.Items))
		for i, o := range list.Items {
			ids[i] = o.PetID
		}
		names, err := pets.Names(c.UserContext(), ids)
		if err != nil {
			return err
		}
		clientNames, err := clients.Names(c.UserContext(), orderClients(list.Items))
		if err != nil {
			return err
		}
		l.Rows = make([]views.OrderRow, len(list.Items))
		for i := range list.Items {
			l.Rows[i] = orderRow(&list.Items[i], names[list.Items[i].PetID])
			l.Rows[i].ClientName = clientNames[l.Rows[i].ClientID]
		}
		l.Admin = currentStaff(c).Role.May(models.RightClients)
		l.Back = c.OriginalURL()
		l.Pager = pager(c, pg, list)
		l.Sort = sortHeaders(c, orderColumns, pg.Sort, newestOrdersFirst)
		l.CSVURL = withQuery(c, "format", "csv")
		l.SortOptions = sortOptions(orderColumns, newestOrdersFirst)
		if pg.Sort != newestOrdersFirst {
			l.SortParam = pg.Sort.String()
		}
		return render(c, views.OrdersList(page(c, "Orders", views.SectionOrders), l))
	}
}

// orderClients are the clients of orders, once each.
func orderClients(orders []models.Order) []int64 {
	var ids []int64
	for _, o := range orders {
		if o.ClientID != nil && !slices.Contains(ids, *o.ClientID) {
			ids = append(ids, *o.ClientID)
		}
	}
	return ids
}

// exportOrders streams the filtered orders, in the table's order, as CSV.
func exportOrders(c *fiber.Ctx, orders *models.OrderStore, pets *models.PetStore, clients *models.ClientStore, export exporter, f models.OrderFilter, sort models.Sort) error {
	header := []string{"id", "pet id", "pet", "status", "ship date", "placed", "updated", "client id", "client"}
	return export.csv(c, "orders", header, func(ctx context.Context, rows csvRows) error {
		return exportPages(ctx, export.timeout, models.Page{Sort: sort}, func(ctx context.Context, pg models.Page) (models.Paged[models.Order], error) {
			return orders.List(ctx, models.StaffOwner, f, pg)
		}, func(ctx context.Context, batch []models.Order) error {
			ids := make([]int64, len(batch))
			for i := range batch {
				ids[i] = batch[i].PetID
			}
			names, err := pets.Names(ctx, ids)
			if err != nil {
				return err
			}
			clientNames, err := clients.Names(ctx, orderClients(batch))
			if err != nil {
				return err
			}
			for i := range batch {
				o := &batch[i]
				ship, client, clientName := "", "", ""
				if o.ShipDate != nil {
					ship = o.ShipDate.UTC().Format(time.DateOnly)
				}
				if o.ClientID != nil {
					client, clientName = strconv.FormatInt(*o.ClientID, 10), clientNames[*o.ClientID]
				}
				err := rows.Row(strconv.FormatInt(o.ID, 10), strconv.FormatInt(o.PetID, 10), names[o.PetID], string(o.Status),
					ship, rows.Time(&o.CreatedAt), rows.Time(&o.UpdatedAt), client, clientName)
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// showOrder is an order's page.
func showOrder(orders *models.OrderStore, pets *models.PetStore, trail auditTrail) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		return renderOrder(c, orders, pets, trail, id, "")
	}
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
func renderOrder(c *fiber.Ctx, orders *models.OrderStore, pets *models.PetStore, trail auditTrail, id int64, refusal string) error {
	return renderOrderWith(c, orders, pets, trail, id, func(d *views.OrderDetailProps) { d.Error = refusal })
}

// renderOrderEarly asks, on the order's page, to confirm delivering it before its ship date.
func renderOrderEarly(c *fiber.Ctx, orders *models.OrderStore, pets *models.PetStore, trail auditTrail, id int64) error {
	return renderOrderWith(c, orders, pets, trail, id, func(d *views.OrderDetailProps) { d.ConfirmEarly = true })
}

func renderOrderWith(c *fiber.Ctx, orders *models.OrderStore, pets *models.PetStore, trail auditTrail, id int64, set func(*views.OrderDetailProps)) error {
	ctx := c.UserContext()
	o, err := orders.Get(ctx, id, models.StaffOwner)
	if err != nil {
		return err
	}
	p, err := pets.GetAny(ctx, o.PetID)
	if err != nil {
		return err
	}
	history, err := orders.History(ctx, id)
	if err != nil {
		return err
	}
	d := views.OrderDetailProps{Order: orderRow(o, p.Name)}
	set(&d)
	if d.History, err = trail.historyRows(c, history); err != nil {
		return err
	}
	for _, act := range o.Actions() {
		d.Actions = append(d.Actions, orderActionLabels[act])
	}
	if d.Audit, d.AuditURL, err = trail.objectAudit(c, models.ObjectOrder, id); err != nil {
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
func orderAction(sessions adminSessions, clock storeClock, orders *models.OrderStore, pets *models.PetStore, trail auditTrail, act models.Action) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		if act == models.ActionDeliver && c.FormValue("early") != "yes" {
			o, err := orders.Get(c.UserContext(), id, models.StaffOwner)
			if err != nil {
				return err
			}
			if o.EarlyOn(clock.today()) {
				return renderOrderEarly(c, orders, pets, trail, id)
			}
		}
		o, err := orders.Apply(c.UserContext(), id, act, models.StaffActor(currentStaff(c).Username))
		if models.ErrorCode(err) == models.EConflict {
			// The page was stale: someone else moved the order on. Say so, and show it as it is now.
			now, gerr := orders.Get(c.UserContext(), id, models.StaffOwner)
			if gerr != nil {
				return gerr
			}
			c.Status(fiber.StatusConflict)
			return renderOrder(c, orders, pets, trail, id, "Order #"+strconv.FormatInt(id, 10)+" was not "+orderActionDone[act]+
				": it is "+string(now.Status)+" now, which allows "+allowedWords(now.Actions())+".")
		}
		if err != nil {
			return err
		}
		return sessions.redirectWithFlash(c, "/admin/orders/"+strconv.FormatInt(id, 10), "Order #"+strconv.FormatInt(id, 10)+" is now "+string(o.Status)+".")
	}
}

// maxBulkOrders bounds one bulk action: the orders ticked on a page of the table, with room.
const maxBulkOrders = 100

// orderBulkVerbs say what a bulk action did to an order, and what a refusal did not do.
var orderBulkVerbs = map[models.Action]string{
	models.ActionApprove: "approved", models.ActionDeliver: "delivered", models.ActionCancel: "cancelled",
}

// bulkOrders approves, delivers or cancels the orders ticked in the orders table. The first post
// shows the orders and what will be done, with those that would be delivered before their ship
// date marked; the confirmed one does it, order by order through the lifecycle's rules
// (ApplyEach), and shows what came of each.
func bulkOrders(clock storeClock, orders *models.OrderStore, pets *models.PetStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		back := safeNext(c.FormValue("back"))
		if back != "/admin/orders" && !strings.HasPrefix(back, "/admin/orders?") {
			back = "/admin/orders"
		}
		act, err := models.ParseAction("action", c.FormValue("action"))
		if err != nil {
			return invalidParam(err)
		}
		ids, err := checkedIDs(c, maxBulkOrders, "orders")
		if err != nil {
			return err
		}
		ctx := c.UserContext()
		b := views.OrderBulkProps{Action: string(act), Label: orderActionLabels[act].Label, Done: orderBulkVerbs[act], Back: back}
		if len(ids) == 0 {
			c.Status(fiber.StatusBadRequest)
			return render(c, views.OrderBulkNothing(page(c, "No orders selected", views.SectionOrders), back))
		}
		if c.FormValue("confirm") != "yes" {
			today := clock.today()
			b.Today = today.Format(time.DateOnly)
			for _, id := range ids {
				o, err := orders.Get(ctx, id, models.StaffOwner)
				if models.ErrorCode(err) == models.ENotFound {
					continue
				}
				if err != nil {
					return err
				}
				r := orderRow(o, "")
				r.Early = act == models.ActionDeliver && o.EarlyOn(today) && slices.Contains(o.Actions(), act)
				b.Orders = append(b.Orders, r)
			}
			if err := namePets(ctx, pets, b.Orders); err != nil {
				return err
			}
			return render(c, views.OrderBulkConfirm(page(c, "Confirm a bulk change", views.SectionOrders), b))
		}
		results, err := orders.ApplyEach(ctx, ids, act, models.StaffActor(currentStaff(c).Username))
		if err != nil {
			return err
		}
		for _, r := range results {
			row := views.OrderResultRow{Order: views.OrderRow{ID: r.ID}}
			switch {
			case r.Order == nil:
				row.Message = "is no longer there."
			case r.Refusal != nil:
				row.Order = orderRow(r.Order, "")
				row.Message = "was not " + orderBulkVerbs[act] + ": it is " + string(r.Order.Status) + ", which allows " + allowedWords(r.Order.Actions()) + "."
			default:
				row.Order, row.OK = orderRow(r.Order, ""), true
				b.Changed++
				row.Message = "is now " + string(r.Order.Status) + "."
			}
			b.Results = append(b.Results, row)
		}
		rows := make([]views.OrderRow, len(b.Results))
		for i := range b.Results {
			rows[i] = b.Results[i].Order
		}
		if err := namePets(ctx, pets, rows); err != nil {
			return err
		}
		for i := range b.Results {
			b.Results[i].Order = rows[i]
		}
		return render(c, views.OrderBulkDone(page(c, "Bulk change", views.SectionOrders), b))
	}
}

// namePets fills in the pet names of order rows.
func namePets(ctx context.Context, pets *models.PetStore, rows []views.OrderRow) error {
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = rows[i].PetID
	}
	names, err := pets.Names(ctx, ids)
	for i := range rows {
		rows[i].PetName = names[rows[i].PetID]
	}
	return err
}

package routes

import (
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// dashboard shows the counts a shift starts with.
func (a *admin) dashboard(c *fiber.Ctx) error {
	byStatus, err := a.pets.CountByStatus(c.UserContext())
	if err != nil {
		return err
	}
	var d views.DashboardProps
	for _, s := range models.PetStatuses {
		d.Pets = append(d.Pets, views.Stat{Key: string(s), Badge: true, N: byStatus[s], URL: "/admin/pets?status=" + string(s)})
	}
	orders, err := a.orders.CountByStatus(c.UserContext())
	if err != nil {
		return err
	}
	for _, s := range models.OrderStatuses {
		d.Orders = append(d.Orders, views.Stat{Key: string(s), Badge: true, N: orders[s], URL: "/admin/orders?status=" + string(s)})
	}
	traffic, err := a.limiter.Today(c.UserContext())
	if err != nil {
		return err
	}
	d.Traffic = []views.Stat{
		{Label: "Requests served", Key: "admitted", N: int64(traffic.Admitted)},
		{Label: "Refused with 429", Key: "refused", N: int64(traffic.Refused), Alert: true},
	}
	return render(c, views.Dashboard(page(c, "Dashboard", views.SectionDashboard), d))
}

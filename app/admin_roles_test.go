package app_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// roleCase is how a right of models.Rights shows on the pages and is asked of the server: the
// page that offers it and what marks the offer there, and the requests that use it.
type roleCase struct {
	offeredOn, offer string
	requests         []roleRequest
}

type roleRequest struct {
	method, path string
	form         url.Values
}

func TestEachRoleIsOfferedAndAllowedExactlyWhatTheRightsTableSays(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	pet := createPets(t, s, 1, "Rex", models.PetAvailable)[0]
	get := func(path string) roleRequest { return roleRequest{method: "GET", path: path} }
	post := func(path string, kv ...string) roleRequest {
		form := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			form.Set(kv[i], kv[i+1])
		}
		return roleRequest{method: "POST", path: path, form: form}
	}
	cases := map[models.Right]roleCase{
		models.RightPets: {"/admin", `nav a[href="/admin/pets"]`, []roleRequest{
			get("/admin/pets"), get("/admin/suggest/categories?q=d"), post(fmt.Sprintf("/admin/pets/%d/status", pet.ID), "status", "pending")}},
		models.RightOrders: {"/admin", `nav a[href="/admin/orders"]`, []roleRequest{
			get("/admin/orders"), get("/admin/suggest/clients?q=a"), post(fmt.Sprintf("/admin/pets/%d/orders", pet.ID))}},
		models.RightAddCategory: {"/admin", `nav a[href="/admin/categories"]`, []roleRequest{
			get("/admin/categories"), post("/admin/categories", "name", "Ferrets")}},
		models.RightRenameCategory: {"/admin/categories", `[data-testid="rename-category"]`, []roleRequest{
			post("/admin/categories/1", "name", "Hounds")}},
		models.RightClients: {"/admin", `nav a[href="/admin/clients"]`, []roleRequest{
			get("/admin/clients"), post("/admin/clients", "name", "Kennel Co"), get("/admin/webhook-endpoints/1")}},
		models.RightKeys: {"/admin", `nav a[href="/admin/keys"]`, []roleRequest{
			get("/admin/keys"), post("/admin/keys", "name", "sync", "plan", "free")}},
		models.RightStaff: {"/admin", `nav a[href="/admin/staff"]`, []roleRequest{
			get("/admin/staff"), post("/admin/staff", "username", "eve", "password", "a long password 1", "role", "admin")}},
		models.RightAudit: {"/admin", `nav a[href="/admin/audit"]`, []roleRequest{get("/admin/audit")}},
	}
	if len(cases) != len(models.Rights) {
		t.Fatalf("the test covers %d rights, the table has %d", len(cases), len(models.Rights))
	}
	for _, role := range []struct {
		username, password string
		role               models.Role
	}{{"sam", staffPassword, models.RoleStaff}, {"ada", adminPassword, models.RoleAdmin}} {
		b := s.NewBrowser(t)
		b.Login(t, role.username, role.password)
		for _, row := range models.Rights {
			tc, ok := cases[row.Right]
			if !ok {
				t.Fatalf("no case for the right %s", row.Right)
			}
			allowed := role.role.May(row.Right)
			if allowed {
				p := b.Get(t, tc.offeredOn)
				if p.Doc.Find(tc.offer).Length() == 0 {
					t.Errorf("%s, %s: %s does not offer it (%s)", role.role, row.Right, tc.offeredOn, tc.offer)
				}
			} else {
				p := b.Get(t, tc.offeredOn)
				if p.StatusCode == http.StatusOK && p.Doc.Find(tc.offer).Length() != 0 {
					t.Errorf("%s, %s: %s offers what the role may not do (%s)", role.role, row.Right, tc.offeredOn, tc.offer)
				}
			}
			for _, r := range tc.requests {
				var res = func() (int, bool) {
					if r.method == "GET" {
						p := b.Get(t, r.path)
						return p.StatusCode, p.TestID("error-page").Length() == 1
					}
					b.Get(t, "/admin/pets")
					// A copy: Post adds this browser's token to the form it is given.
					p := b.Post(t, r.path, maps.Clone(r.form))
					return p.StatusCode, p.TestID("error-page").Length() == 1
				}
				status, errorPage := res()
				switch {
				case allowed && status == http.StatusForbidden:
					t.Errorf("%s, %s: %s %s refused with 403", role.role, row.Right, r.method, r.path)
				case !allowed && (status != http.StatusForbidden || !errorPage):
					t.Errorf("%s, %s: %s %s answered %d, want the 403 page", role.role, row.Right, r.method, r.path, status)
				}
			}
		}
	}
}

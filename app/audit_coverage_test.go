package app_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// Every route that changes something, through the API and through the admin pages, leaves its
// entry in the audit log: the actor, the object and what was done.
func TestEveryChangeThroughTheAPIOrTheAdminPagesIsAudited(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		api := "api-key:" + itoa(s.KeyID)
		type entry struct{ actor, object, action string }
		var want []entry
		expect := func(actor, object, action string) { want = append(want, entry{actor, object, action}) }
		send := func(method, target string, body any, status int) *apptest.Response {
			t.Helper()
			var buf bytes.Buffer
			if body != nil {
				fmt.Fprintf(&buf, "%s", body)
			}
			req := s.NewRequest(t, method, target, &buf)
			req.Header.Set("Content-Type", "application/json")
			res := s.Do(t, req)
			if res.StatusCode != status {
				t.Fatalf("%s %s: %d, want %d: %s", method, target, res.StatusCode, status, res.Body)
			}
			return res
		}

		// The API.
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		expect(api, "pet", "create")
		pet := "/v1/pets/" + itoa(p.ID)
		send(http.MethodPatch, pet, `{"name":"Max"}`, http.StatusOK)
		expect(api, "pet", "update")
		send(http.MethodPatch, pet, `{"status":"pending"}`, http.StatusOK)
		expect(api, "pet", "set_status")
		send(http.MethodPatch, pet, `{"status":"available"}`, http.StatusOK)
		expect(api, "pet", "set_status")
		var o struct{ ID int64 }
		send(http.MethodPost, "/v1/store/orders", fmt.Sprintf(`{"petId":%d}`, p.ID), http.StatusCreated).JSON(t, &o)
		expect(api, "order", "place")
		expect(api, "pet", "update") // taken by the order
		send(http.MethodPost, "/v1/store/orders/"+itoa(o.ID)+"/cancel", nil, http.StatusOK)
		expect(api, "order", "cancel")
		expect(api, "pet", "update")
		send(http.MethodDelete, pet, nil, http.StatusNoContent)
		expect(api, "pet", "delete")
		var hook struct{ ID int64 }
		send(http.MethodPost, "/v1/webhook-endpoints", `{"url":"http://127.0.0.1:9/hook","events":["pet.created"]}`, http.StatusCreated).JSON(t, &hook)
		expect(api, "webhook_endpoint", "create")
		hookPath := "/v1/webhook-endpoints/" + itoa(hook.ID)
		send(http.MethodPatch, hookPath, `{"disabled":true}`, http.StatusOK)
		expect(api, "webhook_endpoint", "update")
		send(http.MethodPost, hookPath+"/rotate-secret", nil, http.StatusOK)
		expect(api, "webhook_endpoint", "rotate_secret")

		// The admin pages.
		ada := s.NewBrowser(t)
		ada.Login(t, "ada", adminPassword)
		expect("staff:ada", "staff", "log_in")
		post := func(target string, form url.Values) {
			t.Helper()
			if res := ada.Post(t, target, form); res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusOK {
				t.Fatalf("POST %s: %d\n%s", target, res.StatusCode, res.Body)
			}
		}
		ada.Get(t, "/admin/pets")
		post("/admin/pets/"+itoa(p.ID)+"/restore", nil)
		expect("staff:ada", "pet", "restore")
		post("/admin/pets", url.Values{"name": {"Bella"}, "categoryId": {"2"}, "status": {"available"}})
		expect("staff:ada", "pet", "create")
		post("/admin/pets/"+itoa(p.ID), url.Values{"name": {"Rex"}, "categoryId": {"1"}})
		expect("staff:ada", "pet", "update")
		post("/admin/pets/"+itoa(p.ID)+"/status", url.Values{"status": {"sold"}})
		expect("staff:ada", "pet", "set_status")
		post("/admin/pets/bulk", url.Values{"action": {"available"}, "confirm": {"yes"}, "id": {itoa(p.ID)}})
		expect("staff:ada", "pet", "set_status")
		post("/admin/pets/"+itoa(p.ID)+"/orders", nil)
		expect("staff:ada", "order", "place")
		expect("staff:ada", "pet", "update")
		var order models.Order
		if err := s.DB.Order("id DESC").Take(&order).Error; err != nil {
			t.Fatal(err)
		}
		for _, act := range []string{"approve", "deliver"} {
			post("/admin/orders/"+itoa(order.ID)+"/"+act, nil)
			expect("staff:ada", "order", act)
		}
		expect("staff:ada", "pet", "update") // sold by the delivery
		post("/admin/pets/"+itoa(p.ID)+"/delete", nil)
		expect("staff:ada", "pet", "delete")
		post("/admin/categories", url.Values{"name": {"Horses"}})
		expect("staff:ada", "category", "create")
		post("/admin/categories/7", url.Values{"name": {"Ponies"}})
		expect("staff:ada", "category", "update")
		post("/admin/clients", url.Values{"name": {"Shop"}})
		expect("staff:ada", "client", "create")
		var client models.Client
		if err := s.DB.Where("name = ?", "Shop").Take(&client).Error; err != nil {
			t.Fatal(err)
		}
		post("/admin/clients/"+itoa(client.ID)+"/keys", url.Values{"name": {"Shop site"}, "plan": {"free"}, "scopes": {"pets:read"}})
		expect("staff:ada", "api_key", "create")
		var key models.APIKey
		if err := s.DB.Where("name = ?", "Shop site").Take(&key).Error; err != nil {
			t.Fatal(err)
		}
		keyPage := "/admin/keys/" + itoa(key.ID)
		post(keyPage+"/scopes", url.Values{"scopes": {"pets:read", "orders:read"}})
		expect("staff:ada", "api_key", "update")
		post(keyPage+"/plan", url.Values{"plan": {"pro"}})
		expect("staff:ada", "api_key", "update")
		post(keyPage+"/revoke", nil)
		expect("staff:ada", "api_key", "revoke")
		post("/admin/staff", url.Values{"username": {"tom"}, "password": {"new hire password 1"}, "role": {"staff"}})
		expect("staff:ada", "staff", "create")
		tom := itoa(staffID(t, s, "tom"))
		post("/admin/staff/"+tom+"/password", nil)
		expect("staff:ada", "staff", "reset_password")
		post("/admin/staff/"+tom+"/disable", nil)
		expect("staff:ada", "staff", "disable")
		post("/admin/staff/"+tom+"/enable", nil)
		expect("staff:ada", "staff", "enable")
		post("/admin/clients/"+itoa(s.ClientID)+"/endpoints/"+itoa(hook.ID)+"/enable", nil)
		expect("staff:ada", "webhook_endpoint", "enable")
		post("/admin/account/password", url.Values{"current": {adminPassword}, "password": {"the admin's new password"}, "repeat": {"the admin's new password"}})
		expect("staff:ada", "staff", "change_password")
		send(http.MethodDelete, hookPath, nil, http.StatusNoContent)
		expect(api, "webhook_endpoint", "delete")

		var entries []models.AuditEntry
		if err := s.DB.Where("actor IN ?", []string{api, "staff:ada"}).Order("id").Find(&entries).Error; err != nil {
			t.Fatal(err)
		}
		var got []entry
		for _, e := range entries {
			got = append(got, entry{e.Actor, e.ObjectType, e.Action})
		}
		if !slices.Equal(got, want) {
			var g, w []string
			for _, e := range got {
				g = append(g, fmt.Sprint(e))
			}
			for _, e := range want {
				w = append(w, fmt.Sprint(e))
			}
			t.Fatalf("the audit log holds\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	})
}

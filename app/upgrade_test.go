package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// The databases in testdata/v1.0.0 were made by release 1.0.0's own binary (see make.sh there):
// 30 pets and 12 orders from its seed, the keys "Acme shop" (pro), "Dashboard" (enterprise) and
// "Old app" (revoked), and one order "Acme shop" placed through the API.
const v100 = "testdata/v1.0.0"

type v100Fixture struct {
	Keys       map[string]string `json:"keys"`
	APIOrderID int64             `json:"apiOrderId"`
}

// v100Database puts a copy of release 1.0.0's database of the given kind where cfg points.
func v100Database(t *testing.T, store testenv.Store) (app.Config, v100Fixture) {
	t.Helper()
	cfg := apptest.Config(t, store)
	var f v100Fixture
	raw, err := os.ReadFile(filepath.Join(v100, "keys-"+string(store)+".json"))
	if err == nil {
		err = json.Unmarshal(raw, &f)
	}
	if err != nil {
		t.Fatal(err)
	}
	if store == testenv.SQLite {
		db, err := os.ReadFile(filepath.Join(v100, "petstore.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg.DBPath, db, 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg, f
	}
	dump, err := os.ReadFile(filepath.Join(v100, "postgres.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, cfg.DatabaseURL) // its search_path is the test's schema
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, string(dump)); err != nil {
		t.Fatalf("load the 1.0.0 dump: %v", err)
	}
	return cfg, f
}

func TestA100DatabaseUpgradesInPlaceAndItsKeysKeepWorking(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg, f := v100Database(t, store)
		env := cliEnv(cfg)
		for range 2 { // and a second time, which changes nothing
			runOK(t, env, "migrate")
		}

		var clients []struct {
			ID     int64  `json:"id"`
			Name   string `json:"name"`
			Keys   int    `json:"keys"`
			Orders int    `json:"orders"`
		}
		if err := json.Unmarshal([]byte(runOK(t, env, "clients", "list", "--json")), &clients); err != nil {
			t.Fatal(err)
		}
		var names []string
		ordersOf := map[string]int{}
		for _, c := range clients {
			names = append(names, c.Name)
			ordersOf[c.Name] = c.Orders
			if c.Keys != 1 {
				t.Errorf("client %q has %d keys, want its one key", c.Name, c.Keys)
			}
		}
		if !slices.Equal(names, []string{"Acme shop", "Dashboard", "Old app"}) || ordersOf["Acme shop"] != 1 || ordersOf["Dashboard"] != 0 {
			t.Fatalf("clients after the upgrade: %+v; want one per key, named after it, with Acme's API order", clients)
		}
		var keys []keyListItem
		if err := json.Unmarshal([]byte(runOK(t, env, "keys", "list", "--json")), &keys); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if k.Client != clients[i].ID || !slices.Equal(k.Scopes, models.AllScopes.Strings()) {
				t.Fatalf("key %+v after the upgrade: want client %d and every scope", k, clients[i].ID)
			}
		}

		s := apptest.New(t, cfg)
		var byClient struct{ None, Some int64 }
		if err := s.DB.Raw("SELECT COUNT(*) FILTER (WHERE client_id IS NULL) AS none, COUNT(client_id) AS some FROM orders").Scan(&byClient).Error; err != nil {
			t.Fatal(err)
		}
		if byClient.None != 12 || byClient.Some != 1 || countPets(t, s) != 30 {
			t.Fatalf("orders without a client %d, with one %d, pets %d: want the seed's 12 with none, the API's 1 with Acme's, 30 pets",
				byClient.None, byClient.Some, countPets(t, s))
		}

		acme, dash := s.As(f.Keys["Acme shop"]), s.As(f.Keys["Dashboard"])
		if got := listOrderIDs(t, acme); !slices.Equal(got, []int64{f.APIOrderID}) {
			t.Fatalf("Acme lists %v, want its API order %d", got, f.APIOrderID)
		}
		if got := listOrderIDs(t, dash); len(got) != 0 {
			t.Fatalf("Dashboard lists %v, want none", got)
		}
		order := fmt.Sprintf("/v1/store/orders/%d", f.APIOrderID)
		if res := acme.Get(t, order); res.StatusCode != http.StatusOK {
			t.Fatalf("Acme GET %s: %d %s", order, res.StatusCode, res.Body)
		}
		wantError(t, dash.Get(t, order), http.StatusNotFound, "not_found", "")
		for name, c := range map[string]*apptest.Server{"Acme shop": acme, "Dashboard": dash} {
			if res := c.PostJSON(t, "/v1/pets", map[string]any{"name": "After the upgrade", "categoryId": 1}); res.StatusCode != http.StatusCreated {
				t.Fatalf("%s adds a pet after the upgrade: %d %s", name, res.StatusCode, res.Body)
			}
		}
		if res := cancelOrder(t, acme, f.APIOrderID); res.StatusCode != http.StatusOK {
			t.Fatalf("Acme cancels its 1.0.0 order: %d %s", res.StatusCode, res.Body)
		}
		wantError(t, s.As(f.Keys["Old app"]).Get(t, "/v1/pets"), http.StatusUnauthorized, "invalid_api_key", "")
	})
}

package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func TestSeedFillsEveryCategoryAndStatusConsistentlyAndIsSafeToRunTwice(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		// The photos' folder too: on PostgreSQL it defaults to the working directory, the source tree.
		env := map[string]string{"PETSTORE_LOG_LEVEL": "warn", "PETSTORE_DB_PATH": cfg.DBPath, "DATABASE_URL": cfg.DatabaseURL,
			"PETSTORE_MEDIA_DIR": cfg.MediaDir}
		for i := range 2 {
			out, stderr, err := run(t, env, "seed", "--pets", "300", "--orders", "120")
			if err != nil {
				t.Fatalf("seed run %d: %v\n%s", i+1, err, stderr)
			}
			if !strings.Contains(out, "holds 300 pets and 120 orders") {
				t.Fatalf("seed run %d said %q", i+1, out)
			}
		}
		db := apptest.OpenDB(t, cfg)

		var pets []models.Pet
		var orders []models.Order
		var changes []models.StatusChange
		db.Find(&pets)
		db.Find(&orders)
		db.Order("id").Find(&changes)
		if len(pets) != 300 || len(orders) != 120 {
			t.Fatalf("%d pets and %d orders after two runs, want 300 and 120", len(pets), len(orders))
		}
		byID := map[int64]*models.Pet{}
		cats := map[int64]bool{}
		petStatuses := map[models.PetStatus]int{}
		for i, p := range pets {
			byID[p.ID] = &pets[i]
			cats[p.CategoryID] = true
			petStatuses[p.Status]++
			if strings.TrimSpace(p.Name) == "" || p.Name == "Pet" {
				t.Fatalf("pet %d has name %q", p.ID, p.Name)
			}
		}
		if len(cats) != len(models.SeedCategories) || len(petStatuses) != 3 {
			t.Fatalf("pets in %d categories and statuses %v; want all %d categories and all 3 statuses", len(cats), petStatuses, len(models.SeedCategories))
		}

		orderStatuses := map[models.OrderStatus]int{}
		ordersOf := map[int64]int{}
		wantPet := map[models.OrderStatus]models.PetStatus{
			models.OrderPlaced: models.PetPending, models.OrderApproved: models.PetPending,
			models.OrderDelivered: models.PetSold, models.OrderCancelled: models.PetAvailable,
		}
		for _, o := range orders {
			orderStatuses[o.Status]++
			ordersOf[o.PetID]++
			if p := byID[o.PetID]; p == nil || p.Status != wantPet[o.Status] || o.Complete != (o.Status == models.OrderDelivered) || o.Quantity != 1 {
				t.Fatalf("order %+v disagrees with its pet %+v", o, p)
			}
		}
		if len(orderStatuses) != 4 {
			t.Fatalf("order statuses %v, want all four", orderStatuses)
		}
		for _, p := range pets {
			if p.Status == models.PetPending && ordersOf[p.ID] != 1 {
				t.Fatalf("pending pet %d has %d orders, want its one live order", p.ID, ordersOf[p.ID])
			}
		}
		// Each pet's history replays to its status.
		last := map[int64]models.PetStatus{}
		for _, c := range changes {
			if from, seen := last[c.PetID]; seen && from != c.PetFrom {
				t.Fatalf("change %+v starts from %s, but the pet was %s", c, c.PetFrom, from)
			}
			last[c.PetID] = c.PetTo
		}
		for id, st := range last {
			if byID[id].Status != st {
				t.Fatalf("pet %d is %s, its history ends at %s", id, byID[id].Status, st)
			}
		}

		if out, stderr, err := run(t, env, "seed", "--pets", "350"); err != nil || !strings.Contains(out, "added 50 pets") {
			t.Fatalf("topping up to 350: %q %v\n%s", out, err, stderr)
		}
	})
}

func TestSeedRefusesMoreOrdersThanPets(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	if _, _, err := run(t, env, "seed", "--pets", "10", "--orders", "11"); err == nil || !strings.Contains(err.Error(), "--orders") {
		t.Fatalf("seed --pets 10 --orders 11: %v, want an error naming --orders", err)
	}
}

// A seed writes in short transactions: the service's own writes get their turn between two of
// them instead of waiting out the whole seed (they used to wait PETSTORE_DB_TIMEOUT, 5 s, and
// answer 503).
func TestTheServiceKeepsAnsweringWhileASeedRuns(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		s := apptest.New(t, cfg)
		seeded := make(chan error, 1)
		// Enough batches to outlast five requests; PostgreSQL writes them faster.
		pets := map[testenv.Store]string{testenv.SQLite: "4000", testenv.Postgres: "15000"}[store]
		go func() {
			_, stderr, err := run(t, cliEnv(cfg), "seed", "--pets", pets)
			if err != nil {
				err = fmt.Errorf("%w\n%s", err, stderr)
			}
			seeded <- err
		}()
		// Once the seed has written its first pets, create pets through the API meanwhile.
		for n := int64(0); n == 0; time.Sleep(5 * time.Millisecond) {
			select {
			case err := <-seeded:
				t.Fatalf("the seed ended (%v) before its first pets were seen", err)
			default:
			}
			if err := s.DB.Model(&models.Pet{}).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
		}
		for i := range 5 {
			start := time.Now()
			res := s.PostJSON(t, "/v1/pets", map[string]any{"name": "Rex", "categoryId": 1})
			took := time.Since(start)
			if res.StatusCode != http.StatusCreated {
				t.Fatalf("POST /v1/pets %d during the seed answered %d after %s: %s", i+1, res.StatusCode, took, res.Body)
			}
			t.Logf("POST /v1/pets %d during the seed: 201 in %s", i+1, took)
		}
		select {
		case err := <-seeded:
			t.Fatalf("the seed ended (%v) before the five pets were created: too small to show anything", err)
		default:
		}
		if err := <-seeded; err != nil {
			t.Fatal(err)
		}
	})
}

// Progress is drawn on a terminal only: a file or a pipe holds nothing but the summary.
func TestSeedShowsProgressOnATerminalOnly(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	drawn := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx) // until the terminal closes
		drawn <- string(b)
	}()
	env := map[string]string{"PETSTORE_DB_PATH": t.TempDir() + "/p.db"}
	var out bytes.Buffer
	err = app.Run(context.Background(), []string{"petstore", "seed", "--pets", "1200"}, func(k string) string { return env[k] },
		strings.NewReader(""), &out, tty)
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := <-drawn; !strings.Contains(got, "seeding: 500 of 1200 pets (41 %)") || !strings.Contains(got, "seeding: 1200 of 1200 pets (100 %)") {
		t.Fatalf("the terminal showed %q, want the progress of each batch", got)
	}
	if !strings.HasPrefix(out.String(), "added 1200 pets") {
		t.Fatalf("standard output: %q", out.String())
	}

	env["PETSTORE_DB_PATH"] = t.TempDir() + "/p.db"
	if stdout, stderr, err := run(t, env, "seed", "--pets", "600"); err != nil || stderr != "" || !strings.HasPrefix(stdout, "added 600 pets") {
		t.Fatalf("seed into a buffer: %v, standard error %q, standard output %q", err, stderr, stdout)
	}
}

// Right after `petstore seed` on PostgreSQL the tables it filled have the query planner's
// statistics, without waiting for autovacuum (which a cluster with autovacuum off, as the tests'
// is, never runs), and the list of available pets answers a full page of them.
func TestAfterASeedTheTablesHavePlannerStatisticsAndTheListAnswers(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.Postgres)
	runOK(t, cliEnv(cfg), "seed", "--pets", "2000")
	s := apptest.New(t, cfg)
	for _, table := range []string{"pets", "orders", "status_changes", "events"} {
		var analyzed bool
		var tuples float64
		err := s.DB.Raw(`SELECT s.last_analyze IS NOT NULL, c.reltuples FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
			WHERE s.schemaname = current_schema() AND s.relname = ?`, table).Row().Scan(&analyzed, &tuples)
		if err != nil {
			t.Fatal(err)
		}
		if !analyzed || tuples <= 0 {
			t.Errorf("after the seed, %s analyzed %v with %.0f rows estimated: want its statistics gathered", table, analyzed, tuples)
		}
	}
	res := s.Get(t, "/v1/pets?limit=20&status=available")
	var pets []struct{ Status string }
	res.JSON(t, &pets)
	if res.StatusCode != http.StatusOK || len(pets) != 20 {
		t.Fatalf("GET /v1/pets?limit=20&status=available after the seed: %d with %d pets, want 200 with 20", res.StatusCode, len(pets))
	}
	for _, p := range pets {
		if p.Status != "available" {
			t.Fatalf("the list of available pets holds a pet %s", p.Status)
		}
	}
}

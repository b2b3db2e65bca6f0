package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
	"gorm.io/plugin/dbresolver"
)

// replicaSetup stands a second schema in for a replica of the primary's: same tables, its own
// rows, so every answer shows which database it came from.
type replicaSetup struct {
	cfg     app.Config // the service's: primary plus replica
	primary *gorm.DB   // direct handles, without the service's routing
	replica *gorm.DB
}

func newReplicaSetup(t *testing.T, replicaURL func(direct string) string) replicaSetup {
	t.Helper()
	primaryCfg := apptest.Config(t, testenv.Postgres)
	replicaCfg := primaryCfg
	replicaCfg.DatabaseURL = testenv.PostgresSchema(t)
	r := replicaSetup{cfg: primaryCfg, primary: apptest.OpenDB(t, primaryCfg), replica: apptest.OpenDB(t, replicaCfg)}
	r.cfg.DatabaseReplicaURLs = []string{replicaURL(replicaCfg.DatabaseURL)}
	return r
}

func namesOf(t *testing.T, res *apptest.Response) []string {
	t.Helper()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: status %d: %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, res.Body)
	}
	var list []struct {
		Name string `json:"name"`
	}
	res.JSON(t, &list)
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	return names
}

func TestCatalogueReadsGoToTheReplicaAndWritesToThePrimary(t *testing.T) {
	t.Parallel()
	r := newReplicaSetup(t, func(u string) string { return u })
	// An id the primary will not give Rex, so a read of Rex's id finds nothing on the replica.
	if err := r.replica.Create(&models.Pet{ID: 1000, Name: "OnlyOnReplica", CategoryID: 1, Status: models.PetAvailable}).Error; err != nil {
		t.Fatal(err)
	}
	if err := r.replica.Create(&models.Category{Name: "ReplicaCategory"}).Error; err != nil {
		t.Fatal(err)
	}
	s := apptest.New(t, r.cfg)

	// The write lands on the primary, and its answer comes from the INSERT, not a read.
	created := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 2})
	if created.Name != "Rex" || created.CategoryID != 2 || created.ID < 1 {
		t.Fatalf("created %+v: want Rex in category 2 with an id", created)
	}
	var onPrimary, onReplica int64
	r.primary.Model(&models.Pet{}).Where("name = ?", "Rex").Count(&onPrimary)
	r.replica.Model(&models.Pet{}).Where("name = ?", "Rex").Count(&onReplica)
	if onPrimary != 1 || onReplica != 0 {
		t.Fatalf("Rex is on the primary %d times and on the replica %d times, want 1 and 0", onPrimary, onReplica)
	}

	// Reads come from the replica.
	if names := namesOf(t, s.Get(t, "/v1/pets")); len(names) != 1 || names[0] != "OnlyOnReplica" {
		t.Fatalf("GET /v1/pets = %v, want the replica's [OnlyOnReplica]", names)
	}
	if res := s.Get(t, fmt.Sprintf("/v1/pets/%d", created.ID)); res.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /v1/pets/%d = %d, want 404: the replica has not (in this stand-in, never) received it", created.ID, res.StatusCode)
	}
	if names := namesOf(t, s.Get(t, "/v1/categories")); !strings.Contains(strings.Join(names, ","), "ReplicaCategory") {
		t.Fatalf("GET /v1/categories = %v, want the replica's categories", names)
	}

	res := s.Get(t, "/readyz")
	if res.StatusCode != http.StatusOK || !strings.Contains(string(res.Body), `"replicas":"ok"`) {
		t.Fatalf("/readyz = %d %s, want 200 with the replicas ok", res.StatusCode, res.Body)
	}
	m := s.ScrapeMetrics(t)
	if !m.Has("go_sql_open_connections", "db_name", "primary") || !m.Has("go_sql_open_connections", "db_name", "replica-1") {
		t.Error("the pool metrics do not show both the primary and replica-1")
	}
}

func TestReadsInsideATransactionStayOnThePrimary(t *testing.T) {
	t.Parallel()
	r := newReplicaSetup(t, func(u string) string { return u })
	s := apptest.New(t, r.cfg)
	ctx := context.Background()

	var id int64
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		p := models.Pet{Name: "InTx", CategoryID: 1, Status: models.PetAvailable}
		if err := tx.Create(&p).Error; err != nil {
			return err
		}
		id = p.ID
		var got models.Pet
		return tx.Clauses(dbresolver.Use(models.ReplicaResolver)).Take(&got, p.ID).Error
	})
	if err != nil {
		t.Fatalf("a read allowed on a replica inside the transaction that wrote the row: %v, want it found (the primary)", err)
	}
	var got models.Pet
	if err := s.DB.WithContext(ctx).Clauses(dbresolver.Use(models.ReplicaResolver)).Take(&got, id).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("a read allowed on a replica outside a transaction: %v, want not found (it goes to the replica)", err)
	}
}

func TestAStoreReadsTheReplicaOnlyWhenTheRequestAllowsIt(t *testing.T) {
	t.Parallel()
	r := newReplicaSetup(t, func(u string) string { return u })
	s := apptest.New(t, r.cfg)
	ctx := models.WithActor(context.Background(), models.ActorCLI)
	created := createPet(t, s, map[string]any{"name": "OnPrimary", "categoryId": 1})
	pets := models.NewPetStore(s.DB)
	if _, err := pets.Get(ctx, created.ID); err != nil {
		t.Fatalf("a pet read without leave to read a replica: %v, want it found (the primary)", err)
	}
	if _, err := pets.Get(models.MayReadReplica(ctx), created.ID); models.ErrorCode(err) != models.ENotFound {
		t.Fatalf("a pet read with leave to read a replica: %v, want not_found (the replica)", err)
	}
	// A read the store keeps on the primary stays there, whatever the request allows.
	cats := models.NewCategoryStore(s.DB)
	cat, err := cats.Create(ctx, "OnPrimary")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cats.Get(models.MayReadReplica(ctx), cat.ID); err != nil {
		t.Fatalf("a category looked up with leave to read a replica: %v, want it found (the primary)", err)
	}
}

func TestAReplicaThatStopsAnsweringGetsNoReadsUntilItAnswersAgain(t *testing.T) {
	t.Parallel()
	proxy := newTCPProxy(t)
	r := newReplicaSetup(t, func(direct string) string {
		u, err := url.Parse(direct)
		if err != nil {
			t.Fatal(err)
		}
		proxy.mu.Lock()
		proxy.target = u.Host
		proxy.mu.Unlock()
		u.Host = proxy.addr
		return u.String()
	})
	if err := r.primary.Create(&models.Pet{Name: "OnPrimary", CategoryID: 1, Status: models.PetAvailable}).Error; err != nil {
		t.Fatal(err)
	}
	if err := r.replica.Create(&models.Pet{Name: "OnReplica", CategoryID: 1, Status: models.PetAvailable}).Error; err != nil {
		t.Fatal(err)
	}
	s := apptest.New(t, r.cfg)
	if names := namesOf(t, s.Get(t, "/v1/pets")); strings.Join(names, ",") != "OnReplica" {
		t.Fatalf("before: GET /v1/pets = %v, want the replica's", names)
	}

	proxy.stop()
	// The read that meets the dead replica fails as the database being unavailable (retryable)...
	if res := s.Get(t, "/v1/pets"); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the first read after the replica died: %d %s, want 503", res.StatusCode, res.Body)
	}
	// ...and benches it: the next reads go to the primary, and the instance stays ready.
	if names := namesOf(t, s.Get(t, "/v1/pets")); strings.Join(names, ",") != "OnPrimary" {
		t.Fatalf("with the replica down: GET /v1/pets = %v, want the primary's", names)
	}
	res := s.Get(t, "/readyz")
	if res.StatusCode != http.StatusOK || !strings.Contains(string(res.Body), "degraded") {
		t.Fatalf("/readyz with the replica down = %d %s, want 200 naming the replica degraded", res.StatusCode, res.Body)
	}

	proxy.start(t)
	// A readiness check that reaches the replica restores it at once.
	if res := s.Get(t, "/readyz"); !strings.Contains(string(res.Body), `"replicas":"ok"`) {
		t.Fatalf("/readyz after the replica is back = %s, want replicas ok", res.Body)
	}
	if names := namesOf(t, s.Get(t, "/v1/pets")); strings.Join(names, ",") != "OnReplica" {
		t.Fatalf("after: GET /v1/pets = %v, want the replica's again", names)
	}
}

func TestReadAfterWritePathsStayOnThePrimaryWithAReplica(t *testing.T) {
	t.Parallel()
	r := newReplicaSetup(t, func(u string) string { return u })
	s := apptest.New(t, r.cfg)

	// The replica never gets the pet (nor the API key, nor the idempotency record): every step
	// below that reads what the step before wrote would fail if it read from the replica.
	first := postWithKey(t, s, "/v1/pets", "replica-1", `{"name":"Fresh","categoryId":1}`)
	if first.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", first.StatusCode, first.Body)
	}
	var p pet
	first.JSON(t, &p)
	if replay := postWithKey(t, s, "/v1/pets", "replica-1", `{"name":"Fresh","categoryId":1}`); replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s, want the first answer replayed (the record is read from the primary)", replay.StatusCode, replay.Body)
	}
	order := s.PostJSON(t, "/v1/store/orders", map[string]any{"petId": p.ID})
	if order.StatusCode != http.StatusCreated {
		t.Fatalf("order for the fresh pet: %d %s, want 201 (the pet is read in the order's transaction, on the primary)", order.StatusCode, order.Body)
	}
	var o struct {
		ID int64 `json:"id"`
	}
	order.JSON(t, &o)
	if res := s.Get(t, fmt.Sprintf("/v1/store/orders/%d", o.ID)); res.StatusCode != http.StatusOK {
		t.Fatalf("the order just placed: %d %s, want 200 (orders are read from the primary)", res.StatusCode, res.Body)
	}
}

func TestAdminPagesShowStaffTheirOwnChangesWithAReplica(t *testing.T) {
	t.Parallel()
	r := newReplicaSetup(t, func(u string) string { return u })
	s := apptest.New(t, r.cfg)
	s.CreateStaff(t, "ada", "admin password 1", models.RoleAdmin)
	b := s.NewBrowser(t)
	b.Login(t, "ada", "admin password 1")

	b.Get(t, "/admin/pets/new")
	created := b.Post(t, "/admin/pets", url.Values{"name": {"Seen by staff"}, "categoryId": {"1"}, "status": {"available"}})
	if created.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /admin/pets: %d, want 303", created.StatusCode)
	}
	// The page the form leads to, and the list, come from the primary...
	if page := b.Follow(t, created); page.StatusCode != http.StatusOK || page.Text("pet-name") != "Seen by staff" {
		t.Fatalf("the new pet's page: %d %q, want 200 showing it", page.StatusCode, page.Text("pet-name"))
	}
	if list := b.Get(t, "/admin/pets"); !strings.Contains(list.Text("pets-table"), "Seen by staff") {
		t.Fatalf("the admin list does not show the pet just added:\n%s", list.Text("pets-table"))
	}
	// ...while the API's reads come from the replica, which (in this stand-in) never gets it.
	if names := namesOf(t, s.Get(t, "/v1/pets")); len(names) != 0 {
		t.Fatalf("GET /v1/pets = %v, want the replica's (empty) list", names)
	}
}

func TestReplicaConfigurationIsChecked(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{
		{"DATABASE_REPLICA_URLS": "postgres://replica:5432/petstore"},
		{"DATABASE_URL": "postgres://primary:5432/petstore", "DATABASE_REPLICA_URLS": "postgres://r1/petstore,mysql://r2/petstore"},
	} {
		_, _, err := run(t, env, "migrate")
		if err == nil || !strings.Contains(err.Error(), "DATABASE_REPLICA_URLS") {
			t.Errorf("%v: %v, want an error naming DATABASE_REPLICA_URLS", env, err)
		}
	}
	cfg, err := app.LoadConfig(func(k string) string {
		return map[string]string{"DATABASE_URL": "postgres://p/db", "DATABASE_REPLICA_URLS": " postgres://r1/db , postgres://r2/db ,"}[k]
	})
	if err != nil || len(cfg.DatabaseReplicaURLs) != 2 || cfg.DatabaseReplicaURLs[1] != "postgres://r2/db" {
		t.Fatalf("two replicas with spaces and a trailing comma: %v %q", err, cfg.DatabaseReplicaURLs)
	}
}

// tcpProxy forwards connections to target until stopped, so a test can make a database vanish
// and come back on the same address.
type tcpProxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func newTCPProxy(t *testing.T) *tcpProxy {
	p := &tcpProxy{}
	p.start(t)
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) start(t *testing.T) {
	t.Helper()
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			target := p.target
			p.mu.Unlock()
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

// stop closes the listener and cuts every open connection, as a crashed server would.
func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

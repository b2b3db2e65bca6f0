package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func TestAThousandConcurrentCreatesGiveAThousandDistinctPets(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		// What is measured is that nothing is lost or doubled, not latency: SQLite queues every
		// writer on one connection, and no request may give up while it waits its turn.
		cfg.DBTimeout = 2 * time.Minute
		s := apptest.New(t, cfg)
		const n = 1000
		client := &http.Client{Timeout: 3 * time.Minute}
		start := make(chan struct{})
		ids := make([]int64, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"name":"Pet %04d","categoryId":%d}`, i, i%6+1)
				req, _ := http.NewRequest("POST", s.URL+"/v1/pets", bytes.NewReader([]byte(body)))
				req.Header.Set("Content-Type", "application/json")
				for k, vs := range s.Headers {
					req.Header[k] = vs
				}
				<-start
				res, err := client.Do(req)
				if err != nil {
					errs[i] = err
					return
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				var p pet
				if res.StatusCode != 201 || json.Unmarshal(b, &p) != nil || p.Name != fmt.Sprintf("Pet %04d", i) {
					errs[i] = fmt.Errorf("%d %s", res.StatusCode, b)
					return
				}
				ids[i] = p.ID
			}()
		}
		close(start)
		wg.Wait()
		seen := map[int64]int{}
		for i, id := range ids {
			if errs[i] != nil {
				t.Fatalf("create %d: %v", i, errs[i])
			}
			if j, dup := seen[id]; dup {
				t.Fatalf("creates %d and %d both got id %d", j, i, id)
			}
			seen[id] = i
		}
		var stored []models.Pet
		if err := s.DB.Order("id").Find(&stored).Error; err != nil {
			t.Fatal(err)
		}
		if len(stored) != n {
			t.Fatalf("%d pets stored, want %d", len(stored), n)
		}
		for _, p := range stored {
			i, ok := seen[p.ID]
			if !ok || p.Name != fmt.Sprintf("Pet %04d", i) {
				t.Fatalf("stored %+v, which no create acknowledged", p)
			}
		}
	})
}

// ack is a create the service acknowledged with 201: the id and the body the client saw.
type ack struct {
	id   int64
	body []byte
}

// writers keep clients adding pets, and placing an order on every other one, until a request
// fails (the process is gone). Every request carries an Idempotency-Key, as a careful client's
// would (petKey, orderKey). They record what was acknowledged and what got no answer.
type writers struct {
	mu         sync.Mutex
	pets       []ack
	orders     []ack
	lostPets   []string // names of creates that got no answer
	lostOrders []int64  // pets whose order got no answer
	unanswered []request
	wrong      []string
	wg         sync.WaitGroup
}

// request is a POST with an Idempotency-Key, to retry.
type request struct{ path, key, body string }

func petKey(name string) string   { return strings.ReplaceAll(name, " ", "-") }
func orderKey(petID int64) string { return fmt.Sprint("order-for-pet-", petID) }

// post sends r to the service at url and reads the answer.
func post(client *http.Client, url string, r request) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url+r.path, bytes.NewReader([]byte(r.body)))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", r.key)
	res, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func startWriters(url, key string, n int) *writers {
	w := &writers{}
	send := func(client *http.Client, r request) (int, []byte, error) {
		res, b, err := post(client, url, r)
		if err != nil {
			w.mu.Lock()
			w.unanswered = append(w.unanswered, r)
			w.mu.Unlock()
			return 0, nil, err
		}
		return res.StatusCode, b, nil
	}
	for c := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			client := apptest.KeyClient(key, time.Minute)
			for i := 0; ; i++ {
				name := fmt.Sprintf("Writer %d pet %d", c, i)
				status, b, err := send(client, request{"/v1/pets", petKey(name), fmt.Sprintf(`{"name":%q,"categoryId":%d}`, name, i%6+1)})
				var p pet
				w.mu.Lock()
				switch {
				case err != nil:
					w.lostPets = append(w.lostPets, name)
				case status == 201 && json.Unmarshal(b, &p) == nil && p.Name == name:
					w.pets = append(w.pets, ack{p.ID, b})
				default:
					w.wrong = append(w.wrong, fmt.Sprintf("%s: %d %s", name, status, b))
				}
				w.mu.Unlock()
				if err != nil {
					return
				}
				if p.ID == 0 || i%2 == 1 {
					continue
				}
				status, b, err = send(client, request{"/v1/store/orders", orderKey(p.ID), fmt.Sprintf(`{"petId":%d}`, p.ID)})
				var o order
				w.mu.Lock()
				switch {
				case err != nil:
					w.lostOrders = append(w.lostOrders, p.ID)
				case status == 201 && json.Unmarshal(b, &o) == nil && o.PetID == p.ID:
					w.orders = append(w.orders, ack{o.ID, b})
				default:
					w.wrong = append(w.wrong, fmt.Sprintf("order for %s: %d %s", name, status, b))
				}
				w.mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	return w
}

func (w *writers) ackedCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pets) + len(w.orders)
}

// stored is what the database of a store holds after the process is gone.
type stored struct {
	pets    map[string]models.Pet // by name
	twice   []string              // names of more than one pet
	orders  map[int64]models.Order
	ofPet   map[int64][]models.Order
	history map[int64]int                       // status changes per order
	kept    map[string]models.IdempotencyRecord // by Idempotency-Key
}

func readStored(t *testing.T, store testenv.Store, env map[string]string) stored {
	t.Helper()
	cfg := apptest.Config(t, store)
	cfg.DatabaseURL, cfg.DBPath = env["DATABASE_URL"], env["PETSTORE_DB_PATH"]
	if cfg.DBPath == "" {
		cfg.DBPath = "unused"
	}
	db := apptest.OpenDB(t, cfg)
	var pets []models.Pet
	var orders []models.Order
	var changes []models.StatusChange
	var records []models.IdempotencyRecord
	for _, q := range []error{db.Find(&pets).Error, db.Find(&orders).Error, db.Find(&changes).Error, db.Find(&records).Error} {
		if q != nil {
			t.Fatal(q)
		}
	}
	st := stored{pets: map[string]models.Pet{}, orders: map[int64]models.Order{}, ofPet: map[int64][]models.Order{},
		history: map[int64]int{}, kept: map[string]models.IdempotencyRecord{}}
	for _, p := range pets {
		if _, dup := st.pets[p.Name]; dup {
			st.twice = append(st.twice, p.Name)
		}
		st.pets[p.Name] = p
	}
	for _, r := range records {
		st.kept[r.Key] = r
	}
	for _, o := range orders {
		st.orders[o.ID] = o
		st.ofPet[o.PetID] = append(st.ofPet[o.PetID], o)
	}
	for _, c := range changes {
		if c.OrderID != nil {
			st.history[*c.OrderID]++
		}
	}
	return st
}

// checkWhole fails on any half-done write: a pet that is not valid, an order whose pet's status
// disagrees with it, an order without its history record. Every pet starts available and only
// an order moves it (to pending, in the order's own transaction).
func (st stored) checkWhole(t *testing.T) {
	t.Helper()
	if len(st.twice) > 0 {
		t.Fatalf("pets created twice: %q", st.twice)
	}
	for name, p := range st.pets {
		if _, err := (models.NewPet{Name: &p.Name, CategoryID: &p.CategoryID, Status: (*string)(&p.Status)}).Validate(); err != nil || p.CreatedAt.IsZero() {
			t.Fatalf("stored pet %q is not whole: %+v (%v)", name, p, err)
		}
		want := models.PetAvailable
		if len(st.ofPet[p.ID]) > 0 {
			want = models.PetPending
		}
		if p.Status != want || len(st.ofPet[p.ID]) > 1 {
			t.Fatalf("pet %d is %s with orders %+v: half done", p.ID, p.Status, st.ofPet[p.ID])
		}
	}
	for id, o := range st.orders {
		if o.Status != models.OrderPlaced || st.history[id] != 1 {
			t.Fatalf("order %d is %s with %d history records: half done", id, o.Status, st.history[id])
		}
	}
}

// checkKept fails unless every pet and order created under an Idempotency-Key committed with its
// kept response, and no key still in flight has a creation: a crash between the two would let a
// retry create a second one.
func (st stored) checkKept(t *testing.T) {
	t.Helper()
	keptID := func(key string) int64 {
		rec, ok := st.kept[key]
		var created struct{ ID int64 }
		if !ok || rec.Status != http.StatusCreated || json.Unmarshal(rec.Body, &created) != nil {
			return 0
		}
		return created.ID
	}
	for name, p := range st.pets {
		if id := keptID(petKey(name)); id != p.ID {
			t.Fatalf("pet %d %q was created, but its Idempotency-Key keeps %+v", p.ID, name, st.kept[petKey(name)])
		}
	}
	for id, o := range st.orders {
		if kept := keptID(orderKey(o.PetID)); kept != id {
			t.Fatalf("order %d was placed, but its Idempotency-Key keeps %+v", id, st.kept[orderKey(o.PetID)])
		}
	}
}

// retryUnanswered sends again, with its key, every request the crash left without an answer: a
// creation that committed is replayed as it was; one that did not either runs now or, while its
// key is still in flight (until the lease runs out), answers 409 and creates nothing.
func retryUnanswered(t *testing.T, url, key string, w *writers, before stored) {
	t.Helper()
	client := apptest.KeyClient(key, time.Minute)
	for _, r := range w.unanswered {
		res, b, err := post(client, url, r)
		if err != nil {
			t.Fatal(err)
		}
		rec, kept := before.kept[r.key]
		switch {
		case kept && rec.Status == http.StatusCreated:
			if res.StatusCode != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, rec.Body) {
				t.Fatalf("retry of %s %s, created before the crash: %d %s, want the kept 201 %s replayed", r.path, r.body, res.StatusCode, b, rec.Body)
			}
		case kept && rec.InFlight():
			if res.StatusCode != http.StatusConflict {
				t.Fatalf("retry of %s %s, in flight at the crash: %d %s, want 409 until the lease ends", r.path, r.body, res.StatusCode, b)
			}
		case res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusConflict:
			t.Fatalf("retry of %s %s, never claimed: %d %s", r.path, r.body, res.StatusCode, b)
		}
	}
}

// checkAcknowledged fails unless every write acknowledged with 201 is there as it was told.
func (st stored) checkAcknowledged(t *testing.T, w *writers) {
	t.Helper()
	for _, a := range w.pets {
		var p pet
		_ = json.Unmarshal(a.body, &p)
		if got, ok := st.pets[p.Name]; !ok || got.ID != a.id || got.CategoryID != p.CategoryID {
			t.Fatalf("acknowledged pet %s is not there: %+v", a.body, got)
		}
	}
	for _, a := range w.orders {
		var o order
		_ = json.Unmarshal(a.body, &o)
		if got, ok := st.orders[a.id]; !ok || got.PetID != o.PetID || string(got.Status) != o.Status {
			t.Fatalf("acknowledged order %s is not there: %+v", a.body, got)
		}
	}
}

func TestAKilledProcessLosesNoAcknowledgedWriteAndLeavesNothingHalfDone(t *testing.T) {
	t.Parallel()
	bin := apptest.Binary(t)
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		env := apptest.EnvFor(store, t)
		key := apptest.CreateKey(t, bin, env)
		first := apptest.StartProcess(t, bin, env)
		const clients = 16
		w := startWriters(first.URL, key, clients)
		eventually(t, "300 acknowledged writes", func() bool { return w.ackedCount() >= 300 })
		first.Kill(t) // SIGKILL while the writers are sending
		w.wg.Wait()

		// The restarted service serves every acknowledged order as it was acknowledged.
		second := apptest.StartProcess(t, bin, env)
		client := apptest.KeyClient(key, time.Minute)
		for _, a := range w.orders {
			res, err := client.Get(fmt.Sprintf("%s/v1/store/orders/%d", second.URL, a.id))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !bytes.Equal(b, a.body) {
				t.Fatalf("order %d was acknowledged as %s; after the crash: %d %s", a.id, a.body, res.StatusCode, b)
			}
		}
		st := readStored(t, store, env)
		st.checkAcknowledged(t, w)
		st.checkWhole(t)
		st.checkKept(t)
		// Each client had at most one write in flight when the process died; it may or may not
		// have been stored, whole. Nothing else may be there.
		if extra := len(st.pets) + len(st.orders) - len(w.pets) - len(w.orders); extra < 0 || extra > clients {
			t.Fatalf("%d pets and %d orders stored for %d and %d acknowledged, with %d clients",
				len(st.pets), len(st.orders), len(w.pets), len(w.orders), clients)
		}
		// The clients retry what got no answer, with the same keys: nothing is created twice.
		retryUnanswered(t, second.URL, key, w, st)
		after := readStored(t, store, env)
		after.checkWhole(t)
		after.checkKept(t)
		for _, wrong := range w.wrong {
			t.Errorf("before the crash: %s", wrong)
		}
		t.Logf("acknowledged before SIGKILL: %d pets, %d orders; in flight: %d; stored: %d pets, %d orders",
			len(w.pets), len(w.orders), len(w.lostPets)+len(w.lostOrders), len(st.pets), len(st.orders))
	})
}

func TestSIGTERMUnderLoadFinishesInFlightRequestsAndExitsInTime(t *testing.T) {
	t.Parallel()
	bin := apptest.Binary(t)
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		env := apptest.EnvFor(store, t)
		env["PETSTORE_SHUTDOWN_TIMEOUT"] = "10s"
		key := apptest.CreateKey(t, bin, env)
		p := apptest.StartProcess(t, bin, env)
		w := startWriters(p.URL, key, 16)

		// A request caught half-sent when the signal arrives: the server has begun reading it.
		held := dialURL(t, p.URL)
		body := `{"name":"Held over the signal","categoryId":1}`
		fmt.Fprintf(held, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			key, len(body), body[:10])

		eventually(t, "150 acknowledged writes", func() bool { return w.ackedCount() >= 150 })
		signalled := time.Now()
		p.Signal(t, syscall.SIGTERM)
		eventually(t, "the listener closing", func() bool {
			c, err := dialOnce(p.URL)
			if err == nil {
				c.Close()
			}
			return err != nil
		})
		fmt.Fprint(held, body[10:])
		res := readResponse(t, held)
		if res.StatusCode != 201 {
			t.Fatalf("the request in flight at SIGTERM: %d, want 201", res.StatusCode)
		}
		code := p.Wait(t, 10*time.Second+20*time.Second)
		took := time.Since(signalled)
		w.wg.Wait()
		if code != 0 || !p.Contains(`"msg":"stopped"`) {
			t.Fatalf("exit code %d after SIGTERM, want 0 and a clean stop:\n%s", code, p.Logs)
		}

		st := readStored(t, store, env)
		st.checkAcknowledged(t, w)
		st.checkWhole(t)
		// A request the client got no answer for must not have been carried out: that would be
		// an in-flight request that failed.
		for _, name := range w.lostPets {
			if p, ok := st.pets[name]; ok {
				t.Fatalf("create %q got no answer but was stored as pet %d", name, p.ID)
			}
		}
		for _, petID := range w.lostOrders {
			if len(st.ofPet[petID]) > 0 {
				t.Fatalf("the order for pet %d got no answer but was placed: %+v", petID, st.ofPet[petID])
			}
		}
		if _, ok := st.pets["Held over the signal"]; !ok || len(st.pets) != len(w.pets)+1 || len(st.orders) != len(w.orders) {
			t.Fatalf("%d pets and %d orders stored; want the %d and %d acknowledged, plus the held pet",
				len(st.pets), len(st.orders), len(w.pets), len(w.orders))
		}
		for _, wrong := range w.wrong {
			t.Errorf("during the shutdown: %s", wrong)
		}
		t.Logf("acknowledged: %d pets, %d orders; %d requests got no answer (none was carried out); exited %s after SIGTERM",
			len(w.pets), len(w.orders), len(w.lostPets)+len(w.lostOrders), took.Round(time.Millisecond))
	})
}

func TestShutdownGivesUpOnAStuckRequestAtItsTimeout(t *testing.T) {
	t.Parallel()
	bin := apptest.Binary(t)
	env := apptest.EnvFor(testenv.SQLite, t)
	env["PETSTORE_SHUTDOWN_TIMEOUT"] = "1s"
	env["PETSTORE_READ_TIMEOUT"] = "5m" // the stuck client is not cut by the read timeout first
	p := apptest.StartProcess(t, bin, env)
	stuck := dialURL(t, p.URL)
	fmt.Fprint(stuck, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	// The request is being read once the server answers another one after it.
	if res, err := http.Get(p.URL + "/healthz"); err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", res, err)
	}
	p.Signal(t, syscall.SIGTERM)
	// Generous: what matters is that it exits at all while a client holds a request open.
	code := p.Wait(t, 1*time.Second+20*time.Second)
	// Cutting a request is not a clean stop: the exit status and the last line say so.
	if code != 1 || !p.Contains("petstore: shutdown: ") {
		t.Fatalf("exit code %d, want 1 with the reason:\n%s", code, p.Logs)
	}
}

func dialOnce(url string) (net.Conn, error) {
	return net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 5*time.Second)
}

func dialURL(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := dialOnce(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readResponse(t *testing.T, c net.Conn) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return res
}

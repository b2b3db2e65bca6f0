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
	"github.com/petstore/petstore/models"
)

func TestAThousandConcurrentCreatesGiveAThousandDistinctPets(t *testing.T) {
	apptest.ForEachStore(t, func(t *testing.T, store apptest.Store) {
		cfg := apptest.Config(t, store)
		// What is measured is that nothing is lost or doubled, not latency: SQLite queues every
		// writer on one connection, and no request may give up while it waits its turn.
		cfg.DBTimeout = 2 * time.Minute
		s := apptest.NewWithConfig(t, cfg)
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

// ack is a create the service acknowledged with 201: the pet's body as the client saw it.
type ack struct {
	id   int64
	body []byte
}

// writers keeps clients creating pets against url until one of its requests fails (the
// process is gone); it records each acknowledged pet and the names of creates that got no
// answer.
type writers struct {
	mu         sync.Mutex
	acked      []ack
	unanswered []string
	wrong      []string
	wg         sync.WaitGroup
}

func startWriters(url, key string, n int) *writers {
	w := &writers{}
	for c := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			client := apptest.KeyClient(key, time.Minute)
			for i := 0; ; i++ {
				name := fmt.Sprintf("Writer %d pet %d", c, i)
				body := fmt.Sprintf(`{"name":%q,"categoryId":%d,"status":%q}`, name, i%6+1, models.PetStatuses[i%3])
				res, err := client.Post(url+"/v1/pets", "application/json", bytes.NewReader([]byte(body)))
				if err != nil {
					w.mu.Lock()
					w.unanswered = append(w.unanswered, name)
					w.mu.Unlock()
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				var p pet
				w.mu.Lock()
				if res.StatusCode == 201 && json.Unmarshal(b, &p) == nil && p.Name == name {
					w.acked = append(w.acked, ack{p.ID, b})
				} else {
					w.wrong = append(w.wrong, fmt.Sprintf("%s: %d %s", name, res.StatusCode, b))
				}
				w.mu.Unlock()
			}
		}()
	}
	return w
}

func (w *writers) ackedCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

// storedPets reads every pet straight from the database of env's store, by name.
func storedPets(t *testing.T, store apptest.Store, env map[string]string) map[string]models.Pet {
	t.Helper()
	cfg := apptest.Config(t, store)
	cfg.DatabaseURL, cfg.DBPath = env["DATABASE_URL"], env["PETSTORE_DB_PATH"]
	if cfg.DBPath == "" {
		cfg.DBPath = "unused"
	}
	var pets []models.Pet
	if err := apptest.OpenDB(t, cfg).Find(&pets).Error; err != nil {
		t.Fatal(err)
	}
	out := make(map[string]models.Pet, len(pets))
	for _, p := range pets {
		out[p.Name] = p
	}
	return out
}

func TestAKilledProcessLosesNoAcknowledgedWriteAndLeavesNothingHalfDone(t *testing.T) {
	bin := apptest.Binary(t)
	apptest.ForEachStore(t, func(t *testing.T, store apptest.Store) {
		env := apptest.EnvFor(store, t)
		key := apptest.CreateKey(t, bin, env)
		first := apptest.StartProcess(t, bin, env)
		const clients = 16
		w := startWriters(first.URL, key, clients)
		eventually(t, "200 acknowledged creates", func() bool { return w.ackedCount() >= 200 })
		first.Kill(t) // SIGKILL while the writers are sending
		w.wg.Wait()

		second := apptest.StartProcess(t, bin, env)
		client := apptest.KeyClient(key, time.Minute)
		for _, a := range w.acked {
			res, err := client.Get(fmt.Sprintf("%s/v1/pets/%d", second.URL, a.id))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !bytes.Equal(b, a.body) {
				t.Fatalf("pet %d was acknowledged as %s; after the crash: %d %s", a.id, a.body, res.StatusCode, b)
			}
		}
		stored := storedPets(t, store, env)
		// Each client had at most one create in flight when the process died; those may or may
		// not have been stored, whole. Nothing else may be there.
		if extra := len(stored) - len(w.acked); extra < 0 || extra > clients {
			t.Fatalf("%d pets stored for %d acknowledged creates with %d clients", len(stored), len(w.acked), clients)
		}
		for name, p := range stored {
			if _, verr := (models.NewPet{Name: &p.Name, CategoryID: &p.CategoryID, Status: (*string)(&p.Status)}).Validate(); verr != nil || p.ID < 1 || p.CreatedAt.IsZero() {
				t.Fatalf("stored pet %q is not whole: %+v (%v)", name, p, verr)
			}
		}
		for _, wrong := range w.wrong {
			t.Errorf("before the crash: %s", wrong)
		}
		t.Logf("%d creates acknowledged before SIGKILL, %d in flight, %d stored", len(w.acked), len(w.unanswered), len(stored))
	})
}

func TestSIGTERMUnderLoadFinishesInFlightRequestsAndExitsInTime(t *testing.T) {
	bin := apptest.Binary(t)
	apptest.ForEachStore(t, func(t *testing.T, store apptest.Store) {
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

		eventually(t, "100 acknowledged creates", func() bool { return w.ackedCount() >= 100 })
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

		stored := storedPets(t, store, env)
		for _, a := range w.acked {
			var got pet
			_ = json.Unmarshal(a.body, &got)
			if stored[got.Name].ID != a.id {
				t.Fatalf("acknowledged pet %s is missing after the shutdown", a.body)
			}
		}
		// A request the client got no answer for must not have been carried out: that would be
		// an in-flight request that failed.
		for _, name := range w.unanswered {
			if p, ok := stored[name]; ok {
				t.Fatalf("create %q got no answer but was stored as pet %d", name, p.ID)
			}
		}
		if _, ok := stored["Held over the signal"]; !ok || len(stored) != len(w.acked)+1 {
			t.Fatalf("%d pets stored, want the %d acknowledged plus the held one", len(stored), len(w.acked))
		}
		for _, wrong := range w.wrong {
			t.Errorf("during the shutdown: %s", wrong)
		}
		t.Logf("%d creates acknowledged, %d got no answer (and none was stored); exited %s after SIGTERM",
			len(w.acked), len(w.unanswered), took.Round(time.Millisecond))
	})
}

func TestShutdownGivesUpOnAStuckRequestAtItsTimeout(t *testing.T) {
	bin := apptest.Binary(t)
	env := apptest.EnvFor(apptest.SQLite, t)
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

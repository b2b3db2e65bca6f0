package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// The access log's lines are written out in batches, not one write per request: through the
// real binary, every request answered before SIGTERM has its line in the log when the process
// has exited, before the line that says it stopped, and a line reaches the log within moments
// while the service runs, without waiting for a batch to fill.
func TestAccessLogKeepsEveryRequestsLineOverSIGTERM(t *testing.T) {
	t.Parallel()
	bin := apptest.Binary(t)
	env := apptest.EnvFor(testenv.SQLite, t)
	key := apptest.CreateKey(t, bin, env)
	p := apptest.StartProcess(t, bin, env)
	client := apptest.KeyClient(key, time.Minute)
	get := func(id string) {
		req, _ := http.NewRequest(http.MethodGet, p.URL+"/v1/pets?limit=1", nil)
		req.Header.Set("X-Request-ID", id)
		res, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET /v1/pets: %d", res.StatusCode)
		}
	}

	get("first")
	eventually(t, "the first request's line in the log while the service runs", func() bool {
		return p.Contains(`"request_id":"first"`)
	})

	const requests = 400
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < requests; i += 8 {
				get(fmt.Sprintf("burst-%d", i))
			}
		}()
	}
	wg.Wait()
	// At once: the last lines are still in the batch.
	p.Signal(t, syscall.SIGTERM)
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit code %d after SIGTERM:\n%s", code, p.Logs)
	}

	logged := map[string]bool{}
	stopped := false
	sc := bufio.NewScanner(strings.NewReader(p.Logs.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			Status    int    `json:"status"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch {
		case line.Msg == "stopped":
			stopped = true
		case line.Msg == "request" && strings.HasPrefix(line.RequestID, "burst-"):
			if stopped {
				t.Errorf("request %s logged after the service said it stopped", line.RequestID)
			}
			if logged[line.RequestID] {
				t.Errorf("request %s logged twice", line.RequestID)
			}
			logged[line.RequestID] = line.Status == http.StatusOK
		}
	}
	if !stopped {
		t.Fatalf("no clean stop in the log:\n%s", p.Logs)
	}
	for i := range requests {
		if id := fmt.Sprintf("burst-%d", i); !logged[id] {
			t.Errorf("request %s answered before SIGTERM has no line with status 200 in the log", id)
		}
	}
}

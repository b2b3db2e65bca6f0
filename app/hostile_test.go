package app_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// hostileRequest is one request of the hostile run: an HTTP request, or raw bytes for what a
// well-behaved client cannot send.
type hostileRequest struct {
	method, target, contentType, body string
	raw                               []byte
	// mayReset marks a body far over the limit: the server answers 413 as soon as it reads
	// Content-Length and closes without reading the rest (fasthttp does not drain), so the
	// client may see the connection reset before it reads that answer.
	mayReset bool
}

// mutate returns n variants of seed with random bytes flipped, dropped, doubled or inserted;
// the same rng gives the same variants, so a failure can be replayed.
func mutate(rng *rand.Rand, seed string, n int) []string {
	out := []string{seed}
	special := []byte("{}[]\",:\\\x00\xff%&=?/.-0123456789eE ")
	for range n {
		b := []byte(seed)
		for range 1 + rng.IntN(4) {
			i := 0
			if len(b) > 0 {
				i = rng.IntN(len(b))
			}
			switch op := rng.IntN(4); {
			case op == 0 && len(b) > 0:
				b[i] ^= byte(1 << rng.IntN(8))
			case op == 1 && len(b) > 0:
				b = append(b[:i], b[i+1:]...)
			case op == 2 && len(b) > 0:
				j := i + rng.IntN(len(b)-i)
				b = append(b[:j], append(append([]byte(nil), b[i:j]...), b[j:]...)...)
			default:
				b = append(b[:i], append([]byte{special[rng.IntN(len(special))]}, b[i:]...)...)
			}
		}
		out = append(out, string(b))
	}
	return out
}

// hostileRequests is the fuzzers' seeds, each with mutants, and a few floods of size.
func hostileRequests() []hostileRequest {
	rng := rand.New(rand.NewPCG(7, 7))
	var reqs []hostileRequest
	for _, seed := range apptest.PetBodySeeds {
		for _, body := range mutate(rng, seed, 8) {
			reqs = append(reqs, hostileRequest{method: "POST", target: "/v1/pets", contentType: "application/json", body: body})
		}
	}
	for _, seed := range apptest.OrderBodySeeds {
		for _, body := range mutate(rng, seed, 4) {
			reqs = append(reqs, hostileRequest{method: "POST", target: "/v1/store/orders", contentType: "application/json", body: body})
		}
	}
	for _, ct := range apptest.ContentTypeSeeds {
		reqs = append(reqs, hostileRequest{method: "POST", target: "/v1/pets", contentType: ct, body: `{"name":"Rex","categoryId":1}`})
	}
	for _, seed := range apptest.ListQuerySeeds {
		for _, q := range mutate(rng, seed, 8) {
			reqs = append(reqs, hostileRequest{method: "GET", target: "/v1/pets?" + apptest.RequestLineSafe(q)},
				hostileRequest{method: "GET", target: "/v1/store/orders?" + apptest.RequestLineSafe(q)})
		}
	}
	for _, seed := range apptest.PetIDSeeds {
		for _, id := range mutate(rng, seed, 4) {
			reqs = append(reqs, hostileRequest{method: "GET", target: "/v1/pets/" + url.PathEscape(id)},
				hostileRequest{method: "GET", target: "/v1/store/orders/" + url.PathEscape(id)})
		}
	}
	for _, seed := range apptest.RawRequestSeeds {
		for _, raw := range mutate(rng, seed, 8) {
			reqs = append(reqs, hostileRequest{raw: []byte(raw)})
		}
	}
	for _, method := range []string{"PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "HEAD"} {
		for _, target := range []string{"/v1/pets", "/v1/pets/1", "/v1/store/orders", "/v1/store/orders/1", "/v1/categories", "/healthz", "/nowhere"} {
			reqs = append(reqs, hostileRequest{method: method, target: target})
		}
	}
	return append(reqs,
		hostileRequest{method: "GET", target: "/v1/pets?" + strings.Repeat("limit=1&", 900)},
		hostileRequest{method: "POST", target: "/v1/pets", contentType: "application/json", body: strings.Repeat(`{"a":`, 13000)},
		hostileRequest{method: "POST", target: "/v1/pets", contentType: "application/json", body: `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, mayReset: true},
		hostileRequest{raw: []byte("GET /v1/pets HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-A: b\r\n", 5000) + "\r\n")},
		hostileRequest{raw: []byte("GET /" + strings.Repeat("a", 100000) + " HTTP/1.1\r\nHost: x\r\n\r\n")},
	)
}

func TestHostileRequestsAgainstTheRunningBinaryGetNo5xxAndNoCrash(t *testing.T) {
	t.Parallel()
	bin := apptest.Binary(t)
	env := apptest.EnvFor(testenv.Postgres, t)
	env["PETSTORE_LOG_LEVEL"] = "debug"
	key := apptest.CreateKey(t, bin, env)
	p := apptest.StartProcess(t, bin, env)
	addr := strings.TrimPrefix(p.URL, "http://")
	reqs := hostileRequests()

	var mu sync.Mutex
	var problems []string
	work := make(chan hostileRequest)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := apptest.KeyClient(key, time.Minute)
			for r := range work {
				problem := ""
				if r.raw != nil {
					problem = apptest.RawExchange(addr, apptest.WithKey(r.raw, key))
				} else {
					problem = hostileHTTP(client, p.URL, r)
				}
				if problem != "" {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("%s %.200q %.200q: %s", r.method, r.target, r.body+string(r.raw), problem))
					mu.Unlock()
				}
			}
		}()
	}
	for _, r := range reqs {
		work <- r
	}
	close(work)
	wg.Wait()

	for _, problem := range problems[:min(len(problems), 20)] {
		t.Error(problem)
	}
	if res, err := http.Get(p.URL + "/healthz"); err != nil || res.StatusCode != 200 {
		t.Fatalf("after %d hostile requests the service does not answer: %v %v\n%s", len(reqs), res, err, p.Logs)
	}
	for _, bad := range []string{`"level":"ERROR"`, "panic", "goroutine "} {
		if p.Contains(bad) {
			t.Fatalf("the log shows %q after the hostile run:\n%s", bad, p.Logs)
		}
	}
	t.Logf("%d hostile requests, %d problems", len(reqs), len(problems))
}

// hostileHTTP sends r through net/http and returns what was wrong with the answer, or "".
func hostileHTTP(client *http.Client, base string, r hostileRequest) string {
	req, err := http.NewRequest(r.method, base+r.target, bytes.NewReader([]byte(r.body)))
	if err != nil {
		return "" // not a request net/http can send; the raw requests cover such bytes
	}
	if r.contentType != "" {
		if !apptest.ValidHeaderValue(r.contentType) {
			return ""
		}
		req.Header.Set("Content-Type", r.contentType)
	}
	res, err := client.Do(req)
	if err != nil && r.mayReset && (strings.Contains(err.Error(), "connection reset by peer") || strings.Contains(err.Error(), "broken pipe")) {
		return ""
	}
	if err != nil {
		return "no answer: " + err.Error()
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if r.method == "HEAD" {
		body = []byte(`{"code":"head","message":"no body","status":` + fmt.Sprint(res.StatusCode) + `}`)
	}
	return apptest.AnswerProblem(res.StatusCode, res.Header, body)
}

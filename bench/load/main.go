// Command load is the second load generator of `make bench`, beside wrk, so that no figure
// depends on one tool: a closed loop in Go, each of -c connections sending its next request as
// soon as the answer to the last one has been read, for -d. It prints the same result line as
// bench/wrk.lua:
//
//	RESULT <req/s> <p50 µs> <p99 µs> <requests> <non-2xx/3xx> <socket errors> <bytes read per request>
//
// Its client is fasthttp's (already a dependency of the service, through fiber), a different
// HTTP implementation from wrk's; the latencies are every request's, sorted, not a histogram.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	conns := flag.Int("c", 32, "connections, each with one request in flight")
	duration := flag.Duration("d", 4*time.Second, "how long to send")
	method := flag.String("m", "GET", "request method")
	body := flag.String("body", "", "request body (sent as application/json)")
	var hdrs headers
	flag.Var(&hdrs, "H", "request header \"Name: value\" (repeatable)")
	flag.Parse()
	if flag.NArg() != 1 || *conns < 1 {
		fmt.Fprintln(os.Stderr, "usage: load [-c 32] [-d 4s] [-m GET] [-body JSON] [-H 'Name: value']... URL")
		os.Exit(2)
	}
	url := flag.Arg(0)

	var req fasthttp.Request
	req.SetRequestURI(url)
	req.Header.SetMethod(*method)
	for _, h := range hdrs {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			fmt.Fprintf(os.Stderr, "load: header %q is not \"Name: value\"\n", h)
			os.Exit(2)
		}
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if *body != "" {
		req.Header.SetContentType("application/json")
		req.SetBodyString(*body)
	}
	client := &fasthttp.HostClient{Addr: string(req.Host()), MaxConns: *conns, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}

	type tally struct {
		latencies            []time.Duration
		bad, errors, readLen int
	}
	tallies := make([]tally, *conns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(*duration)
	for i := range tallies {
		wg.Add(1)
		go func(t *tally) {
			defer wg.Done()
			t.latencies = make([]time.Duration, 0, 1<<14)
			var r fasthttp.Request
			req.CopyTo(&r)
			var resp fasthttp.Response
			for {
				t0 := time.Now()
				if t0.After(deadline) {
					return
				}
				err := client.Do(&r, &resp)
				t.latencies = append(t.latencies, time.Since(t0))
				switch {
				case err != nil:
					t.errors++
				case resp.StatusCode() >= 400:
					t.bad++
				}
				t.readLen += len(resp.Header.Header()) + len(resp.Body())
				resp.Reset()
			}
		}(&tallies[i])
	}
	wg.Wait()
	elapsed := time.Since(start)

	var all []time.Duration
	var bad, errs, read int
	for _, t := range tallies {
		all = append(all, t.latencies...)
		bad, errs, read = bad+t.bad, errs+t.errors, read+t.readLen
	}
	if len(all) == 0 {
		fmt.Fprintln(os.Stderr, "load: no request completed")
		os.Exit(1)
	}
	slices.Sort(all)
	pct := func(p float64) int64 { return all[min(len(all)-1, int(p*float64(len(all))))].Microseconds() }
	fmt.Printf("RESULT %.1f %d %d %d %d %d %.0f\n", float64(len(all))/elapsed.Seconds(), pct(0.50), pct(0.99),
		len(all), bad, errs, float64(read)/float64(len(all)))
}

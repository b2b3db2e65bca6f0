// Command load is the second load generator of `make bench`, beside wrk, so that no figure
// depends on one tool: a closed loop in Go, each of -c connections sending its next request as
// soon as the answer to the last one has been read, for -d. It prints the same result line as
// bench/wrk.lua:
//
//	RESULT <req/s> <p50 µs> <p99 µs> <requests> <non-2xx> <socket errors> <bytes read per request>
//
// It shares the machine's cores with the servers it measures, so what it spends on an answer is
// taken from them. That cost is kept the same for every server: each connection is a plain TCP
// connection speaking HTTP/1.1 keep-alive, the request's bytes are built once, and an answer is
// read only as far as it must be: its status code (counted when not 2xx), the end of its headers
// and its Content-Length, the body then read and thrown away. No header is parsed into a
// structure, so an answer with twenty headers costs the client hardly more than one with three
// (a few nanoseconds a line, to find Content-Length), where a full HTTP client spends hundreds.
// Latencies are every request's, sorted, not a histogram.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
	addr, req, err := buildRequest(flag.Arg(0), *method, hdrs, *body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	r := run(addr, req, *method == "HEAD", *conns, *duration)
	if r.requests == 0 {
		fmt.Fprintln(os.Stderr, "load: no request completed")
		if r.lastErr != nil {
			fmt.Fprintln(os.Stderr, "load: last error:", r.lastErr)
		}
		os.Exit(1)
	}
	if r.lastErr != nil {
		fmt.Fprintln(os.Stderr, "load: last socket error:", r.lastErr)
	}
	fmt.Printf("RESULT %.1f %d %d %d %d %d %.0f\n", r.perSecond(), r.percentile(0.50).Microseconds(),
		r.percentile(0.99).Microseconds(), r.requests, r.bad, r.errors, float64(r.read)/float64(r.requests))
}

// buildRequest returns the address to dial and the bytes of the request, written once.
func buildRequest(rawURL, method string, hdrs []string, body string) (string, []byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return "", nil, fmt.Errorf("%q is not an http:// URL", rawURL)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), u.Host)
	for _, h := range hdrs {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return "", nil, fmt.Errorf("header %q is not \"Name: value\"", h)
		}
		fmt.Fprintf(&b, "%s: %s\r\n", strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	return addr, b.Bytes(), nil
}

// result is what the connections did, together.
type result struct {
	latencies     []time.Duration // sorted
	elapsed       time.Duration
	requests, bad int
	errors        int
	read          int64
	lastErr       error
}

func (r result) perSecond() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r result) percentile(p float64) time.Duration {
	return r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))]
}

// run sends req to addr on conns connections for d, each connection sending its next request
// once it has read the answer to the last one. A connection that fails is counted as a socket
// error and dialled again.
func run(addr string, req []byte, head bool, conns int, d time.Duration) result {
	type tally struct {
		latencies   []time.Duration
		bad, errors int
		read        int64
		lastErr     error
	}
	tallies := make([]tally, conns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := range tallies {
		wg.Add(1)
		go func(t *tally) {
			defer wg.Done()
			t.latencies = make([]time.Duration, 0, 1<<14)
			var c *conn
			for {
				t0 := time.Now()
				if t0.After(deadline) {
					break
				}
				if c == nil {
					var err error
					if c, err = dial(addr, deadline); err != nil {
						t.errors, t.lastErr = t.errors+1, err
						time.Sleep(10 * time.Millisecond)
						continue
					}
				}
				status, n, err := c.roundTrip(req, head)
				t.latencies = append(t.latencies, time.Since(t0))
				t.read += int64(n)
				if err != nil {
					_ = c.Close()
					c = nil
					if err != errClosed {
						t.errors, t.lastErr = t.errors+1, err
						continue
					}
				}
				if status < 200 || status > 299 {
					t.bad++
				}
			}
			if c != nil {
				_ = c.Close()
			}
		}(&tallies[i])
	}
	wg.Wait()
	r := result{elapsed: time.Since(start)}
	for _, t := range tallies {
		r.latencies = append(r.latencies, t.latencies...)
		r.bad, r.errors, r.read = r.bad+t.bad, r.errors+t.errors, r.read+t.read
		if t.lastErr != nil {
			r.lastErr = t.lastErr
		}
	}
	r.requests = len(r.latencies)
	slices.Sort(r.latencies)
	return r
}

// conn is one keep-alive connection and its read buffer.
type conn struct {
	net.Conn
	buf []byte
	// n bytes of buf are read and not yet used (a server answering ahead, which none should).
	n int
}

func dial(addr string, deadline time.Time) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	// One deadline for the connection's whole life instead of one per request: nothing may
	// hang the run, and no timer is set per request.
	if err := c.SetDeadline(deadline.Add(30 * time.Second)); err != nil {
		_ = c.Close()
		return nil, err
	}
	return &conn{Conn: c, buf: make([]byte, 64<<10)}, nil
}

var (
	errMalformed = errors.New("malformed answer")
	errNoLength  = errors.New("answer without Content-Length (chunked or until close), which load does not read")
	// errClosed is no failure: the answer was whole, and the server closes the connection after it.
	errClosed = errors.New("connection closed by the server")
)

// roundTrip writes req and reads its answer: it returns the status code and the bytes read.
func (c *conn) roundTrip(req []byte, head bool) (status, read int, err error) {
	if _, err := c.Write(req); err != nil {
		return 0, 0, err
	}
	// The status line and the headers, a line at a time as they arrive, up to the blank line.
	// A line costs a search for its end and a look at its first bytes.
	length, closing, pos := -1, false, 0
	for {
		i := bytes.IndexByte(c.buf[pos:c.n], '\n')
		if i < 0 {
			if c.n == len(c.buf) {
				return 0, c.n, errMalformed
			}
			m, err := c.Read(c.buf[c.n:])
			c.n += m
			read += m
			if err != nil {
				return 0, read, err
			}
			continue
		}
		line := c.buf[pos : pos+i]
		if i > 0 && line[i-1] == '\r' {
			line = line[:i-1]
		}
		start := pos
		pos += i + 1
		switch {
		case start == 0:
			if status, err = statusOf(line); err != nil {
				return 0, read, err
			}
			continue
		case len(line) == 0:
		case line[0]|0x20 == 'c':
			if err := headerLine(line, &length, &closing); err != nil {
				return status, read, err
			}
			continue
		default:
			continue
		}
		break
	}
	if head || status == 204 || status == 304 || status < 200 {
		length = 0
	} else if length < 0 {
		return status, read, errNoLength
	}
	// The body: whatever came with the headers, then reads until it is whole, thrown away.
	// What follows it (nothing, without pipelining) stays for the next answer.
	total := pos + length
	if c.n >= total {
		c.n = copy(c.buf, c.buf[total:c.n])
	} else {
		need := total - c.n
		c.n = 0
		for need > 0 {
			m, err := c.Read(c.buf)
			read += m
			if err != nil {
				return status, read, err
			}
			if m > need {
				c.n = copy(c.buf, c.buf[need:m])
			}
			need -= min(m, need)
		}
	}
	if closing {
		return status, read, errClosed
	}
	return status, read, nil
}

// statusOf reads the status code of a status line ("HTTP/1.1 200 OK").
func statusOf(line []byte) (int, error) {
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, errMalformed
	}
	status := 0
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return 0, errMalformed
		}
		status = status*10 + int(d-'0')
	}
	return status, nil
}

// headerLine notes Content-Length and Connection: close from one header line; any other line
// costs a look at a few of its bytes.
func headerLine(line []byte, length *int, closing *bool) error {
	if len(line) < 11 || line[0]|0x20 != 'c' || line[1]|0x20 != 'o' || line[2]|0x20 != 'n' {
		return nil
	}
	switch {
	case line[3]|0x20 == 't' && len(line) > 15 && line[8]|0x20 == 'l' && bytes.EqualFold(line[:15], []byte("content-length:")):
		n, err := strconv.Atoi(string(bytes.TrimSpace(line[15:])))
		if err != nil || n < 0 {
			return errMalformed
		}
		*length = n
	case line[3]|0x20 == 'n' && bytes.EqualFold(line[:11], []byte("connection:")):
		*closing = bytes.Contains(bytes.ToLower(line[11:]), []byte("close"))
	}
	return nil
}

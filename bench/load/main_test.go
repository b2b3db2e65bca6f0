package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The load generator against net/http's server: every answer it reads is counted once, with
// its status and its bytes, whatever size the body and however it arrives.
func TestRunCountsEveryAnswer(t *testing.T) {
	var served atomic.Int64
	body := strings.Repeat("x", 100_000) // larger than the read buffer: read in several pieces
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if r.Header.Get("Authorization") != "Bearer k" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Query().Get("size") {
		case "big":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = io.WriteString(w, body)
		case "post":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(b)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()

	for _, tc := range []struct {
		name, query, method, body string
		hdrs                      []string
		bad                       bool
		size                      int
	}{
		{name: "small", query: "", method: "GET", hdrs: []string{"Authorization: Bearer k"}, size: 2},
		{name: "big", query: "?size=big", method: "GET", hdrs: []string{"Authorization: Bearer k"}, size: len(body)},
		{name: "post", query: "?size=post", method: "POST", body: `{"a":1}`, hdrs: []string{"Authorization: Bearer k"}, size: 7},
		{name: "refused", query: "", method: "GET", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			served.Store(0)
			addr, req, err := buildRequest(srv.URL+"/"+tc.query, tc.method, tc.hdrs, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			r := run(addr, req, false, 4, 300*time.Millisecond)
			if r.errors != 0 || r.lastErr != nil {
				t.Fatalf("%d socket errors, the last %v", r.errors, r.lastErr)
			}
			if r.requests == 0 || int64(r.requests) != served.Load() {
				t.Fatalf("counted %d answers, the server gave %d", r.requests, served.Load())
			}
			if wantBad := map[bool]int{true: r.requests}[tc.bad]; r.bad != wantBad {
				t.Fatalf("%d answers counted as not 2xx, want %d", r.bad, wantBad)
			}
			if perAnswer := r.read / int64(r.requests); perAnswer <= int64(tc.size) || perAnswer > int64(tc.size)+300 {
				t.Fatalf("%d bytes read per answer, want the body's %d and its headers", perAnswer, tc.size)
			}
		})
	}
}

// A server that answers and closes the connection: the answer counts, and the next request goes
// on a new connection without an error; one that closes without answering is a socket error.
func TestRunRedialsAClosedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := accepted.Add(1)
			go func() {
				defer c.Close()
				if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
					return
				}
				if n%2 == 0 {
					return // closed without an answer
				}
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
			}()
		}
	}()
	addr, req, err := buildRequest("http://"+ln.Addr().String()+"/", "GET", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	r := run(addr, req, false, 1, 200*time.Millisecond)
	if r.requests < 2 || r.bad != 0 {
		t.Fatalf("%d answers, %d not 2xx", r.requests, r.bad)
	}
	if r.errors == 0 || r.lastErr == nil {
		t.Fatal("connections closed without an answer were not counted as socket errors")
	}
}

func TestHeaderLines(t *testing.T) {
	for _, tc := range []struct {
		lines   []string
		length  int
		closing bool
		bad     bool
	}{
		{[]string{"Content-Length: 12"}, 12, false, false},
		{[]string{"X-A: 1", "content-length:3", "Content-Type: text/plain", "Connection: Close"}, 3, true, false},
		{[]string{"Transfer-Encoding: chunked", "Cross-Origin-Opener-Policy: same-origin", "Connection: keep-alive"}, -1, false, false},
		{[]string{"Content-Length: x"}, 0, false, true},
	} {
		length, closing := -1, false
		var err error
		for _, l := range tc.lines {
			if err = headerLine([]byte(l), &length, &closing); err != nil {
				break
			}
		}
		if (err != nil) != tc.bad || (!tc.bad && (length != tc.length || closing != tc.closing)) {
			t.Errorf("%q: %d %v %v, want %d %v, error %v", tc.lines, length, closing, err, tc.length, tc.closing, tc.bad)
		}
	}
	for line, want := range map[string]int{"HTTP/1.1 200 OK": 200, "HTTP/1.0 404 Not Found": 404, "HTTP/1.1 20x OK": -1, "HTTP/2 200": -1} {
		if got, err := statusOf([]byte(line)); got != want && !(want < 0 && err != nil) {
			t.Errorf("%q: status %d, %v; want %d", line, got, err, want)
		}
	}
}

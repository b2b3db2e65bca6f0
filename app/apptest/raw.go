package apptest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Dial opens a raw TCP connection to the server, closed when the test ends, for requests a
// well-behaved client would not send.
func (s *Server) Dial(tb testing.TB) net.Conn {
	tb.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = conn.Close() })
	return conn
}

// Raw writes raw bytes as one request on a fresh connection and reads the answer. The bytes go
// out as they are: a malformed request line, stray control characters or a header far over the
// cap reach the server's parser.
func (s *Server) Raw(tb testing.TB, raw string) *Response {
	tb.Helper()
	conn := s.Dial(tb)
	// A generous bound: a server that never answers fails the test instead of hanging it.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		tb.Fatalf("write raw request: %v", err)
	}
	line, _, _ := strings.Cut(raw, "\r\n")
	req := &http.Request{Method: "RAW", URL: &url.URL{Path: line}}
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		tb.Fatalf("raw request %.80q: no HTTP answer: %v", raw, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("raw request %.80q: %v", raw, err)
	}
	return &Response{Response: res, Body: body}
}

// DoUnchecked sends req like Do, but holds neither it nor its answer to the API document: for
// the answers the HTTP server gives on its own before any route runs (431 for headers over the
// cap), which the document does not list.
func (s *Server) DoUnchecked(tb testing.TB, req *http.Request) *Response {
	tb.Helper()
	res, err := s.exchange(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return res
}

// exchange sends req with the server's headers and reads the whole answer.
func (s *Server) exchange(req *http.Request) (*Response, error) {
	for k, vs := range s.Headers {
		if req.Header.Get(k) == "" {
			req.Header[k] = vs
		}
	}
	res, err := http.DefaultClient.Do(req) // #nosec G704 -- the test's own server, on loopback
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Response: res, Body: body}, nil
}

// OverHeaderCap reports whether req's request line and headers may pass the server's cap on
// them (PETSTORE_MAX_HEADER_BYTES), which the server refuses with 431 before any route runs.
func (s *Server) OverHeaderCap(req *http.Request) bool {
	n := len(req.Method) + len(req.URL.RequestURI()) + len(req.Host) + 64 // the request and Host lines
	for k, vs := range req.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n > s.Cfg.MaxHeaderBytes
}

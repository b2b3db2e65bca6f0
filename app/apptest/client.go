package apptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Response is an answer as a client sees it, with its body read.
type Response struct {
	*http.Response
	Body []byte
}

// JSON decodes the body into v, failing the test when it is not JSON of that shape.
func (r *Response) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("%s %s: body is not the expected JSON: %v\n%s", r.Request.Method, r.Request.URL, err, r.Body)
	}
}

// ErrorBody decodes an Error body and checks that it is complete and its status matches the
// response's.
func (r *Response) ErrorBody(tb testing.TB) (code, message string) {
	tb.Helper()
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Status  int    `json:"status"`
	}
	r.JSON(tb, &e)
	if e.Status != r.StatusCode || e.Code == "" || e.Message == "" {
		tb.Fatalf("%s %s: not a complete Error body for status %d: %s", r.Request.Method, r.Request.URL, r.StatusCode, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		tb.Fatalf("%s %s: error Content-Type %q, want application/json", r.Request.Method, r.Request.URL, ct)
	}
	return e.Code, e.Message
}

// NewRequest makes a request to the server; target is a path such as /v1/pets, or an absolute
// URL the service handed out (a Link or a Location).
func (s *Server) NewRequest(tb testing.TB, method, target string, body io.Reader) *http.Request {
	tb.Helper()
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		target = s.URL + target
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		tb.Fatal(err)
	}
	return req
}

// Do sends a request over the loopback connection and reads the answer. An exchange with /v1 is
// checked against the published API document (see Invalid).
func (s *Server) Do(tb testing.TB, req *http.Request) *Response {
	tb.Helper()
	res, err := s.Send(tb, req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return res
}

// Send is Do returning a failed exchange's error instead of failing the test, for requests past
// the server's cap on the request line and headers: the server answers them 431 and closes the
// connection without reading the rest, so a client still sending may see the connection reset
// instead of the answer.
func (s *Server) Send(tb testing.TB, req *http.Request) (*Response, error) {
	tb.Helper()
	var reqBody []byte
	if req.Body != nil {
		var err error
		if reqBody, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	out, err := s.exchange(req)
	if err != nil {
		return nil, err
	}
	s.checkContract(tb, req, reqBody, out)
	return out, nil
}

// Get sends a GET to target, a path such as /v1/pets.
func (s *Server) Get(tb testing.TB, target string) *Response {
	tb.Helper()
	return s.Do(tb, s.NewRequest(tb, http.MethodGet, target, nil))
}

// PostJSON sends a POST whose body is v encoded as JSON, or the bytes themselves for a string
// or []byte (to send malformed bodies).
func (s *Server) PostJSON(tb testing.TB, target string, v any) *Response {
	tb.Helper()
	var body []byte
	switch b := v.(type) {
	case string:
		body = []byte(b)
	case []byte:
		body = b
	default:
		var err error
		if body, err = json.Marshal(v); err != nil {
			tb.Fatal(err)
		}
	}
	req := s.NewRequest(tb, http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.Do(tb, req)
}

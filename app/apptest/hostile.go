package apptest

// Hostile input that the fuzz targets (app/fuzz) start from and that the hostile run against the
// real binary (app/hostile_test.go) mutates and replays, and how either judges an answer to it.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/petstore/petstore/models"
)

// Seeds: real requests, good and bad, that the fuzzers start from and the hostile run replays.
var PetBodySeeds = []string{
	`{"name":"Rex","categoryId":1}`,
	`{"name":"  Tom  ","categoryId":2,"status":"pending"}`,
	`{"name":"Zoë the <b>brave</b>","categoryId":3,"status":"sold"}`,
	`{"name":"` + strings.Repeat("🐕", 100) + `","categoryId":6}`,
	`{"categoryId":1}`, `{"name":"Rex"}`, `{"name":null,"categoryId":1}`, `{"name":"","categoryId":1}`,
	`{"name":"Re\u0007x","categoryId":1}`, `{"name":"Re\u0000x","categoryId":1}`, `{"name":"\ud800","categoryId":1}`,
	`{"name":5,"categoryId":1}`, `{"name":"Rex","categoryId":1.5}`, `{"name":"Rex","categoryId":"1"}`,
	`{"name":"Rex","categoryId":0}`, `{"name":"Rex","categoryId":-1}`, `{"name":"Rex","categoryId":999}`,
	`{"name":"Rex","categoryId":9223372036854775807}`, `{"name":"Rex","categoryId":9223372036854775808}`,
	`{"name":"Rex","categoryId":1e2}`, `{"name":"Rex","categoryId":1,"status":"lost"}`,
	`{"name":"Rex","categoryId":1,"status":null}`, `{"name":"Rex","categoryId":1,"colour":"red"}`,
	`{"id":7,"name":"Rex","categoryId":1}`, `{"name":"Rex","name":"Max","categoryId":1}`,
	`{"NAME":"Rex","categoryId":1}`, `{"name":"Rex",`, `[{"name":"Rex","categoryId":1}]`,
	`{"name":"Rex","categoryId":1} {}`, ``, `null`, `"Rex"`, `{}`, `{"name":{"a":1},"categoryId":[1]}`,
	strings.Repeat("[", 5000), `{"name":"'; DROP TABLE pets; --","categoryId":1}`,
	`{"name":"Rex","categoryId":1}` + "\x00", "\xef\xbb\xbf" + `{"name":"Rex","categoryId":1}`,
}

var ContentTypeSeeds = []string{"application/json; charset=utf-8", "application/problem+json", "text/plain", "",
	"application/x-www-form-urlencoded", "application/json; charset", "multipart/form-data; boundary=x"}

var ListQuerySeeds = []string{
	"", "limit=10", "status=sold", "limit=100&status=pending", "limit=1", "cursor=" + models.Cursor{ID: 3}.Encode(),
	"limit=2&cursor=" + models.Cursor{ID: 10}.Encode() + "&status=available", "cursor=" + models.Cursor{ID: -1}.Encode(),
	"cursor=" + models.Cursor{ID: 10, Before: true}.Encode(), "cursor=" + models.Cursor{Sort: models.Sort{Key: "name"}, ID: 3, Value: "Pet"}.Encode(),
	"cursor=djE6MTA", "id=1&id=2", "id=0", "id=", "id=abc", "categoryId=1", "categoryId=0", "categoryId=", "categoryId=1&categoryId=2",
	"status=sold&categoryId=2&id=3&id=5", "LIMIT=5", "Status=sold",
	"limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5", "limit=1e2", "limit=%20", "limit=",
	"limit=99999999999999999999", "status=lost", "status=SOLD", "status=", "cursor=%%%", "cursor=bm90LWEtY3Vyc29y",
	"limit=1&limit=2", "status=sold&status=pending", "limit[]=1", "limit=%00", "status=sold%00",
	"cursor=" + strings.Repeat("A", 4000), "&&&=&=", "a=b", "?", "limit=10#frag", "status=' OR 1=1 --",
}

var PetIDSeeds = []string{"1", "0", "-1", "abc", "99999999999999999999", "9223372036854775807",
	"-9223372036854775808", "1.5", "1e3", " 1", "1 ", "+1", "0x10", "\x00", "%00", "..", "../categories",
	"1/2", "１", "", "' OR 1=1 --", strings.Repeat("9", 1000)}

var RawRequestSeeds = []string{
	"GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets?limit=5&status=sold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{\"name\":\"Rex\",\"categoryId\":1}",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1d\r\n{\"name\":\"Rex\",\"categoryId\":1}\r\n0\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
	"POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
	"GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/categories HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET //v1//pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets%00 HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET http://evil.example/v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
	"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n",
	"TRACE /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets HTTP/1.0\r\n\r\n",
	"GET /v1/pets HTTP/2.0\r\nHost: x\r\n\r\n",
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"GET /v1/pets\r\n\r\n",
	"get /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-ID: ../../\x1b[31m\r\n\r\n",
	"GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x00\r\n\r\n",
	"GET /v1/pets HTTP/1.1\nHost: x\n\n",
	"\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
	"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
}

var OrderBodySeeds = []string{
	`{"petId":1}`, `{"petId":2,"quantity":1}`, `{"petId":3,"shipDate":"2030-12-01T10:00:00Z"}`,
	`{"petId":4,"quantity":1,"shipDate":"2030-12-01T10:00:00+02:00"}`, `{"petId":5,"shipDate":"2026-12-01"}`,
	`{"petId":6,"shipDate":"2026-13-01T00:00:00Z"}`, `{"petId":7,"shipDate":"tomorrow"}`, `{"petId":8,"shipDate":123}`,
	`{"petId":9,"shipDate":null}`, `{"petId":10,"shipDate":"9999-12-31T23:59:59Z"}`, `{"petId":11,"shipDate":"0001-01-01T00:00:00Z"}`,
	`{"petId":1,"quantity":2}`, `{"petId":1,"quantity":0}`, `{"petId":1,"quantity":-1}`, `{"petId":1,"quantity":1.5}`,
	`{"petId":1,"quantity":"1"}`, `{"petId":1,"quantity":2147483648}`, `{"petId":0}`, `{"petId":-1}`, `{"petId":999999}`,
	`{"petId":9223372036854775807}`, `{"petId":"1"}`, `{"petId":null}`, `{}`, `{"quantity":1}`, `{"petId":1,"status":"delivered"}`,
	`{"petId":1,"complete":true}`, `{"id":5,"petId":1}`, `{"petId":1`, `[{"petId":1}]`, `null`, ``,
}

// WithKey adds an Authorization header with key after the request line of raw, when it has
// one, so that hostile bytes reach the handlers rather than stop at authentication.
func WithKey(raw []byte, key string) []byte {
	line, rest, ok := bytes.Cut(raw, []byte("\r\n"))
	if !ok {
		return raw
	}
	return slices.Concat(line, []byte("\r\nAuthorization: Bearer "+key+"\r\n"), rest)
}

// RawExchange sends raw as it is on a fresh connection to addr (host:port) and checks every
// answer the server gives; it returns what was wrong, or "".
func RawExchange(addr string, raw []byte) string {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(raw); err != nil {
		return "" // the server already closed the connection: nothing was answered wrongly
	}
	// Half-close, so the server sees the end of an incomplete request at once.
	_ = conn.(*net.TCPConn).CloseWrite()
	r := bufio.NewReader(conn)
	for {
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			// The end of the answers, or bytes this reader cannot frame (the answer to a HEAD, a
			// connection cut after a parse error): what was read so far was checked.
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				return "the server neither answered nor closed the connection"
			}
			return ""
		}
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if problem := AnswerProblem(res.StatusCode, res.Header, body); problem != "" {
			return problem
		}
	}
}

// AnswerProblem says what is wrong with an answer to a hostile request: a 5xx, a refusal
// without a complete Error body, missing security headers or a Server banner. "" means nothing.
func AnswerProblem(status int, header http.Header, body []byte) string {
	if status >= 500 {
		return fmt.Sprintf("status %d: %s", status, body)
	}
	if status >= 400 {
		var e struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Status  int    `json:"status"`
		}
		if json.Unmarshal(body, &e) != nil || e.Status != status || e.Code == "" || e.Message == "" ||
			header.Get("Content-Type") != "application/json" {
			return fmt.Sprintf("status %d without a complete Error body: %q", status, body)
		}
	}
	if header.Get("X-Content-Type-Options") != "nosniff" || header.Get("Server") != "" {
		return fmt.Sprintf("status %d without the security headers, or with a Server banner: %v", status, header)
	}
	return ""
}

// RequestLineSafe percent-encodes the bytes a request line cannot carry (controls, space, '#',
// non-ASCII) and leaves everything else, malformed escapes included, for the server to parse.
func RequestLineSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ValidHeaderValue reports whether net/http's client will send v as a header value.
func ValidHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

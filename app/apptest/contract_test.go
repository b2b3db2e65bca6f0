package apptest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/apptest"
)

// recorder stands in for the test a helper fails, keeping what it was told.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// fakeService answers every request with what the case says, so each exchange can break the
// document in one way.
func fakeService(t *testing.T, status int, headers map[string]string, body string) *apptest.Server {
	a := fiber.New(fiber.Config{DisableStartupMessage: true})
	a.Use(func(c *fiber.Ctx) error {
		c.Set("X-Request-ID", "abc-123")
		c.Set("X-RateLimit-Limit", "60")
		c.Set("X-RateLimit-Remaining", "59")
		c.Set("X-RateLimit-Reset", "1795219260")
		for k, v := range headers {
			c.Set(k, v)
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Status(status).SendString(body)
	})
	return &apptest.Server{App: a, URL: apptest.Listen(t, a), Headers: http.Header{}}
}

func TestEveryExchangeWithV1IsHeldToThePublishedDocument(t *testing.T) {
	const category = `[{"id":1,"name":"Dogs"}]`
	const errorBody = `{"code":"invalid_request","message":"limit: must be an integer from 1 to 100","status":400}`
	for _, tc := range []struct {
		name, path string
		invalid    bool
		status     int
		headers    map[string]string
		body       string
		complaint  string // empty when the exchange is as documented
	}{
		{"documented answer", "/v1/categories", false, 200, nil, category, ""},
		{"documented error", "/v1/pets?limit=5", false, 400, nil, errorBody, ""},
		{"outside /v1 is not checked", "/healthz", false, 418, nil, `"teapot"`, ""},
		{"undocumented status", "/v1/categories", false, 418, nil, errorBody, "status is not supported"},
		{"missing field", "/v1/categories", false, 200, nil, `[{"id":1}]`, `"name"`},
		{"field of the wrong type", "/v1/categories", false, 200, nil, `[{"id":"1","name":"Dogs"}]`, "id"},
		{"error body of the wrong shape", "/v1/pets", false, 400, nil, `{"error":"bad"}`, "code"},
		{"malformed documented header", "/v1/categories", false, 200, map[string]string{"X-RateLimit-Remaining": "many"}, category, "X-RateLimit-Remaining"},
		{"missing required header", "/v1/pets/1", false, 401, nil, errorBody, "WWW-Authenticate"},
		{"request off the document", "/v1/pets?limit=0", false, 400, nil, errorBody, "limit"},
		{"request off the document on purpose", "/v1/pets?limit=0", true, 400, nil, errorBody, ""},
		{"undocumented route", "/v1/nothing", false, 404, nil, errorBody, "no such operation"},
		{"undocumented route on purpose", "/v1/nothing", true, 404, nil, errorBody, ""},
		{"undocumented route answering no Error", "/v1/nothing", true, 404, nil, `not found`, "not an Error body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeService(t, tc.status, tc.headers, tc.body)
			if tc.invalid {
				s = s.Invalid()
			}
			rec := &recorder{TB: t}
			s.Get(rec, tc.path)
			got := strings.Join(rec.errs, "\n")
			switch {
			case tc.complaint == "" && got != "":
				t.Fatalf("a documented exchange failed the test:\n%s", got)
			case tc.complaint != "" && !strings.Contains(got, tc.complaint):
				t.Fatalf("want the test failed with a message naming %q, got %q", tc.complaint, got)
			}
		})
	}
}

package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/petstore/petstore/docs"
)

// The published document holds the service to its word: every request a test sends to /v1 and
// every answer it gets must match docs/openapi.json (statuses, headers, bodies), so an
// undocumented status, header or field fails the test that met it.
var contract struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

// contractOptions check everything the document says. Authentication is the server's to decide:
// a request without a key is still a request the document describes (its answer is the 401).
var contractOptions = &openapi3filter.Options{
	IncludeResponseStatus:             true,
	RejectWhenRequestBodyNotSpecified: true,
	SkipSettingDefaults:               true,
	MultiError:                        true,
	AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
	// The failing value and the path to it are enough; the whole schema buries them.
	SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
}

func loadContract() (*openapi3.T, routers.Router, error) {
	contract.once.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
		if err != nil {
			contract.err = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			contract.err = err
			return
		}
		// The relative server the running service lists first: it matches any test server.
		doc.Servers = openapi3.Servers{{URL: "/v1"}}
		contract.doc = doc
		contract.router, contract.err = gorillamux.NewRouter(doc)
	})
	return contract.doc, contract.router, contract.err
}

// Invalid returns a copy of s for requests that break the published document on purpose (a bad
// parameter, an unknown field, a route that does not exist): their answers are still checked
// against the document, the requests themselves are not.
func (s *Server) Invalid() *Server {
	c := *s
	c.invalidRequests = true
	return &c
}

// checkContract validates one exchange with /v1 against the published document, failing the test
// (without stopping it) on any mismatch.
func (s *Server) checkContract(tb testing.TB, req *http.Request, reqBody []byte, res *Response) {
	tb.Helper()
	if req.URL.Path != "/v1" && !strings.HasPrefix(req.URL.Path, "/v1/") {
		return
	}
	doc, router, err := loadContract()
	if err != nil {
		tb.Fatalf("docs/openapi.json does not load: %v", err)
	}
	exchange := req.Method + " " + req.URL.RequestURI()
	// The HTTP server's own refusals, made before the request is read in full and so before any
	// route runs (408, 431: docs/design.md, "Errors"), are listed under no operation: the one
	// thing the document says of them is that they are Error bodies.
	if res.StatusCode == http.StatusRequestTimeout || res.StatusCode == http.StatusRequestHeaderFieldsTooLarge {
		checkErrorBody(tb, doc, exchange, res)
		return
	}
	ctx := context.Background()
	sent := req.Clone(ctx)
	sent.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := router.FindRoute(sent)
	if err != nil {
		if !s.invalidRequests {
			tb.Errorf("contract: %s: no such operation in docs/openapi.json (%v); mark deliberate misuse with s.Invalid()", exchange, err)
		}
		if res.StatusCode >= 400 {
			checkErrorBody(tb, doc, exchange, res)
		}
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: sent, PathParams: params, Route: route, Options: contractOptions}
	if !s.invalidRequests {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			tb.Errorf("contract: %s: the request does not match docs/openapi.json (mark deliberate misuse with s.Invalid()):\n%v", exchange, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Options: contractOptions}
	out.SetBodyBytes(res.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		tb.Errorf("contract: %s: the %d answer does not match docs/openapi.json:\n%v\nbody: %.500s", exchange, res.StatusCode, err, res.Body)
	}
}

// checkErrorBody holds refusals of requests outside the documented operations (unknown paths and
// methods) to the one thing the document says of them: they are Error bodies.
func checkErrorBody(tb testing.TB, doc *openapi3.T, exchange string, res *Response) {
	tb.Helper()
	var body any
	err := json.Unmarshal(res.Body, &body)
	if err == nil {
		err = doc.Components.Schemas["Error"].Value.VisitJSON(body, openapi3.MultiErrors(), openapi3.DisableSchemaErrorDetails())
	}
	if ct := res.Header.Get("Content-Type"); err == nil && ct != "application/json" {
		err = errors.New("Content-Type " + ct + ", want application/json")
	}
	if err != nil {
		tb.Errorf("contract: %s: the %d answer is not an Error body: %v\nbody: %.500s", exchange, res.StatusCode, err, res.Body)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes/apiservers"
)

// securityScheme is the name the handlers' `@Security` annotations use.
const securityScheme = "BearerAuth"

// schemaName is how the document names a schema (Pet, NewOrder); swag's default, the Go package
// and type (models.PetStatus), is not part of the interface.
var schemaName = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// stabilities are the values docs/design.md gives `x-stability`.
var stabilities = []string{"beta", "experimental"}

// requiredScope is the extension that names the scope an operation needs (`@x-required-scope`
// on its handler, the same scope routes.go checks), or the scopes of which it needs one,
// separated by " or " (listEvents: "pets:read or orders:read").
const requiredScope = "x-required-scope"

// scopeAlternatives splits an x-required-scope into the scopes any of which will do.
func scopeAlternatives(sc string) []string { return strings.Split(sc, " or ") }

// convert turns swag's Swagger 2.0 document into the published OpenAPI 3 document.
// traitTag marks a tag that holds documentation and no operation (Redoc's extension).
const traitTag = "x-traitTag"

func convert(swagger []byte, servers []apiservers.Server, facts serviceFacts) ([]byte, error) {
	var doc2 openapi2.T
	if err := json.Unmarshal(swagger, &doc2); err != nil {
		return nil, fmt.Errorf("swagger.json: %w", err)
	}
	// swag writes a parameter's example(...) where Swagger 2.0 has no field for it; carry it over
	// as an extension, which the conversion keeps. (Swagger UI fills "Try it out" with it.)
	for _, item := range doc2.Paths {
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				if ex, ok := p.Extensions["example"]; ok {
					p.Extensions["x-example"] = ex
				}
				binaryBody(p)
			}
		}
	}
	doc, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		return nil, fmt.Errorf("convert to OpenAPI 3: %w", err)
	}
	if err := complete(doc, servers, facts); err != nil {
		return nil, err
	}
	out, err := encode(doc)
	if err != nil {
		return nil, err
	}
	// Check the bytes as a client will read them, with every $ref resolved.
	published, err := openapi3.NewLoader().LoadFromData(out)
	if err != nil {
		return nil, fmt.Errorf("reload the converted document: %w", err)
	}
	if err := published.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("the converted document is not valid OpenAPI 3: %w", err)
	}
	if err := check(published); err != nil {
		return nil, err
	}
	return out, nil
}

// binaryBody moves the format and maxLength swag writes beside a body parameter (a binary upload:
// `body string ... format(binary) maxlength(...)`) into its schema, where OpenAPI 3 reads them.
func binaryBody(p *openapi2.Parameter) {
	if p.In != "body" || p.Schema == nil || p.Schema.Value == nil || p.Format == "" {
		return
	}
	p.Schema.Value.Format, p.Format = p.Format, ""
	p.Schema.Value.MaxLength, p.MaxLength = p.MaxLength, nil
}

// complete adds to the converted document what swag cannot write and what holds for every
// operation, so a new handler needs nothing but its own annotations.
func complete(doc *openapi3.T, servers []apiservers.Server, facts serviceFacts) error {
	doc.Servers = nil
	for _, s := range servers {
		doc.Servers = append(doc.Servers, &openapi3.Server{URL: s.URL, Description: s.Description,
			Extensions: map[string]any{"x-internal": s.Internal}})
	}
	if c := doc.Info.Contact; c != nil && c.Name == "" && c.URL == "" && c.Email == "" {
		doc.Info.Contact = nil
	}
	// swag writes a tag's extensions as strings; Redoc's x-traitTag is a boolean.
	for _, t := range doc.Tags {
		if v, ok := t.Extensions[traitTag].(string); ok {
			t.Extensions[traitTag] = v == "true"
		}
	}

	// Swagger 2.0 can only call the key an apiKey in the Authorization header.
	scheme := doc.Components.SecuritySchemes[securityScheme]
	if scheme == nil || scheme.Value == nil {
		return fmt.Errorf("routes/api.go must declare the security definition %s", securityScheme)
	}
	doc.Components.SecuritySchemes[securityScheme] = &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
		Type: "http", Scheme: "bearer", Description: scheme.Value.Description,
	}}
	bearer := openapi3.SecurityRequirements{{securityScheme: []string{}}}
	doc.Security = bearer

	if doc.Components.Headers == nil {
		doc.Components.Headers = openapi3.Headers{}
	}
	for name, h := range sharedHeaders() {
		doc.Components.Headers[name] = &openapi3.HeaderRef{Value: h}
	}
	if doc.Components.Responses == nil {
		doc.Components.Responses = openapi3.ResponseBodies{}
	}
	for _, r := range sharedResponses {
		doc.Components.Responses[r.name] = &openapi3.ResponseRef{Value: r.response(nil)}
	}

	errorSchema := doc.Components.Schemas["Error"]
	if errorSchema == nil || errorSchema.Value == nil || errorSchema.Value.Properties["code"] == nil {
		return errors.New("no Error schema with a code: routes/errors.go must name its type //	@name	Error")
	}
	// Every code the service has, from its own table, so a code added there is listed here.
	errorSchema.Value.Properties["code"].Value.Enum = nil
	for _, code := range facts.errorCodes {
		errorSchema.Value.Properties["code"].Value.Enum = append(errorSchema.Value.Properties["code"].Value.Enum, code)
	}

	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Security == nil {
				op.Security = &bearer
			}
			for _, p := range op.Parameters {
				if p.Value == nil {
					continue
				}
				if ex, ok := p.Value.Extensions["x-example"]; ok {
					p.Value.Example = ex
					delete(p.Value.Extensions, "x-example")
				}
				if p.Value.In == openapi3.ParameterInHeader && p.Value.Name == headerIdempotencyKey && p.Value.Schema != nil {
					p.Value.Schema.Value.Pattern = facts.idempotencyKeyPattern
				}
				if err := arrayLimits(p.Value); err != nil {
					return fmt.Errorf("%s: parameter %s: %w", op.OperationID, p.Value.Name, err)
				}
			}
			limitPages(op)
			completeResponses(op)
			closeRequestBody(doc, op)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				delete(op.RequestBody.Value.Extensions, "x-originalParamName")
			}
		}
	}
	for _, s := range doc.Components.Schemas {
		// Go constant names of enums are not part of the interface.
		delete(s.Value.Extensions, "x-enum-varnames")
		delete(s.Value.Extensions, "x-enum-comments")
		delete(s.Value.Extensions, "x-enum-descriptions")
	}
	eachSchema(doc, func(_ schemaPlace, s *openapi3.Schema) {
		if s.Type.Is(openapi3.TypeString) && s.Format == "date-time" && s.MaxLength == nil {
			s.MaxLength = openapi3.Ptr(uint64(maxDateTime))
		}
	})
	if err := eventUnion(doc); err != nil {
		return err
	}
	eachSchema(doc, func(_ schemaPlace, s *openapi3.Schema) { oneOfSchemas(s) })
	var itemErr error
	eachSchema(doc, func(_ schemaPlace, s *openapi3.Schema) { itemErr = errors.Join(itemErr, itemLimits(s)) })
	if itemErr != nil {
		return itemErr
	}
	addHeadOperations(doc)
	describeScopes(doc)
	return nil
}

// eventUnion makes Event what a generated client can tell apart: a oneOf of PetEvent and
// OrderEvent with a discriminator on type that maps each event type, each with its object's
// schema and a typed data.previous (PetPrevious, OrderPrevious: the object's fields that can
// change, all optional). listEvents' type parameter refers to EventType. swag writes Event as one
// object (models.EventResponse, which the service encodes), from which both are made.
func eventUnion(doc *openapi3.T) error {
	schemas := doc.Components.Schemas
	event, types := schemas["Event"], schemas["EventType"]
	if event == nil || event.Value == nil || types == nil || types.Value == nil || event.Value.Properties["data"] == nil {
		return errors.New("no Event with data and no EventType: models/response.go must name them")
	}
	ref := func(name string) *openapi3.SchemaRef { return openapi3.NewSchemaRef("#/components/schemas/"+name, nil) }
	previous := func(of string, fixed ...string) *openapi3.Schema {
		s := openapi3.NewObjectSchema()
		s.Description = "The fields of the " + of + " that this change changed, with their earlier values; absent for a creation or deletion."
		for name, p := range schemas[of].Value.Properties {
			if !slices.Contains(fixed, name) {
				s.WithPropertyRef(name, p)
			}
		}
		return s
	}
	schemas["PetPrevious"] = openapi3.NewSchemaRef("", previous("Pet", "id", "createdAt"))
	schemas["OrderPrevious"] = openapi3.NewSchemaRef("", previous("Order", "id", "createdAt", "petId", "quantity"))
	union := &openapi3.Schema{Description: event.Value.Description,
		Discriminator: &openapi3.Discriminator{PropertyName: "type", Mapping: map[string]openapi3.MappingRef{}}}
	for _, kind := range []struct{ name, object, prefix string }{{"PetEvent", "Pet", "pet."}, {"OrderEvent", "Order", "order."}} {
		typ := openapi3.NewStringSchema()
		typ.Description = event.Value.Properties["type"].Value.Description
		for _, v := range types.Value.Enum {
			if t := fmt.Sprint(v); strings.HasPrefix(t, kind.prefix) {
				typ.Enum = append(typ.Enum, t)
				union.Discriminator.Mapping[t] = openapi3.MappingRef{Ref: "#/components/schemas/" + kind.name}
			}
		}
		typ.Example = typ.Enum[0]
		data := *event.Value.Properties["data"].Value
		data.Properties = openapi3.Schemas{"object": ref(kind.object), "previous": ref(kind.object + "Previous")}
		data.Properties["object"] = &openapi3.SchemaRef{Ref: "#/components/schemas/" + kind.object}
		s := *event.Value
		s.Description = "Something that happened to " + map[string]string{"Pet": "an animal", "Order": "an order"}[kind.object] + " (" + kind.prefix + "* events)."
		s.Properties = openapi3.Schemas{}
		for name, p := range event.Value.Properties {
			s.Properties[name] = p
		}
		s.Properties["type"] = openapi3.NewSchemaRef("", typ)
		s.Properties["data"] = openapi3.NewSchemaRef("", &data)
		schemas[kind.name] = openapi3.NewSchemaRef("", &s)
		union.OneOf = append(union.OneOf, ref(kind.name))
	}
	schemas["Event"] = openapi3.NewSchemaRef("", union)
	if item := doc.Paths.Value("/events"); item != nil && item.Get != nil {
		if p := item.Get.Parameters.GetByInAndName(openapi3.ParameterInQuery, "type"); p != nil {
			p.Schema = ref("EventType")
		}
	}
	return nil
}

// itemLimits sets the limits of the strings of an array property, which swag's field tags
// cannot write, from the extensions they are given in: extensions:"x-items-max-length=32,
// x-items-pattern=^[a-z0-9-]+$".
func itemLimits(s *openapi3.Schema) error {
	for _, name := range []string{"x-items-min-length", "x-items-max-length", "x-items-pattern"} {
		v, ok := s.Extensions[name]
		if !ok {
			continue
		}
		delete(s.Extensions, name)
		if !s.Type.Is(openapi3.TypeArray) || s.Items == nil || s.Items.Value == nil {
			return fmt.Errorf("%s on a schema that is not an array", name)
		}
		text := fmt.Sprint(v)
		if name == "x-items-pattern" {
			s.Items.Value.Pattern = text
			continue
		}
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return fmt.Errorf("%s=%q: want a whole number", name, text)
		}
		if name == "x-items-max-length" {
			s.Items.Value.MaxLength = &n
		} else {
			s.Items.Value.MinLength = n
		}
	}
	return nil
}

// oneOfSchemas turns a property swag can only call an object (`swaggertype:"object"
// extensions:"x-one-of=Pet|Order"`) into the oneOf of the named schemas it is.
func oneOfSchemas(s *openapi3.Schema) {
	names, ok := s.Extensions["x-one-of"].(string)
	if !ok {
		return
	}
	delete(s.Extensions, "x-one-of")
	s.Type = nil
	for _, name := range strings.Split(names, "|") {
		s.OneOf = append(s.OneOf, openapi3.NewSchemaRef("#/components/schemas/"+name, nil))
	}
}

// describeScopes says in each operation's description the scope it needs, as its
// x-required-scope does for tools.
func describeScopes(doc *openapi3.T) {
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			sc, ok := op.Extensions[requiredScope].(string)
			switch alts := scopeAlternatives(sc); {
			case !ok:
			case len(alts) == 1:
				op.Description = strings.TrimSpace(op.Description + "\n\nNeeds the scope `" + sc + "`: a key without it is answered 403 `insufficient_scope`.")
			default:
				op.Description = strings.TrimSpace(op.Description + "\n\nNeeds one of the scopes `" + strings.Join(alts, "`, `") +
					"`: a key with none of them is answered 403 `insufficient_scope`.")
			}
		}
	}
}

// arrayLimits sets the limits of an array parameter, which swag's parameter annotations cannot
// write, from the extensions they are given in: extensions(x-max-items=100,x-items-minimum=1,
// x-items-format=int64), and for strings x-items-min-length, x-items-max-length and
// x-items-pattern.
func arrayLimits(p *openapi3.Parameter) error {
	for _, name := range []string{"x-max-items", "x-items-minimum", "x-items-format", "x-items-min-length", "x-items-max-length", "x-items-pattern"} {
		v, ok := p.Extensions[name]
		if !ok {
			continue
		}
		delete(p.Extensions, name)
		s := p.Schema
		if s == nil || s.Value == nil || !s.Value.Type.Is("array") || s.Value.Items == nil || s.Value.Items.Value == nil {
			return fmt.Errorf("%s on a parameter that is not an array", name)
		}
		text := fmt.Sprint(v)
		switch name {
		case "x-items-format":
			s.Value.Items.Value.Format = text
			continue
		case "x-items-pattern":
			s.Value.Items.Value.Pattern = text
			continue
		}
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return fmt.Errorf("%s=%q: want a whole number", name, text)
		}
		switch name {
		case "x-max-items":
			s.Value.MaxItems = &n
		case "x-items-min-length":
			s.Value.Items.Value.MinLength = n
		case "x-items-max-length":
			s.Value.Items.Value.MaxLength = &n
		default:
			s.Value.Items.Value.Min = openapi3.Ptr(float64(n))
		}
	}
	return nil
}

const headerIdempotencyKey = "Idempotency-Key"

// maxDateTime is the length of the longest RFC 3339 date-time the service writes or reads:
// 2006-01-02T15:04:05.999999999+07:00.
const maxDateTime = 35

// limitPages bounds the array a paginated operation answers with by its limit parameter's maximum,
// and that of a list that is not paginated by its @x-max-items.
func limitPages(op *openapi3.Operation) {
	var most uint64
	limit := op.Parameters.GetByInAndName(openapi3.ParameterInQuery, "limit")
	switch fixed, err := strconv.ParseUint(fmt.Sprint(op.Extensions["x-max-items"]), 10, 64); {
	case limit != nil && limit.Schema != nil && limit.Schema.Value.Max != nil:
		most = uint64(*limit.Schema.Value.Max)
	case err == nil:
		// A list that is not paginated says how long it can be: @x-max-items 10.
		most = fixed
		delete(op.Extensions, "x-max-items")
	default:
		return
	}
	for status, res := range op.Responses.Map() {
		if !strings.HasPrefix(status, "2") || res.Value == nil {
			continue
		}
		for _, mt := range res.Value.Content {
			if mt.Schema != nil && mt.Schema.Value != nil && mt.Schema.Value.Type.Is(openapi3.TypeArray) {
				mt.Schema.Value.MaxItems = openapi3.Ptr(most)
			}
		}
	}
}

// everyResponse are the headers every /v1 response carries (docs/design.md); those not required
// are there when a condition holds.
var everyResponse = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-ID", "Access-Control-Allow-Origin"}

func sharedHeaders() map[string]*openapi3.Header {
	integer := func(min float64, example any) *openapi3.SchemaRef {
		s := openapi3.NewInt64Schema().WithMin(min)
		s.Example = example
		return openapi3.NewSchemaRef("", s)
	}
	str := func(maxLength int64, example string) *openapi3.SchemaRef {
		s := openapi3.NewStringSchema()
		if maxLength > 0 {
			s.WithMaxLength(maxLength)
		}
		s.Example = example
		return openapi3.NewSchemaRef("", s)
	}
	header := func(required bool, schema *openapi3.SchemaRef, description string) *openapi3.Header {
		return &openapi3.Header{Parameter: openapi3.Parameter{Description: description, Required: required, Schema: schema}}
	}
	return map[string]*openapi3.Header{
		"X-RateLimit-Limit": header(true, integer(1, 60),
			"The request limit of the window that applies: the minute or day window with the fewest requests remaining (the minute window when tied)."),
		"X-RateLimit-Remaining": header(true, integer(0, 59),
			"Requests left in that window."),
		"X-RateLimit-Reset": header(true, integer(0, 1795219260),
			"Unix time, in seconds, at which that window resets."),
		"X-Request-ID": header(true, str(128, "0b7c6f5e-3d1a-4c47-9a57-5f0f6f1d2e3a"),
			"Identifies the request in the service's logs: the client's own X-Request-ID when it sent a well-formed one, else a new UUID."),
		"Retry-After": header(true, integer(0, 30),
			"Whole seconds to wait before sending again."),
		"Age": header(true, integer(0, 3),
			"Whole seconds since the service counted what the answer gives: each instance keeps such counts for a short while (10 seconds unless its operator set another time), 0 when they were counted for this request."),
		"WWW-Authenticate": header(true, str(256, `Bearer realm="petstore", error="invalid_token"`),
			`The challenge (RFC 6750): Bearer realm="petstore", with error="invalid_token" when a key was sent but is not valid, or with error="insufficient_scope" and scope="<the scope needed>" when the key lacks the operation's scope.`),
		// Its value is an origin the request sent, so no length is promised.
		"Access-Control-Allow-Origin": header(false, str(0, "https://shop.example.com"),
			"Present when the deployment allows browsers of the request's Origin to call the API (CORS is off unless configured): that origin, or * when any is allowed."),
	}
}

// sharedResponse is an answer every operation can give.
type sharedResponse struct {
	name, status, description string
	headers                   []string
	example                   map[string]any
}

var sharedResponses = []sharedResponse{
	{"Unauthorized", "401", "The API key is missing (missing_api_key) or unknown, revoked or expired (invalid_api_key).",
		[]string{"WWW-Authenticate"},
		map[string]any{"code": "missing_api_key", "message": "an API key is required: send it as Authorization: Bearer <key>", "status": 401}},
	{"Forbidden", "403", "The API key lacks the scope this operation needs (insufficient_scope); WWW-Authenticate names it. The request counts against the key's limits.",
		[]string{"WWW-Authenticate"},
		map[string]any{"code": "insufficient_scope", "message": "this operation needs the scope orders:write, which the API key does not have", "status": 403}},
	{"TooManyRequests", "429", "Over the plan's rate limit (rate_limit_exceeded), or the key is banned for a while after ignoring its 429s (api_key_banned).",
		[]string{"Retry-After"},
		map[string]any{"code": "rate_limit_exceeded", "message": "rate limit exceeded: 60 requests per minute; retry after 30 seconds", "status": 429}},
	{"InternalError", "500", "An unexpected failure (internal_error); the message carries no internals.",
		nil,
		map[string]any{"code": "internal_error", "message": "Internal error.", "status": 500}},
	{"Unavailable", "503", "The database does not answer (unavailable).",
		nil,
		map[string]any{"code": "unavailable", "message": "the database is unavailable", "status": 503}},
}

// response builds the answer with the headers of every response, its own, and extra ones (those
// an operation declares on all of its answers, such as getPet's deprecation headers).
func (r sharedResponse) response(extra openapi3.Headers) *openapi3.Response {
	content := openapi3.NewContentWithJSONSchemaRef(openapi3.NewSchemaRef("#/components/schemas/Error", nil))
	content.Get("application/json").Example = r.example
	res := openapi3.NewResponse().WithDescription(r.description).WithContent(content)
	res.Headers = openapi3.Headers{}
	for _, name := range append(slices.Clone(everyResponse), r.headers...) {
		res.Headers[name] = headerRef(name)
	}
	for name, h := range extra {
		res.Headers[name] = h
	}
	return res
}

func headerRef(name string) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Ref: "#/components/headers/" + name}
}

// completeResponses gives every response of op the headers of every response, and adds the
// answers every operation can give. A header the operation declares on each of its own answers
// is carried by the added ones too.
func completeResponses(op *openapi3.Operation) {
	var common openapi3.Headers
	shared := sharedHeaders()
	for i, status := range op.Responses.Keys() {
		res := op.Responses.Value(status).Value
		// A header the document defines once (Retry-After) is that header wherever it is
		// annotated, not a copy that may drift.
		for name := range res.Headers {
			if shared[name] != nil {
				res.Headers[name] = headerRef(name)
			}
		}
		if i == 0 {
			common = maps.Clone(res.Headers)
		}
		for name := range common {
			if _, ok := res.Headers[name]; !ok {
				delete(common, name)
			}
		}
		if res.Headers == nil {
			res.Headers = openapi3.Headers{}
		}
		for _, name := range everyResponse {
			res.Headers[name] = headerRef(name)
		}
	}
	for _, r := range sharedResponses {
		if len(common) == 0 {
			op.Responses.Set(r.status, &openapi3.ResponseRef{Ref: "#/components/responses/" + r.name})
		} else {
			op.Responses.Set(r.status, &openapi3.ResponseRef{Value: r.response(common)})
		}
	}
}

// closeRequestBody refuses unknown fields in the operation's JSON body, as the service does
// (docs/design.md), so a typo in a client's request fails its own validation too.
func closeRequestBody(doc *openapi3.T, op *openapi3.Operation) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return
	}
	for _, mt := range op.RequestBody.Value.Content {
		if mt.Schema == nil || !strings.HasPrefix(mt.Schema.Ref, "#/components/schemas/") {
			continue
		}
		if s := doc.Components.Schemas[strings.TrimPrefix(mt.Schema.Ref, "#/components/schemas/")]; s != nil && s.Value != nil {
			s.Value.AdditionalProperties = openapi3.AdditionalProperties{Has: openapi3.Ptr(false)}
		}
	}
}

// encode writes the document with two-space indents, keeping <, > and & readable.
func encode(doc *openapi3.T) ([]byte, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// check enforces the rules of docs/design.md that a handler's annotations could break, naming
// the operation, so a mistake fails `make generate` instead of reaching the published document.
func check(doc *openapi3.T) error {
	var errs []error
	tags := map[string]bool{} // those an operation may have: a trait tag is documentation only
	grouped := map[string]bool{}
	for _, t := range doc.Tags {
		tags[t.Name] = t.Extensions[traitTag] != true
	}
	groups, _ := doc.Extensions["x-tagGroups"].([]any)
	for _, g := range groups {
		g, _ := g.(map[string]any)
		list, _ := g["tags"].([]any)
		for _, t := range list {
			grouped[fmt.Sprint(t)] = true
		}
	}
	for name := range tags {
		if !grouped[name] {
			errs = append(errs, fmt.Errorf("tag %q is in no x-tagGroups group: Redoc would hide it", name))
		}
	}
	for _, name := range sortedKeys(doc.Components.Schemas) {
		if !schemaName.MatchString(name) {
			errs = append(errs, fmt.Errorf("schema %q: name the type for the document with //	@name", name))
		}
	}
	paths := doc.Paths.Map()
	for _, path := range sortedKeys(paths) {
		ops := paths[path].Operations()
		for _, method := range sortedKeys(ops) {
			op := ops[method]
			where := fmt.Sprintf("%s %s (%s)", method, path, op.OperationID)
			fail := func(format string, args ...any) {
				errs = append(errs, fmt.Errorf(where+": "+format, args...))
			}
			if op.OperationID == "" {
				fail("no @ID")
			}
			if op.Summary == "" {
				fail("no @Summary")
			}
			if len(op.Tags) != 1 || !tags[op.Tags[0]] {
				fail("@Tags %v: want one of the tags of operations declared in routes/api.go", op.Tags)
			}
			if s, ok := op.Extensions["x-stability"]; ok && !slices.Contains(stabilities, fmt.Sprint(s)) {
				fail("x-stability %v: want one of %v", s, stabilities)
			}
			sc, ok := op.Extensions[requiredScope].(string)
			for _, alt := range scopeAlternatives(sc) {
				if !ok || !slices.Contains(models.Scopes, models.Scope(alt)) {
					fail("%s %v: want @%s naming one of %v (or several, separated by \" or \"), the scope routes.go checks", requiredScope, op.Extensions[requiredScope], requiredScope, models.Scopes)
					break
				}
			}
			if sec := op.Security; sec == nil || len(*sec) != 1 || (*sec)[0][securityScheme] == nil {
				fail("security must be @Security %s", securityScheme)
			}
			if err := checkSunset(op); err != nil {
				fail("%v", err)
			}
			for status, res := range op.Responses.Map() {
				code, err := strconv.Atoi(status)
				if err != nil {
					fail("response %q: list each status, no default", status)
					continue
				}
				if code < 400 || method == http.MethodHead {
					continue
				}
				mt := res.Value.Content.Get("application/json")
				if mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/Error" {
					fail("response %d must be {object} Error", code)
				}
			}
		}
	}
	errs = append(errs, checkLimits(doc)...)
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/petstore/petstore/docs"
	"github.com/petstore/petstore/routes/apiservers"
)

func published(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return doc
}

// The published document says what docs/design.md says (issue 4, point 2).
func TestPublishedDocumentSaysWhatTheDecisionsSay(t *testing.T) {
	doc := published(t)
	if doc.OpenAPI != "3.0.3" || doc.Info.Version != "1.2.0" {
		t.Errorf("openapi %q, info.version %q; want 3.0.3 and 1.2.0", doc.OpenAPI, doc.Info.Version)
	}
	// The description, which Swagger UI shows above Authorize, is a few lines that send the reader
	// to Authorize and to the guide; the guide, a tag of no operation, says the rest.
	if lines := strings.Count(strings.TrimSpace(doc.Info.Description), "\n") + 1; lines > 12 || !strings.Contains(doc.Info.Description, "**Authorize**") || !strings.Contains(doc.Info.Description, "**Guide**") {
		t.Errorf("info.description has %d lines; want at most 12, naming Authorize and the Guide:\n%s", lines, doc.Info.Description)
	}
	guide := doc.Tags.Get("guide")
	if guide == nil || guide.Extensions["x-traitTag"] != true || guide.Extensions["x-displayName"] != "Guide" {
		t.Fatalf("no guide tag, or not a trait tag displayed as Guide: %+v", guide)
	}
	for _, topic := range []string{"## Authentication", "Bearer", "## Plans and rate limits", "Enterprise", "X-RateLimit-Reset", "Retry-After",
		"## Errors", "validation_failed", "api_key_banned", "## Pagination", "cursor", `rel="next"`, "## Versioning and deprecation", "5 December 2030"} {
		if !strings.Contains(guide.Description, topic) {
			t.Errorf("the guide does not cover %q", topic)
		}
	}
	var servers []string
	for _, s := range doc.Servers {
		servers = append(servers, s.URL)
	}
	want := []string{apiservers.DefaultProductionURL + "/v1", apiservers.DefaultStagingURL + "/v1"}
	if !slices.Equal(servers, want) {
		t.Errorf("servers %v, want production and staging %v", servers, want)
	}
	if s := doc.Components.SecuritySchemes["BearerAuth"].Value; s.Type != "http" || s.Scheme != "bearer" {
		t.Errorf("security scheme %s %s, want http bearer", s.Type, s.Scheme)
	}
	var tags []string
	for _, tag := range doc.Tags {
		tags = append(tags, tag.Name)
	}
	if !slices.Equal(tags, []string{"animals", "store", "events", "guide"}) {
		t.Errorf("tags %v, want animals, store, events and, after the operations in Swagger UI, guide", tags)
	}
	groups, _ := json.Marshal(doc.Extensions["x-tagGroups"])
	if string(groups) != `[{"name":"Guide","tags":["guide"]},{"name":"Pets","tags":["animals"]},{"name":"Store","tags":["store"]},{"name":"Events","tags":["events"]}]` {
		t.Errorf("x-tagGroups %s, want Guide → guide first in Redoc, then Pets → animals, Store → store and Events → events at the root", groups)
	}
	for _, name := range []string{"Pet", "NewPet", "PetStatus", "Category", "Order", "NewOrder", "Event", "WebhookEndpoint", "NewWebhookEndpoint", "Error"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("no schema %s", name)
		}
	}
	if enum := doc.Components.Schemas["PetStatus"].Value.Enum; !slices.Equal(enum, []any{"available", "pending", "sold"}) {
		t.Errorf("PetStatus enum %v", enum)
	}
	if doc.Components.Schemas["NewPet"].Value.AdditionalProperties.Has == nil || *doc.Components.Schemas["NewPet"].Value.AdditionalProperties.Has {
		t.Error("NewPet allows unknown fields; the service refuses them")
	}

	ops := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[op.OperationID] = op
			where := method + " " + path
			if op.Security == nil || len(*op.Security) != 1 || (*op.Security)[0]["BearerAuth"] == nil {
				t.Errorf("%s: not secured by BearerAuth", where)
			}
			for status, res := range op.Responses.Map() {
				for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-ID"} {
					if res.Value.Headers[h] == nil || !res.Value.Headers[h].Value.Required {
						t.Errorf("%s %s: no required %s header", where, status, h)
					}
				}
			}
			for status, header := range map[string]string{"401": "WWW-Authenticate", "403": "WWW-Authenticate", "429": "Retry-After"} {
				res := op.Responses.Value(status)
				if res == nil || res.Value.Headers[header] == nil || !res.Value.Headers[header].Value.Required {
					t.Errorf("%s: no %s answer with a required %s header", where, status, header)
				}
			}
		}
	}
	for _, id := range []string{"listPets", "createPet", "getPet", "listCategories", "listOrders", "createOrder", "getOrder", "cancelOrder",
		"listEvents", "listWebhookEndpoints", "createWebhookEndpoint", "getWebhookEndpoint", "updateWebhookEndpoint",
		"deleteWebhookEndpoint", "rotateWebhookSecret"} {
		if ops[id] == nil {
			t.Fatalf("no operation %s", id)
		}
	}
	for id, op := range ops {
		sc, _ := op.Extensions["x-required-scope"].(string)
		says := "Needs the scope `" + sc + "`"
		if alts := strings.Split(sc, " or "); len(alts) > 1 {
			says = "Needs one of the scopes `" + strings.Join(alts, "`, `") + "`"
		}
		if sc == "" || !strings.Contains(op.Description, says) {
			t.Errorf("%s: x-required-scope %q, description %q; want the scope in both", id, sc, op.Description)
		}
	}
	if s := ops["listCategories"].Extensions["x-stability"]; s != "beta" {
		t.Errorf("listCategories x-stability %v, want beta", s)
	}
	for id, op := range ops {
		if strings.Contains(id, "Order") && op.Extensions["x-stability"] != "experimental" {
			t.Errorf("%s x-stability %v, want experimental", id, op.Extensions["x-stability"])
		}
	}

	get := ops["getPet"]
	if !get.Deprecated {
		t.Error("getPet is not deprecated")
	}
	for status, res := range get.Responses.Map() {
		for _, h := range []string{"Deprecation", "Sunset", "Link"} {
			if res.Value.Headers[h] == nil {
				t.Errorf("getPet %s: no %s header", status, h)
			}
		}
	}
	if got := slices.Sorted(maps.Keys(get.Responses.Map())); !slices.Equal(got, []string{"200", "304", "400", "401", "403", "404", "429", "500", "503"}) {
		t.Errorf("getPet answers %v", got)
	}
	if got := slices.Sorted(maps.Keys(ops["createPet"].Responses.Map())); !slices.Equal(got, []string{"201", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"}) {
		t.Errorf("createPet answers %v", got)
	}

	list := ops["listPets"]
	limit := list.Parameters.GetByInAndName("query", "limit").Schema.Value
	if limit.Min == nil || *limit.Min != 1 || limit.Max == nil || *limit.Max != 100 || limit.Default != float64(20) {
		t.Errorf("limit: minimum %v maximum %v default %v, want 1, 100, 20", limit.Min, limit.Max, limit.Default)
	}
	if enum := list.Parameters.GetByInAndName("query", "status").Schema.Value.Enum; !slices.Equal(enum, []any{"available", "pending", "sold"}) {
		t.Errorf("status parameter enum %v", enum)
	}
	if list.Parameters.GetByInAndName("query", "cursor") == nil {
		t.Error("listPets has no cursor parameter")
	}
	if list.Responses.Value("200").Value.Headers["Link"] == nil {
		t.Error("listPets 200 does not document its Link header")
	}
	if page := list.Responses.Value("200").Value.Content.Get("application/json").Schema.Value; page.MaxItems == nil || *page.MaxItems != 100 {
		t.Errorf("listPets 200 maxItems %v, want 100 (limit's maximum)", page.MaxItems)
	}
	if limit.Format != "int32" {
		t.Errorf("limit format %q, want int32", limit.Format)
	}
	if s := doc.Components.Schemas["Error"].Value.Properties["status"].Value; s.Format != "int32" {
		t.Errorf("Error.status format %q, want int32", s.Format)
	}
	if !doc.Components.Schemas["Order"].Value.Properties["createdAt"].Value.ReadOnly {
		t.Error("Order.createdAt is not readOnly, unlike Pet.createdAt")
	}
	for _, s := range doc.Servers {
		if s.Extensions["x-internal"] != false {
			t.Errorf("server %s: x-internal %v, want false (public)", s.URL, s.Extensions["x-internal"])
		}
	}
	if get.Extensions["x-sunset"] != "2030-12-05" {
		t.Errorf("getPet x-sunset %v, want 2030-12-05, the day of its Sunset header", get.Extensions["x-sunset"])
	}
	for _, id := range []string{"createPet", "createOrder"} {
		key := ops[id].Parameters.GetByInAndName("header", "Idempotency-Key").Schema.Value
		if key.MinLength != 1 || key.MaxLength == nil || *key.MaxLength != 257 || key.Pattern != facts(t).idempotencyKeyPattern {
			t.Errorf("%s Idempotency-Key: minLength %d, maxLength %v, pattern %q; want 1, 257 and routes' pattern", id, key.MinLength, key.MaxLength, key.Pattern)
		}
	}
	if h := ops["createPet"].Responses.Value("409").Value.Headers["Retry-After"]; h == nil || h.Ref != "#/components/headers/Retry-After" {
		t.Errorf("createPet 409 Retry-After %+v, want the shared header", h)
	}
}

// Every error code the service has is in the Error.code enum, which says that more may come.
func TestErrorCodesAreTheServicesOwn(t *testing.T) {
	code := published(t).Components.Schemas["Error"].Value.Properties["code"].Value
	var enum []string
	for _, c := range code.Enum {
		enum = append(enum, c.(string))
	}
	want := facts(t).errorCodes
	if !slices.Equal(enum, want) {
		t.Errorf("Error.code enum %v, want the codes of routes/errors.go %v", enum, want)
	}
	for _, c := range []string{"invalid_request", "validation_failed", "missing_api_key", "not_found", "method_not_allowed",
		"request_timeout", "conflict", "payload_too_large", "unsupported_media_type", "idempotency_key_reused",
		"rate_limit_exceeded", "api_key_banned", "request_header_fields_too_large", "internal_error", "unavailable"} {
		if !slices.Contains(want, c) {
			t.Errorf("routes/errors.go yields no code %s", c)
		}
	}
	// The admin pages' 403s (CSRF, admins only) are HTML pages: their code is none of the API's.
	if slices.Contains(want, "forbidden") {
		t.Errorf("Error.code enum %v lists forbidden, which no /v1 operation answers", want)
	}
	if !strings.Contains(code.Description, "accept one it does not know") {
		t.Errorf("Error.code description %q does not tell clients to accept codes added later", code.Description)
	}
}

// The server answers HEAD wherever it answers GET, and the document says so.
func TestEveryGetHasItsHead(t *testing.T) {
	doc := published(t)
	for path, item := range doc.Paths.Map() {
		if item.Get == nil {
			continue
		}
		head := item.Head
		if head == nil {
			t.Errorf("%s: GET without HEAD", path)
			continue
		}
		if head.OperationID != item.Get.OperationID+"Head" || head.Deprecated != item.Get.Deprecated ||
			fmt.Sprint(head.Extensions["x-stability"]) != fmt.Sprint(item.Get.Extensions["x-stability"]) {
			t.Errorf("HEAD %s: id %s, deprecated %v, x-stability %v; want those of %s", path, head.OperationID, head.Deprecated, head.Extensions["x-stability"], item.Get.OperationID)
		}
		if got, want := slices.Sorted(maps.Keys(head.Responses.Map())), slices.Sorted(maps.Keys(item.Get.Responses.Map())); !slices.Equal(got, want) {
			t.Errorf("HEAD %s answers %v, GET %v", path, got, want)
		}
		for status, res := range head.Responses.Map() {
			if len(res.Value.Content) > 0 {
				t.Errorf("HEAD %s %s has a body", path, status)
			}
			if res.Value.Headers["X-RateLimit-Limit"] == nil {
				t.Errorf("HEAD %s %s lacks the rate-limit headers", path, status)
			}
		}
	}
}

// Regenerating from the committed Swagger 2.0 document gives the committed OpenAPI 3 document.
func TestConversionIsReproducible(t *testing.T) {
	swagger, err := os.ReadFile("../../docs/swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := convert(swagger, apiservers.Published(apiservers.DefaultProductionURL, apiservers.DefaultStagingURL), facts(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(docs.OpenAPI) {
		t.Fatal("converting docs/swagger.json does not give docs/openapi.json: run make generate")
	}
}

// Annotations that break a rule of docs/design.md fail the generation, naming the operation.
func TestGenerationRefusesAnnotationsThatBreakTheRules(t *testing.T) {
	swagger, err := os.ReadFile("../../docs/swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		edit    func(doc map[string]any)
		message string
	}{
		{"operation without a tag", func(doc map[string]any) { delete(op(doc, "/categories", "get"), "tags") }, "listCategories"},
		{"operation with an unknown tag", func(doc map[string]any) { op(doc, "/categories", "get")["tags"] = []any{"misc"} }, "misc"},
		{"operation under the guide", func(doc map[string]any) { op(doc, "/categories", "get")["tags"] = []any{"guide"} }, "@Tags [guide]"},
		{"operation without an id", func(doc map[string]any) { delete(op(doc, "/categories", "get"), "operationId") }, "no @ID"},
		{"unknown stability", func(doc map[string]any) { op(doc, "/categories", "get")["x-stability"] = "alpha" }, "alpha"},
		{"operation without a scope", func(doc map[string]any) { delete(op(doc, "/categories", "get"), "x-required-scope") }, "listCategories): x-required-scope"},
		{"unknown scope", func(doc map[string]any) { op(doc, "/pets", "get")["x-required-scope"] = "pets:all" }, "pets:all"},
		{"error answer that is no Error", func(doc map[string]any) {
			op(doc, "/pets", "post")["responses"].(map[string]any)["413"] = map[string]any{"description": "too large"}
		}, "createPet): response 413"},
		{"schema named after its Go type", func(doc map[string]any) {
			defs := doc["definitions"].(map[string]any)
			defs["models.PetStatus"] = defs["PetStatus"]
		}, `"models.PetStatus"`},
		{"tag in no group", func(doc map[string]any) {
			doc["tags"] = append(doc["tags"].([]any), map[string]any{"name": "misc"})
		}, `"misc" is in no x-tagGroups`},
		{"integer without a format", func(doc map[string]any) {
			delete(prop(doc, "Pet", "id"), "format")
		}, "schema Pet.id: an integer needs a format"},
		{"string without a maximum length", func(doc map[string]any) {
			delete(prop(doc, "Category", "name"), "maxLength")
		}, "schema Category.name: a string needs a maxLength"},
		{"parameter without a maximum length", func(doc map[string]any) {
			for _, p := range op(doc, "/pets", "get")["parameters"].([]any) {
				if p := p.(map[string]any); p["name"] == "cursor" {
					delete(p, "maxLength")
				}
			}
		}, "(listPets) parameter cursor: a string needs a maxLength"},
		{"list that is not paginated without its length", func(doc map[string]any) {
			delete(op(doc, "/categories", "get"), "x-max-items")
		}, "(listCategories) 200 body: an array needs a maxItems"},
		{"deprecated without a sunset", func(doc map[string]any) {
			delete(op(doc, "/pets/{petId}", "get"), "x-sunset")
		}, "getPet): deprecated without its removal date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(swagger, &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(doc)
			edited, _ := json.Marshal(doc)
			_, err := convert(edited, apiservers.Published("https://a.example", "https://b.example"), facts(t))
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("error %v, want one naming %q", err, tc.message)
			}
		})
	}
}

func prop(doc map[string]any, schema, name string) map[string]any {
	return doc["definitions"].(map[string]any)[schema].(map[string]any)["properties"].(map[string]any)[name].(map[string]any)
}

func op(doc map[string]any, path, method string) map[string]any {
	return doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)
}

func facts(t *testing.T) serviceFacts {
	t.Helper()
	f, err := readService("../../routes", "../../models")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The service tags every JSON answer of an operation with its ETag, and answers a GET of it 304
// to a matching If-None-Match (routes/conditional.go); only the inventory is written otherwise.
// The document says so for each of them, the webhook endpoints' included.
func TestEveryTaggedAnswerDocumentsItsETagAnd304(t *testing.T) {
	for path, item := range published(t).Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "getInventory" || op.OperationID == "getInventoryHead" {
				continue
			}
			for status, res := range op.Responses.Map() {
				if status[0] == '2' && status != "204" && res.Value.Headers["ETag"] == nil {
					t.Errorf("%s %s (%s): the %s answer documents no ETag", method, path, op.OperationID, status)
				}
			}
			if method != "GET" && method != "HEAD" {
				continue
			}
			if op.Responses.Value("304") == nil || op.Parameters.GetByInAndName("header", "If-None-Match") == nil {
				t.Errorf("%s %s (%s): no If-None-Match and 304 documented", method, path, op.OperationID)
			}
		}
	}
}

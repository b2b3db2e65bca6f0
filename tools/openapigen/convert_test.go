package main

import (
	"context"
	"encoding/json"
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

// The published document says what DECISIONS.md and the interface say (issue 4, point 2).
func TestPublishedDocumentSaysWhatTheDecisionsSay(t *testing.T) {
	doc := published(t)
	if doc.OpenAPI != "3.0.3" || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %q, info.version %q; want 3.0.3 and 1.0.0", doc.OpenAPI, doc.Info.Version)
	}
	for _, topic := range []string{"## Authentication", "Bearer", "## Plans and rate limits", "Enterprise", "X-RateLimit-Reset", "Retry-After",
		"## Errors", "validation_failed", "api_key_banned", "## Pagination", "cursor", `rel="next"`, "## Versioning and deprecation", "5 December 2030"} {
		if !strings.Contains(doc.Info.Description, topic) {
			t.Errorf("info.description does not cover %q", topic)
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
	if !slices.Equal(tags, []string{"animals", "store"}) {
		t.Errorf("tags %v, want animals and store", tags)
	}
	groups, _ := json.Marshal(doc.Extensions["x-tagGroups"])
	if string(groups) != `[{"name":"Pets","tags":["animals"]},{"name":"Store","tags":["store"]}]` {
		t.Errorf("x-tagGroups %s, want Pets → animals and Store → store at the root", groups)
	}
	for _, name := range []string{"Pet", "NewPet", "PetStatus", "Category", "Order", "NewOrder", "Error"} {
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
	for _, id := range []string{"listPets", "createPet", "getPet", "listCategories", "listOrders", "createOrder", "getOrder", "cancelOrder"} {
		if ops[id] == nil {
			t.Fatalf("no operation %s", id)
		}
	}
	for id, op := range ops {
		sc, _ := op.Extensions["x-required-scope"].(string)
		if sc == "" || !strings.Contains(op.Description, "Needs the scope `"+sc+"`") {
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
	if got := slices.Sorted(maps.Keys(get.Responses.Map())); !slices.Equal(got, []string{"200", "400", "401", "403", "404", "429", "500", "503"}) {
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
}

// Regenerating from the committed Swagger 2.0 document gives the committed OpenAPI 3 document.
func TestConversionIsReproducible(t *testing.T) {
	swagger, err := os.ReadFile("../../docs/swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := convert(swagger, apiservers.Published(apiservers.DefaultProductionURL, apiservers.DefaultStagingURL))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(docs.OpenAPI) {
		t.Fatal("converting docs/swagger.json does not give docs/openapi.json: run make generate")
	}
}

// Annotations that break a rule of DECISIONS.md fail the generation, naming the operation.
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(swagger, &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(doc)
			edited, _ := json.Marshal(doc)
			_, err := convert(edited, apiservers.Published("https://a.example", "https://b.example"))
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("error %v, want one naming %q", err, tc.message)
			}
		})
	}
}

func op(doc map[string]any, path, method string) map[string]any {
	return doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)
}

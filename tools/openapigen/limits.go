package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// schemaPlace says where eachSchema found a schema.
type schemaPlace struct {
	where string
	// answer is true for what only responses carry (their headers, inline bodies); the rest
	// (named schemas, parameters, request bodies) is what clients send or decode by name.
	answer bool
}

// eachSchema calls fn for every schema written out in doc (not for $refs, whose target it
// visits where it is defined), with the properties, items and parts of each.
func eachSchema(doc *openapi3.T, fn func(schemaPlace, *openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(schemaPlace, *openapi3.SchemaRef)
	visit = func(at schemaPlace, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Ref != "" || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		fn(at, s)
		for _, name := range sortedKeys(s.Properties) {
			visit(schemaPlace{at.where + "." + name, at.answer}, s.Properties[name])
		}
		visit(schemaPlace{at.where + "[]", at.answer}, s.Items)
		for _, parts := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, part := range parts {
				visit(at, part)
			}
		}
		visit(at, s.AdditionalProperties.Schema)
		visit(at, s.Not)
	}
	for _, name := range sortedKeys(doc.Components.Schemas) {
		visit(schemaPlace{"schema " + name, false}, doc.Components.Schemas[name])
	}
	for _, name := range sortedKeys(doc.Components.Headers) {
		if h := doc.Components.Headers[name]; h.Value != nil {
			visit(schemaPlace{"header " + name, true}, h.Value.Schema)
		}
	}
	paths := doc.Paths.Map()
	for _, path := range sortedKeys(paths) {
		ops := paths[path].Operations()
		for _, method := range sortedKeys(ops) {
			op := ops[method]
			where := fmt.Sprintf("%s %s (%s)", method, path, op.OperationID)
			for _, p := range op.Parameters {
				if p.Value != nil {
					visit(schemaPlace{where + " parameter " + p.Value.Name, false}, p.Value.Schema)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					visit(schemaPlace{where + " request body", false}, mt.Schema)
				}
			}
			for status, res := range op.Responses.Map() {
				if res.Ref != "" || res.Value == nil {
					continue
				}
				for name, h := range res.Value.Headers {
					if h.Ref == "" && h.Value != nil {
						visit(schemaPlace{where + " " + status + " header " + name, true}, h.Value.Schema)
					}
				}
				for _, mt := range res.Value.Content {
					visit(schemaPlace{where + " " + status + " body", true}, mt.Schema)
				}
			}
		}
	}
}

// checkLimits enforces "every schema documents its limits" where a client relies on them:
// named schemas, parameters and request bodies. An integer names its format, a string its
// maximum length (or its values), an array its maximum number of items; an answer's array too,
// so that a client knows how long a list that is not paginated can grow.
func checkLimits(doc *openapi3.T) []error {
	var errs []error
	eachSchema(doc, func(at schemaPlace, s *openapi3.Schema) {
		if at.answer {
			if s.Type.Is(openapi3.TypeArray) && s.MaxItems == nil {
				errs = append(errs, fmt.Errorf("%s: an array needs a maxItems (@x-max-items on a list that is not paginated)", at.where))
			}
			return
		}
		switch {
		case s.Type.Is(openapi3.TypeInteger) && !slices.Contains([]string{"int32", "int64"}, s.Format):
			errs = append(errs, fmt.Errorf("%s: an integer needs a format, int32 or int64 (format:\"int64\", or Format(int64) on a @Param)", at.where))
		case s.Type.Is(openapi3.TypeString) && s.MaxLength == nil && len(s.Enum) == 0:
			errs = append(errs, fmt.Errorf("%s: a string needs a maxLength (maxLength:\"100\", or maxlength(100) on a @Param) or its values", at.where))
		case s.Type.Is(openapi3.TypeArray) && s.MaxItems == nil:
			errs = append(errs, fmt.Errorf("%s: an array needs a maxItems", at.where))
		}
	})
	return errs
}

// checkSunset holds a deprecated operation to announcing its removal date (x-sunset, as the
// Sunset header does), which the breaking-change gate reads.
func checkSunset(op *openapi3.Operation) error {
	if !op.Deprecated {
		return nil
	}
	sunset, _ := op.Extensions["x-sunset"].(string)
	if _, err := time.Parse(time.DateOnly, sunset); err != nil {
		return fmt.Errorf("deprecated without its removal date: add @x-sunset \"YYYY-MM-DD\" (the day of its Sunset header)")
	}
	return nil
}

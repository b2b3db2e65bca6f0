package main

import (
	"maps"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// addHeadOperations documents HEAD beside every GET: the server answers HEAD wherever it
// answers GET, with the same status and headers and no body. Each is an operation of its own
// (operationId <id>Head) so that clients and generators see it; it needs no annotation.
func addHeadOperations(doc *openapi3.T) {
	for _, item := range doc.Paths.Map() {
		if item.Get == nil || item.Head != nil {
			continue
		}
		get := item.Get
		head := *get
		head.OperationID = get.OperationID + "Head"
		head.Summary = get.Summary + ", headers only"
		head.Description = "Answers as `" + get.OperationID + "` does, with the same status and headers, but without a body."
		head.Extensions = maps.Clone(get.Extensions)
		head.Responses = openapi3.NewResponses()
		for _, status := range get.Responses.Keys() {
			res := resolveResponse(doc, get.Responses.Value(status))
			head.Responses.Set(status, &openapi3.ResponseRef{Value: &openapi3.Response{
				Description: res.Description,
				Headers:     maps.Clone(res.Headers),
			}})
		}
		item.Head = &head
	}
}

func resolveResponse(doc *openapi3.T, ref *openapi3.ResponseRef) *openapi3.Response {
	if ref.Value != nil {
		return ref.Value
	}
	return doc.Components.Responses[strings.TrimPrefix(ref.Ref, "#/components/responses/")].Value
}

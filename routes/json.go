package routes

import gojson "github.com/goccy/go-json"

// EncodeJSON writes every JSON response body. It writes the same bytes as encoding/json (a test
// holds it to that) in about a third of the time and with 2 allocations instead of 42 for a
// page of pets (BenchmarkEncodePetPage). Request bodies are read by decodeJSON, with the
// encoding/json/v2 prototype's strict decoding.
func EncodeJSON(v any) ([]byte, error) { return gojson.Marshal(v) }

package app_test

// A schema-driven test: requests are generated from the published OpenAPI document (valid ones,
// and ones that break it in exactly one place), sent to the real server, and every answer is
// checked against the same document. pgregory.net/rapid draws the requests and, on a failure,
// shrinks it to the smallest request that still fails.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/docs"
	"pgregory.net/rapid"
)

// docOperation is one operation of the document.
type docOperation struct {
	method, path string
	op           *openapi3.Operation
}

func (o docOperation) String() string { return o.method + " " + o.path }

// loadDocument loads docs/openapi.json, served from the relative /v1 the service lists first.
func loadDocument(t *testing.T) (*openapi3.T, routers.Router, []docOperation) {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
	if err == nil {
		err = doc.Validate(context.Background())
	}
	if err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: "/v1"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	var ops []docOperation
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			ops = append(ops, docOperation{method, path, op})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].String() < ops[j].String() })
	return doc, router, ops
}

// world is what makes a generated request meaningful as well as well-formed: ids that exist.
// A schema says categoryId is an int64; only the service knows which ones are categories.
type world struct {
	ids      map[string][]int64 // by parameter or property name: categoryId, petId, orderId
	security openapi3.SecurityRequirements
}

func (w world) known(name string) []int64 { return w.ids[name] }

// genValue draws a value the schema accepts. Names that refer to things (ids) are drawn from
// the world mostly, so that valid requests are not only well-formed but can succeed.
func genValue(rt *rapid.T, w world, s *openapi3.Schema, name string) any {
	if len(s.AllOf) == 1 {
		return genValue(rt, w, s.AllOf[0].Value, name)
	}
	if len(s.Enum) > 0 {
		return rapid.SampledFrom(s.Enum).Draw(rt, name)
	}
	switch {
	case s.Type.Is("integer"):
		if ids := w.known(name); len(ids) > 0 {
			return rapid.SampledFrom(ids).Draw(rt, name)
		}
		lo, hi := int64(-1<<31), int64(1<<31-1)
		if s.Format == "int64" {
			lo, hi = -1<<63, 1<<63-1
		}
		if s.Min != nil {
			lo = int64(*s.Min)
		}
		if s.Max != nil {
			hi = int64(*s.Max)
		}
		return rapid.Int64Range(lo, hi).Draw(rt, name)
	case s.Type.Is("number"):
		return rapid.Float64Range(-1e9, 1e9).Draw(rt, name)
	case s.Type.Is("boolean"):
		return rapid.Bool().Draw(rt, name)
	case s.Type.Is("string"):
		if s.Format == "date-time" {
			// From today on: the descriptions refuse a ship date before the current UTC day.
			today := time.Now().UTC().Truncate(24 * time.Hour).Unix()
			return time.Unix(today+rapid.Int64Range(0, 4e9).Draw(rt, name), 0).UTC().Format(time.RFC3339)
		}
		if s.Format == "uri" {
			// A webhook endpoint's: on loopback, which the test's server allows (and never calls).
			return "http://127.0.0.1:9/" + rapid.StringMatching(`[a-z0-9/_-]{0,30}`).Draw(rt, name)
		}
		maxLen := 40
		if s.MaxLength != nil {
			maxLen = int(*s.MaxLength)
		}
		if s.Pattern != "" {
			return rapid.StringMatching(s.Pattern).Filter(func(v string) bool {
				n := utf8.RuneCountInString(v)
				return n >= int(s.MinLength) && n <= maxLen
			}).Draw(rt, name)
		}
		// Letters and signs of several scripts; no white space at the ends or control
		// characters, which the document's descriptions (not its schemas) rule out.
		r := rapid.RuneFrom([]rune("abcxyzABCXYZ0189-_'.éßøΩжあ🐕"))
		return rapid.StringOfN(r, max(1, int(s.MinLength)), maxLen, -1).Draw(rt, name)
	case s.Type.Is("array"):
		hi := int(s.MinItems) + 3
		if s.MaxItems != nil {
			hi = min(hi, int(*s.MaxItems))
		}
		n := rapid.IntRange(int(s.MinItems), hi).Draw(rt, name+" length")
		out := make([]any, 0, n)
		for range n {
			v := genValue(rt, w, s.Items.Value, name)
			if s.UniqueItems && slices.Contains(out, v) {
				continue // at least the first stays, so minItems 1 holds
			}
			out = append(out, v)
		}
		return out
	default: // an object
		out := map[string]any{}
		for _, prop := range sortedKeys(s.Properties) {
			ps := s.Properties[prop].Value
			if ps.ReadOnly {
				continue
			}
			if slices.Contains(s.Required, prop) || rapid.Bool().Draw(rt, "include "+prop) {
				out[prop] = genValue(rt, w, ps, prop)
			}
		}
		return out
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// genRequest is a request for op, and whether it breaks the document on purpose.
type genRequest struct {
	method, path string
	query        url.Values
	body         []byte
	contentType  string
	noKey        bool
	broken       string // what breaks the document; "" for a valid request
}

// genValid draws a request the document allows.
func genValid(rt *rapid.T, w world, o docOperation) *genRequest {
	r := &genRequest{method: o.method, path: o.path, query: url.Values{}}
	for _, p := range o.op.Parameters {
		param := p.Value
		if !param.Required && !rapid.Bool().Draw(rt, "include "+param.Name) {
			continue
		}
		if param.Name == "cursor" {
			continue // an opaque token that only a Link header hands out
		}
		v := genValue(rt, w, param.Schema.Value, param.Name)
		switch param.In {
		case "path":
			r.path = strings.Replace(r.path, "{"+param.Name+"}", url.PathEscape(fmt.Sprint(v)), 1)
		case "query":
			if items, ok := v.([]any); ok {
				// An array is the parameter repeated (style form, explode), once per item.
				for _, item := range items {
					r.query.Add(param.Name, fmt.Sprint(item))
				}
			} else {
				r.query.Set(param.Name, fmt.Sprint(v))
			}
		}
	}
	if rb := o.op.RequestBody; rb != nil {
		if mt := rb.Value.Content.Get("application/json"); mt != nil {
			r.body, _ = json.Marshal(genValue(rt, w, mt.Schema.Value, "body"))
			r.contentType = "application/json"
		} else if rb.Value.Content.Get("image/png") != nil {
			// An upload is the image itself: any bytes fit its binary schema, and only an image
			// of its type is a valid request.
			r.body, r.contentType = genPNG(rt), "image/png"
		}
	}
	return r
}

// genPNG draws a small PNG image of one colour.
func genPNG(rt *rapid.T) []byte {
	img := image.NewGray(image.Rect(0, 0, rapid.IntRange(1, 64).Draw(rt, "width"), rapid.IntRange(1, 64).Draw(rt, "height")))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: uint8(rapid.IntRange(0, 255).Draw(rt, "grey"))}), image.Point{}, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		rt.Fatal(err)
	}
	return b.Bytes()
}

// genBroken draws a request that breaks the document in one place.
func genBroken(rt *rapid.T, w world, o docOperation) *genRequest {
	r := genValid(rt, w, o)
	type breakage struct {
		what  string
		apply func()
	}
	var ways []breakage
	if (o.op.Security == nil && len(w.security) > 0) || (o.op.Security != nil && len(*o.op.Security) > 0) {
		ways = append(ways, breakage{"no API key", func() { r.noKey = true }})
	}
	for _, p := range o.op.Parameters {
		param, s := p.Value, p.Value.Schema.Value
		set := func(v string) {
			if param.In == "path" {
				r.path = strings.Replace(o.path, "{"+param.Name+"}", url.PathEscape(v), 1)
			} else {
				r.query.Set(param.Name, v)
			}
		}
		switch {
		case s.Type.Is("integer"):
			ways = append(ways, breakage{param.Name + " not an integer", func() {
				set(rapid.SampledFrom([]string{"abc", "1.5", "1e3", "0x10", "99999999999999999999", "1 "}).Draw(rt, "bad "+param.Name))
			}})
			if s.Min != nil {
				ways = append(ways, breakage{param.Name + " below its minimum", func() { set(strconv.FormatInt(int64(*s.Min)-1, 10)) }})
			}
			if s.Max != nil {
				ways = append(ways, breakage{param.Name + " above its maximum", func() { set(strconv.FormatInt(int64(*s.Max)+1, 10)) }})
			}
		case len(s.Enum) > 0:
			ways = append(ways, breakage{param.Name + " outside its enum", func() { set("not-" + fmt.Sprint(s.Enum[0])) }})
		case param.Name == "cursor":
			ways = append(ways, breakage{"a made-up cursor", func() {
				set(rapid.StringMatching(`[A-Za-z0-9_%-]{1,40}`).Draw(rt, "cursor"))
			}})
		case s.Type.Is("array") && param.In == "query":
			if s.MaxItems != nil {
				ways = append(ways, breakage{param.Name + " repeated more than its maxItems", func() {
					r.query.Del(param.Name)
					for i := range int(*s.MaxItems) + 1 {
						r.query.Add(param.Name, strconv.Itoa(i+1))
					}
				}})
			}
			if items := s.Items.Value; items.Type.Is("integer") {
				ways = append(ways, breakage{param.Name + " with an item that is not an integer", func() { r.query.Add(param.Name, "abc") }})
				if items.Min != nil {
					ways = append(ways, breakage{param.Name + " with an item below its minimum", func() {
						r.query.Add(param.Name, strconv.FormatInt(int64(*items.Min)-1, 10))
					}})
				}
			}
		}
		if param.In == "query" && !s.Type.Is("array") {
			ways = append(ways, breakage{param.Name + " repeated", func() { r.query[param.Name] = []string{"1", "2"} }},
				breakage{param.Name + " empty", func() { r.query.Set(param.Name, "") }})
		}
	}
	if r.contentType == "image/png" {
		ways = append(ways,
			breakage{"an image cut short", func() { r.body = r.body[:len(r.body)/2] }},
			breakage{"an image of a type the upload does not take", func() { r.contentType = "image/gif" }})
	}
	if rb := o.op.RequestBody; rb != nil && r.contentType == "application/json" {
		s := rb.Value.Content.Get("application/json").Schema.Value
		var obj map[string]any
		_ = json.Unmarshal(r.body, &obj)
		reencode := func() { r.body, _ = json.Marshal(obj) }
		ways = append(ways,
			breakage{"body not JSON", func() { r.body = r.body[:len(r.body)/2] }},
			breakage{"body not an object", func() {
				r.body = []byte(rapid.SampledFrom([]string{`[]`, `"x"`, `42`, `null`, `true`}).Draw(rt, "body"))
			}},
			breakage{"no Content-Type of JSON", func() {
				r.contentType = rapid.SampledFrom([]string{"text/plain", "application/x-www-form-urlencoded", ""}).Draw(rt, "type")
			}},
		)
		if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
			ways = append(ways, breakage{"an unknown property", func() { obj["unknownProperty"] = 1; reencode() }})
		}
		for _, prop := range sortedKeys(s.Properties) {
			ps := s.Properties[prop].Value
			if len(ps.AllOf) == 1 {
				ps = ps.AllOf[0].Value
			}
			if ps.ReadOnly {
				continue
			}
			if slices.Contains(s.Required, prop) {
				ways = append(ways, breakage{prop + " missing", func() { delete(obj, prop); reencode() }})
			}
			if !ps.Nullable {
				ways = append(ways, breakage{prop + " null", func() { obj[prop] = nil; reencode() }})
			}
			ways = append(ways, breakage{prop + " of the wrong type", func() {
				if ps.Type.Is("string") {
					obj[prop] = 12
				} else {
					obj[prop] = "twelve"
				}
				reencode()
			}})
			switch {
			case len(ps.Enum) > 0:
				ways = append(ways, breakage{prop + " outside its enum", func() { obj[prop] = "not-" + fmt.Sprint(ps.Enum[0]); reencode() }})
			case ps.Type.Is("integer") && ps.Min != nil:
				ways = append(ways, breakage{prop + " below its minimum", func() { obj[prop] = int64(*ps.Min) - 1; reencode() }})
			case ps.Type.Is("string") && ps.MaxLength != nil:
				ways = append(ways, breakage{prop + " too long", func() { obj[prop] = strings.Repeat("é", int(*ps.MaxLength)+1); reencode() }})
			case ps.Type.Is("string") && ps.MinLength > 0:
				ways = append(ways, breakage{prop + " too short", func() { obj[prop] = ""; reencode() }})
			}
		}
	}
	if len(ways) == 0 {
		return r // nothing of this operation can be broken
	}
	way := rapid.SampledFrom(ways).Draw(rt, "breakage")
	way.apply()
	r.broken = way.what
	return r
}

// schemaOptions check everything the document says of an answer.
var schemaOptions = &openapi3filter.Options{
	IncludeResponseStatus: true,
	MultiError:            true,
	AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
}

func TestGeneratedRequestsGetTheAnswersTheDocumentPromises(t *testing.T) {
	t.Parallel()
	doc, router, ops := loadDocument(t)
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		cfg.WebhookAllowHTTP, cfg.WebhookAllowPrivate = true, true // the generated endpoints are on loopback
		s := apptest.New(t, cfg)
		w := world{ids: map[string][]int64{}, security: doc.Security}
		var cats []struct{ ID int64 }
		s.Get(t, "/v1/categories").JSON(t, &cats)
		for _, c := range cats {
			w.ids["categoryId"] = append(w.ids["categoryId"], c.ID)
		}
		for i := range 20 {
			p := createPet(t, s, map[string]any{"name": fmt.Sprint("Seed ", i), "categoryId": i%6 + 1})
			w.ids["petId"] = append(w.ids["petId"], p.ID)
			if i%4 == 0 {
				o := placeOrder(t, s, map[string]any{"petId": p.ID})
				w.ids["orderId"] = append(w.ids["orderId"], o.ID)
			}
		}
		client := &http.Client{Timeout: time.Minute}
		tally := map[string]int{}

		rapid.Check(t, func(rt *rapid.T) {
			o := rapid.SampledFrom(ops).Draw(rt, "operation")
			var r *genRequest
			if rapid.Bool().Draw(rt, "break it") {
				r = genBroken(rt, w, o)
			} else {
				r = genValid(rt, w, o)
			}
			target := "/v1" + r.path
			if len(r.query) > 0 {
				target += "?" + r.query.Encode()
			}
			req, _ := http.NewRequest(r.method, s.URL+target, bytes.NewReader(r.body))
			if r.contentType != "" {
				req.Header.Set("Content-Type", r.contentType)
			}
			for k, vs := range s.Headers {
				if !(r.noKey && k == "Authorization") {
					req.Header[k] = vs
				}
			}
			res, err := client.Do(req)
			if err != nil {
				rt.Fatalf("%s %s: %v", r.method, target, err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			exchange := fmt.Sprintf("%s %s %.300s (broken: %q): %d %.300s", r.method, target, r.body, r.broken, res.StatusCode, body)

			// Every answer is one the document promises for this operation.
			forRoute, _ := http.NewRequest(r.method, "/v1"+r.path+"?"+r.query.Encode(), nil)
			route, params, err := router.FindRoute(forRoute)
			if err != nil {
				rt.Fatalf("%s: no operation of the document matches: %v", exchange, err)
			}
			in := &openapi3filter.RequestValidationInput{Request: forRoute, PathParams: params, Route: route, Options: schemaOptions}
			out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Options: schemaOptions}
			out.SetBodyBytes(body)
			if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
				rt.Fatalf("%s\nthe answer breaks the document: %v", exchange, err)
			}
			switch {
			case res.StatusCode >= 500:
				rt.Fatalf("%s\na 5xx", exchange)
			case r.broken != "" && res.StatusCode < 400:
				rt.Fatalf("%s\nwas accepted", exchange)
			case r.broken == "" && res.StatusCode == 400 && strings.Contains(string(body), "webhook endpoints; delete one"):
				// A client's 11th webhook endpoint: a rule of the client's state, as 409 is of a pet's.
			case r.broken == "" && res.StatusCode >= 400 && res.StatusCode != 404 && res.StatusCode != 409:
				// A valid request may find its resource missing or in the wrong state, never
				// be refused for its shape.
				rt.Fatalf("%s\na valid request was refused", exchange)
			}
			tally[fmt.Sprintf("%s %d", o, res.StatusCode)]++
		})
		t.Logf("answers by operation and status: %v", tally)
	})
}

package routes

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/models"
)

// Request bodies: the service accepts up to MaxBodyBytes (a photo's upload up to
// media.MaxUploadBytes) and refuses a larger one with 413 payload_too_large. The HTTP server reads
// bodies up to readLimit before it refuses on its own, so that a body a little over its limit gets
// that answer through the routes (on /v1 after the gate, counted and with the rate-limit headers)
// rather than a closed connection, which a client still sending may see as a reset. Past
// readLimit the server stops reading, and the error handler still admits a /v1 request so its
// 413 carries the same headers.
const (
	MaxBodyBytes = 64 << 10
	readLimit    = media.MaxUploadBytes + 1<<20
	bodyTooLarge = "request body is larger than 64 KiB"
)

func limitBody(c *fiber.Ctx) error {
	if len(c.Request().Body()) > MaxBodyBytes && !isPhotoUpload(c) {
		return &models.Error{Code: codeTooLarge, Message: bodyTooLarge}
	}
	return c.Next()
}

// mimeMergePatch is the media type of a JSON Merge Patch (RFC 7396), which PATCH accepts
// besides application/json.
const mimeMergePatch = "application/merge-patch+json"

// errNull marks a null member: no member of any request body may be null (a field is given a
// value or left out; none can be removed).
var errNull = errors.New("null")

// strictJSON are the decoding options of every request body. Besides its defaults (member names
// match exactly, a repeated member and invalid UTF-8, lone surrogate escapes included, are
// syntax errors), the decoder refuses unknown members and nulls.
var strictJSON = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
		if _, ok := v.(interface{ acceptsNull() }); ok {
			return json.SkipFunc
		}
		if dec.PeekKind() == 'n' {
			return errNull
		}
		return json.SkipFunc
	})),
)

// decodeJSON reads a JSON object body into dst strictly: the media type must be application/json
// or one of also (any charset but UTF-8 is refused), and every failure names what was wrong
// and, where there is one, the member.
func decodeJSON(c *fiber.Ctx, dst any, also ...string) error {
	if err := checkMediaType(c.Get(fiber.HeaderContentType), also); err != nil {
		return err
	}
	if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
		// Decompressing would let a body within the limit on the wire become far more in memory.
		return &models.Error{Code: codeMediaType, Message: "Content-Encoding " + strconv.Quote(enc) + " is not supported: send the JSON uncompressed"}
	}
	body := c.Request().Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return models.Errorf(models.EInvalid, "request body is required: a JSON object")
	}
	if err := json.Unmarshal(body, dst, strictJSON); err != nil {
		return jsonError(body, err)
	}
	return nil
}

func checkMediaType(contentType string, also []string) error {
	allowed := append([]string{fiber.MIMEApplicationJSON}, also...)
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !slices.Contains(allowed, mt) {
		return &models.Error{Code: codeMediaType, Message: "Content-Type must be " + strings.Join(allowed, " or ")}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return &models.Error{Code: codeMediaType, Message: "Content-Type: charset " + strconv.Quote(cs) + " is not supported; JSON is UTF-8"}
	}
	return nil
}

// jsonError turns a decoding failure into the Error a client sees: invalid_request for JSON
// that is malformed or has a member that does not belong, validation_failed for a member whose
// value has the wrong type or is null.
func jsonError(body []byte, err error) error {
	var syntax *jsontext.SyntacticError
	var semantic *json.SemanticError
	switch {
	case errors.As(err, &syntax):
		field := pointerField(syntax.JSONPointer)
		switch {
		case errors.Is(err, jsontext.ErrDuplicateName):
			return &models.Error{Code: models.EInvalid, Field: field, Message: "member " + strconv.Quote(field) + " appears more than once"}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return models.Errorf(models.EInvalid, "malformed JSON: the body ends too early")
		}
		where := ""
		if field != "" {
			where = " (in " + strconv.Quote(field) + ")"
		}
		return &models.Error{Code: models.EInvalid, Field: field,
			Message: "malformed JSON at byte " + strconv.FormatInt(syntax.ByteOffset, 10) + where + ": " + syntax.Err.Error()}
	case errors.As(err, &semantic):
		field := pointerField(semantic.JSONPointer)
		switch {
		case errors.Is(err, json.ErrUnknownName):
			return &models.Error{Code: models.EInvalid, Field: field, Message: "unknown field " + strconv.Quote(field)}
		case field == "":
			return models.Errorf(models.EInvalid, "request body must be a JSON object")
		case errors.Is(err, errNull):
			return models.FieldError(field, "must not be null: give a value, or leave the field out")
		}
		return models.FieldError(field, "must be %s, got %s", wantedJSON(semantic.GoType), gotJSON(body, semantic))
	}
	return models.Errorf(models.EInvalid, "malformed JSON")
}

// pointerField names the member a JSON Pointer (RFC 6901) leads to, as the message shows it.
func pointerField(p jsontext.Pointer) string {
	s := strings.TrimPrefix(string(p), "/")
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

func wantedJSON(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a " + strconv.Itoa(t.Bits()) + "-bit integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "a " + t.Kind().String()
}

// gotJSON says what a member held: its kind, and a number's literal text.
func gotJSON(body []byte, e *json.SemanticError) string {
	kind := map[jsontext.Kind]string{'"': "a string", '0': "the number", 't': "true", 'f': "false", '{': "an object", '[': "an array"}[e.JSONKind]
	if kind == "" {
		kind = "another type"
	}
	if e.JSONKind == '0' && e.ByteOffset >= 0 && e.ByteOffset < int64(len(body)) {
		if v, err := jsontext.NewDecoder(bytes.NewReader(body[e.ByteOffset:])).ReadValue(); err == nil {
			return kind + " " + string(v)
		}
	}
	return kind
}

// query reads a request's query string. On /v1 it is strict: a parameter that takes one value
// must not be repeated or empty. The admin pages' filter forms send every field, empty for
// "any", so there an empty parameter means absent and only the first of repeated ones counts.
// Names match exactly either way.
type query struct {
	c      *fiber.Ctx
	strict bool
}

func apiQuery(c *fiber.Ctx) query   { return query{c: c, strict: true} }
func adminQuery(c *fiber.Ctx) query { return query{c: c} }

// one returns a parameter that takes one value, or "" when it is absent.
func (q query) one(name string) (string, error) {
	vals := q.c.Context().QueryArgs().PeekMulti(name)
	switch {
	case len(vals) == 0:
		return "", nil
	case q.strict && len(vals) > 1:
		return "", &models.Error{Code: models.EInvalid, Field: name, Message: name + ": give it once, not " + strconv.Itoa(len(vals)) + " times"}
	case q.strict && len(vals[0]) == 0:
		return "", &models.Error{Code: models.EInvalid, Field: name, Message: name + ": must not be empty; leave it out instead"}
	}
	return string(vals[0]), nil
}

// param reads a parameter that takes one value with parse; absent gives the zero value.
func param[T any](q query, name string, parse func(field, s string) (T, error)) (T, error) {
	var zero T
	s, err := q.one(name)
	if err != nil || s == "" {
		return zero, err
	}
	v, err := parse(name, s)
	if err != nil {
		return zero, invalidParam(err)
	}
	return v, nil
}

// ids reads a parameter that may be repeated, each value an id, at most max of them.
func (q query) ids(name string, max int) ([]int64, error) {
	vals := q.c.Context().QueryArgs().PeekMulti(name)
	if len(vals) > max {
		return nil, &models.Error{Code: models.EInvalid, Field: name, Message: name + ": at most " + strconv.Itoa(max) + " values, got " + strconv.Itoa(len(vals))}
	}
	var out []int64
	for _, v := range vals {
		id, err := parseID(name, string(v))
		if err != nil {
			return nil, invalidParam(err)
		}
		out = append(out, id)
	}
	return out, nil
}

// all returns every value of a repeatable parameter.
func (q query) all(name string) []string {
	vals := q.c.Context().QueryArgs().PeekMulti(name)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

// parseID reads an identifier given by a user: a positive 64-bit integer.
func parseID(field, s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, &models.Error{Code: models.EInvalid, Field: field, Message: field + ": must be a positive 64-bit integer, got " + strconv.Quote(s)}
	}
	return id, nil
}

// page reads where an API list starts: limit and cursor, in id order (the only order /v1 has).
func (q query) page() (models.Page, error) {
	var p models.Page
	s, err := q.one("limit")
	if err != nil {
		return p, err
	}
	if p.Limit, err = models.ParseLimit(s); err != nil {
		return p, err
	}
	p.Cursor, err = q.cursor(p.Sort)
	return p, err
}

// cursor reads the cursor parameter of a list in sort's order; absent is the first page.
func (q query) cursor(sort models.Sort) (*models.Cursor, error) {
	s, err := q.one("cursor")
	if err != nil || s == "" {
		return nil, err
	}
	return models.DecodeCursor(s, sort)
}

// pathID reads an int64 path parameter.
func pathID(c *fiber.Ctx, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Params(name), 10, 64)
	if err != nil {
		return 0, &models.Error{Code: models.EInvalid, Field: name, Message: name + ": must be a 64-bit integer"}
	}
	return id, nil
}

// invalidParam re-labels a validation error about a query parameter as a bad request.
func invalidParam(err error) error {
	var e *models.Error
	if errors.As(err, &e) {
		return &models.Error{Code: models.EInvalid, Field: e.Field, Message: e.Message}
	}
	return err
}

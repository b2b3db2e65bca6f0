package routes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/petstore/petstore/models"
)

// MaxBodyBytes is the largest request body the service accepts (DECISIONS.md: 413 above 64 KiB).
const MaxBodyBytes = 64 << 10

// limitBody refuses a body over MaxBodyBytes. On /v1 it runs after the gate, so the 413 is
// counted and carries the rate-limit headers like every /v1 answer. The HTTP server reads bodies
// up to a larger bound (app's readLimit), so such a body is answered in the ordinary way instead
// of by a closed connection, which a client still sending may see as a reset.
func limitBody(c *fiber.Ctx) error {
	if len(c.Request().Body()) > MaxBodyBytes {
		return &models.Error{Code: codeTooLarge, Message: "request body is larger than 64 KiB"}
	}
	return c.Next()
}

// decodeJSON reads a JSON object body into dst strictly: the media type must be JSON, unknown
// fields and trailing data are refused, and every failure names what was wrong.
func decodeJSON(c *fiber.Ctx, dst any) error {
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || (mt != fiber.MIMEApplicationJSON && !strings.HasSuffix(mt, "+json")) {
		return &models.Error{Code: codeMediaType, Message: "Content-Type must be application/json"}
	}
	if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
		// Decompressing would let 64 KiB on the wire become far more in memory.
		return &models.Error{Code: codeMediaType, Message: "Content-Encoding " + strconv.Quote(enc) + " is not supported: send the JSON uncompressed"}
	}
	body := c.Request().Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return models.Errorf(models.EInvalid, "request body is required: a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return models.Errorf(models.EInvalid, "malformed JSON: unexpected data after the object")
	}
	return nil
}

func jsonError(err error) error {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntaxErr):
		return models.Errorf(models.EInvalid, "malformed JSON at byte %d: %s", syntaxErr.Offset, syntaxErr.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return models.Errorf(models.EInvalid, "malformed JSON: the body ends too early")
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return models.Errorf(models.EInvalid, "request body must be a JSON object")
	case errors.As(err, &typeErr):
		return models.FieldError(typeErr.Field, "must be %s, got JSON %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return &models.Error{Code: models.EInvalid, Field: strings.Trim(field, `"`), Message: "unknown field " + field}
	}
	return models.Errorf(models.EInvalid, "malformed JSON")
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"):
		return "an integer"
	case goKind == "string":
		return "a string"
	case goKind == "bool":
		return "true or false"
	}
	return "a " + goKind
}

// listQuery is what every list operation reads from its query: limit, cursor and status.
type listQuery struct {
	page   models.Page
	status string
}

func parseListQuery(c *fiber.Ctx) (listQuery, error) {
	var q listQuery
	var err error
	if q.page.Limit, err = models.ParseLimit(c.Query("limit")); err != nil {
		return q, err
	}
	if cur := c.Query("cursor"); cur != "" {
		if q.page.After, err = models.DecodeCursor(cur); err != nil {
			return q, err
		}
	}
	q.status = utils.CopyString(c.Query("status"))
	return q, nil
}

// setNextLink announces the next page (RFC 8288) with the same query and a new cursor.
func setNextLink(c *fiber.Ctx, lastID int64) {
	q := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) { q.Add(string(k), string(v)) })
	q.Set("cursor", models.EncodeCursor(lastID))
	c.Set(fiber.HeaderLink, "<"+c.Path()+"?"+q.Encode()+`>; rel="next"`)
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

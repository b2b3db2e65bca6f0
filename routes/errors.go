package routes

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
)

// Error is the body of every error response.
type Error struct {
	// Machine-readable error code: one of those listed, every code this version answers with. Later versions may add codes; a client must accept one it does not know and act on the HTTP status.
	Code string `json:"code" example:"validation_failed" validate:"required"`
	// Human-readable description; names the offending field or parameter where there is one.
	Message string `json:"message" example:"name: must not be empty" maxLength:"1000" validate:"required"`
	// The HTTP status code of the response.
	Status int `json:"status" example:"400" format:"int32" minimum:"400" maximum:"599" validate:"required"`
} //	@name	Error

// maxMessage is the longest message an Error body carries, in characters: a message that quotes
// a client's input (a long unknown field name, a long malformed date) is cut short.
const maxMessage = 1000

// Codes only the HTTP layer produces.
const (
	codeMethodNotAllowed = "method_not_allowed"
	codeTooLarge         = "payload_too_large"
	codeMediaType        = "unsupported_media_type"
)

// statusOfCode maps each error code to its HTTP status (docs/design.md, "Errors").
var statusOfCode = map[string]int{
	models.EInvalid:       http.StatusBadRequest,
	models.EValidation:    http.StatusBadRequest,
	models.EMissingAPIKey: http.StatusUnauthorized,
	models.EInvalidAPIKey: http.StatusUnauthorized,
	models.ENotFound:      http.StatusNotFound,
	codeMethodNotAllowed:  http.StatusMethodNotAllowed,
	models.EConflict:      http.StatusConflict,
	models.EPrecondition:  http.StatusPreconditionFailed,
	codeTooLarge:          http.StatusRequestEntityTooLarge,
	codeMediaType:         http.StatusUnsupportedMediaType,
	models.EIdemReused:    http.StatusUnprocessableEntity,
	models.ERateLimited:   http.StatusTooManyRequests,
	models.EBanned:        http.StatusTooManyRequests,
	models.EInternal:      http.StatusInternalServerError,
	models.EUnavailable:   http.StatusServiceUnavailable,

	models.EInsufficientScope: http.StatusForbidden,
}

// codeOfStatus names fiber's own errors (routing, body limit, timeouts) with our codes.
var codeOfStatus = map[int]string{
	http.StatusBadRequest:                  models.EInvalid,
	http.StatusNotFound:                    models.ENotFound,
	http.StatusMethodNotAllowed:            codeMethodNotAllowed,
	http.StatusRequestEntityTooLarge:       codeTooLarge,
	http.StatusUnsupportedMediaType:        codeMediaType,
	http.StatusRequestHeaderFieldsTooLarge: "request_header_fields_too_large",
	http.StatusRequestTimeout:              "request_timeout",
	http.StatusServiceUnavailable:          models.EUnavailable,
}

// errorBody turns any error into the Error body: *models.Error by its code, *fiber.Error by its
// status, and anything else into a plain internal error.
func errorBody(c *fiber.Ctx, err error) Error {
	var fe *fiber.Error
	if errors.As(err, &fe) {
		code, ok := codeOfStatus[fe.Code]
		if !ok {
			code = strings.ReplaceAll(strings.ToLower(http.StatusText(fe.Code)), " ", "_")
		}
		msg := fe.Message
		switch fe.Code {
		case http.StatusNotFound:
			msg = "no such resource: " + c.Method() + " " + c.Path()
		case http.StatusMethodNotAllowed:
			msg = "method " + c.Method() + " is not allowed on " + c.Path() + "; allowed: " + string(c.Response().Header.Peek(fiber.HeaderAllow))
		case http.StatusRequestEntityTooLarge:
			msg = bodyTooLarge
		case http.StatusBadRequest:
			// fasthttp's parse errors quote the raw request back; the client already has it.
			msg = "malformed HTTP request"
		case http.StatusRequestHeaderFieldsTooLarge:
			msg = "the request line and headers are larger than the server accepts"
		case http.StatusRequestTimeout:
			msg = "the request was not received in time"
		case http.StatusInternalServerError:
			code, msg = models.EInternal, models.ErrorMessage(err)
		}
		return Error{Code: code, Message: shorten(msg), Status: fe.Code}
	}
	code := models.ErrorCode(err)
	status, ok := statusOfCode[code]
	if !ok {
		code, status = models.EInternal, http.StatusInternalServerError
	}
	return Error{Code: code, Message: shorten(models.ErrorMessage(err)), Status: status}
}

func shorten(msg string) string {
	if utf8.RuneCountInString(msg) <= maxMessage {
		return msg
	}
	return string([]rune(msg)[:maxMessage-1]) + "…"
}

// errorHandler writes every error as an Error body with the matching status (under /admin, as
// an HTML page with that status). Internal errors are logged with the request id; their details
// never reach the client.
type errorHandler struct {
	log *slog.Logger
	// admit is the /v1 admission check (admit), run here on a request the HTTP server refused
	// before any middleware.
	admit func(*fiber.Ctx) error
}

func (h errorHandler) handle(c *fiber.Ctx, err error) error {
	ensureSecurityHeaders(c)
	if requestID(c) == "" {
		// fasthttp refused the request before any middleware ran.
		assignRequestID(c)
		if errors.Is(err, fiber.ErrRequestEntityTooLarge) && isV1(c.Path()) {
			// Its headers were read in full: authenticate and count it like any /v1 request,
			// so the 413 carries the rate-limit headers (or the gate's own 401 or 429 wins).
			if gerr := h.admit(c); gerr != nil {
				err = gerr
			}
		}
	}
	body := errorBody(c, err)
	if body.Status >= 500 {
		h.log.Error("request failed", "request_id", requestID(c), "method", c.Method(),
			"path", c.Path(), "status", body.Status, "error", err.Error())
	}
	if c.Path() == "/admin" || strings.HasPrefix(c.Path(), "/admin/") {
		return adminError(c, err, body)
	}
	return c.Status(body.Status).JSON(body)
}

func isV1(path string) bool { return path == "/v1" || strings.HasPrefix(path, "/v1/") }

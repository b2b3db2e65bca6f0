// Package models holds the domain types of the pet store, their rules and their stores.
// It imports no other package of this module.
package models

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes shared by the API, the admin pages and the command line. The HTTP layer maps each
// code to its status (see routes/errors.go); the table in docs/design.md, "Errors", is the source of both.
const (
	EInvalid       = "invalid_request"
	EValidation    = "validation_failed"
	ENotFound      = "not_found"
	EConflict      = "conflict"
	EPrecondition  = "precondition_failed"
	EUnavailable   = "unavailable"
	EInternal      = "internal_error"
	EIdemReused    = "idempotency_key_reused"
	EMissingAPIKey = "missing_api_key"
	EInvalidAPIKey = "invalid_api_key"
	ERateLimited   = "rate_limit_exceeded"
	EBanned        = "api_key_banned"
)

// EInsufficientScope refuses an operation the API key's scopes do not allow.
const EInsufficientScope = "insufficient_scope"

// Error is an error a user may see: a machine-readable code and a human-readable message.
// Field, when set, names the request field or parameter the error is about.
type Error struct {
	Code    string
	Message string
	Field   string
	// Fields holds one error per field when several fields are wrong at once (forms show each
	// beside its field); Message then joins their messages.
	Fields []*Error
	// cause is the database's error behind an unavailable, for a caller that tells a statement
	// timeout it set from an outage (see withinBudget).
	cause error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func (e *Error) Unwrap() error { return e.cause }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError builds a validation error about one field.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: EValidation, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of an *Error in err's chain, or EInternal for anything else.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of an *Error in err's chain. Other errors may carry
// internals, so they are reduced to a plain sentence.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// FieldMessages returns, for each field an error in err's chain is about, its message without
// the field's name in front: what a form shows beside that field.
func FieldMessages(err error) map[string]string {
	var e *Error
	if !errors.As(err, &e) {
		return nil
	}
	out := map[string]string{}
	var add func(e *Error)
	add = func(e *Error) {
		if len(e.Fields) > 0 {
			for _, fe := range e.Fields {
				add(fe)
			}
			return
		}
		if _, seen := out[e.Field]; e.Field != "" && !seen {
			out[e.Field] = strings.TrimPrefix(e.Message, e.Field+": ")
		}
	}
	add(e)
	return out
}

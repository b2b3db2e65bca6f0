package routes

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/petstore/petstore/models"
)

const headerRequestID = "X-Request-ID"

// wellFormedRequestID accepts a client's request id only when it cannot inject anything into
// a log line or a header.
var wellFormedRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

type ctxKey int

const requestIDKey ctxKey = iota

// withRequestID takes the client's X-Request-ID when well-formed, else makes one, and echoes it.
func withRequestID() fiber.Handler {
	return func(c *fiber.Ctx) error {
		assignRequestID(c)
		return c.Next()
	}
}

func assignRequestID(c *fiber.Ctx) {
	id := c.Get(headerRequestID)
	if !wellFormedRequestID.MatchString(id) {
		id = utils.UUIDv4()
	} else {
		id = utils.CopyString(id)
	}
	c.Locals(requestIDKey, id)
	c.Set(headerRequestID, id)
}

func requestID(c *fiber.Ctx) string {
	id, _ := c.Locals(requestIDKey).(string)
	return id
}

// recoverPanics turns a panic into a 500 internal_error and logs its stack with the request id.
func recoverPanics(log *slog.Logger) fiber.Handler {
	return recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, e any) {
			log.Error("panic", "request_id", requestID(c), "path", c.Path(),
				"panic", fmt.Sprint(e), "stack", string(debug.Stack()))
		},
	})
}

// withDeadline bounds the database work of one request, so no request hangs on a database that
// stopped answering.
func withDeadline(d time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), d)
		defer cancel()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// mayReadReplicas lets the request's reads that tolerate replication lag go to a read replica
// (models.MayReadReplica).
func mayReadReplicas(c *fiber.Ctx) error {
	c.SetUserContext(models.MayReadReplica(c.UserContext()))
	return c.Next()
}

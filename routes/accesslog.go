package routes

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
)

// AccessLog gets the line of every request.
type AccessLog interface {
	Request(ctx context.Context, r RequestLine)
}

// RequestLine is what the access log says of one request. Its strings may point into the
// request's buffers: a line is written before the request's handling returns.
type RequestLine struct {
	Time                 time.Time
	ID, Method, Path, IP string
	Status               int
	Duration             time.Duration
}

func (r RequestLine) level() slog.Level {
	if r.Status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}

// SlogAccessLog writes each line through log, "request" with the line's fields as attributes.
func SlogAccessLog(log *slog.Logger) AccessLog { return slogAccess{log} }

type slogAccess struct{ log *slog.Logger }

func (a slogAccess) Request(ctx context.Context, r RequestLine) {
	level := r.level()
	if !a.log.Enabled(ctx, level) {
		return
	}
	rec := slog.NewRecord(r.Time, level, "request", 0)
	rec.AddAttrs(
		slog.String("request_id", r.ID),
		slog.String("method", r.Method),
		slog.String("path", r.Path),
		slog.Int("status", r.Status),
		slog.Duration("duration", r.Duration),
		slog.String("ip", r.IP),
	)
	_ = a.log.Handler().Handle(ctx, rec)
}

// accessLog writes one line per request, after the error handler has set the status. Only with a
// trusted proxy (proxies) can the client's address come from a header.
func accessLog(log AccessLog, proxies bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		if err != nil {
			// Let the error handler write the response now, so the line shows the real status.
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		now := time.Now()
		log.Request(c.UserContext(), RequestLine{Time: now, ID: requestID(c), Method: c.Method(), Path: c.Path(),
			Status: c.Response().StatusCode(), Duration: now.Sub(start), IP: clientIP(c, proxies)})
		return nil
	}
}

// clientIP is c.IP(), which asks whether the peer is a trusted proxy even when none is.
func clientIP(c *fiber.Ctx, proxies bool) string {
	if proxies {
		return c.IP()
	}
	return c.Context().RemoteIP().String()
}

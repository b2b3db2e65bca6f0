package routes

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
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

// JSONAccessLog writes each line as SlogAccessLog does through slog's JSONHandler, byte for byte
// (TestJSONAccessLogWritesWhatSlogWrites), but formatted by hand, each line one Write to out: slog's
// Logger takes the caller's program counter for every record (a stack walk) and its handler
// writes every attribute through its general machinery, together about 4 % of the CPU of a list
// request. A line with a string that JSON must escape (a path, say) is written by fallback,
// the same slog JSON logger on out. Lines below level are dropped, as the logger drops them.
func JSONAccessLog(out io.Writer, level slog.Leveler, fallback *slog.Logger) AccessLog {
	return jsonAccess{out: out, level: level, fallback: slogAccess{fallback}}
}

type jsonAccess struct {
	out      io.Writer
	level    slog.Leveler
	fallback slogAccess
}

func (a jsonAccess) Request(ctx context.Context, r RequestLine) {
	level := r.level()
	if level < a.level.Level() {
		return
	}
	buf := linePool.Get().(*[]byte)
	defer linePool.Put(buf)
	b, err := appendTime(append((*buf)[:0], `{"time":`...), r.Time.Round(0))
	if err != nil || !plainJSON(r.ID) || !plainJSON(r.Method) || !plainJSON(r.Path) || !plainJSON(r.IP) {
		a.fallback.Request(ctx, r)
		return
	}
	b = append(b, `,"level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":"request","request_id":"`...)
	b = append(b, r.ID...)
	b = append(b, `","method":"`...)
	b = append(b, r.Method...)
	b = append(b, `","path":"`...)
	b = append(b, r.Path...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(r.Duration), 10)
	b = append(b, `,"ip":"`...)
	b = append(b, r.IP...)
	b = append(b, "\"}\n"...)
	_, _ = a.out.Write(b)
	*buf = b
}

// linePool keeps the buffers lines are formatted in.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// plainJSON says s stands in a JSON string as it is, for slog as for encoding/json.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if !jsonSafe[s[i]] {
			return false
		}
	}
	return true
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

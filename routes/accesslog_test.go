package routes

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The JSON access log is formatted by hand; whatever the request, its line must be the one slog's
// JSONHandler writes, and a line below the level must be dropped as slog drops it.
func TestJSONAccessLogWritesWhatSlogWrites(t *testing.T) {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("", -3*3600-1800), time.FixedZone("", 14*3600)}
	text := rapid.OneOf(rapid.String(), rapid.StringMatching(`[!-~]{0,30}`),
		rapid.SampledFrom([]string{"", "/v1/pets", "/v1/pets/<script>", "/a\"b", "/é", "/\u2028", "\xff", "::1", "GET"}))
	rapid.Check(t, func(rt *rapid.T) {
		level := rapid.SampledFrom([]slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError + 1}).Draw(rt, "level")
		at := time.Unix(rapid.Int64Range(-1<<36, 1<<36).Draw(rt, "secs"), rapid.Int64Range(0, 999999999).Draw(rt, "ns"))
		r := RequestLine{
			Time:     at.In(rapid.SampledFrom(zones).Draw(rt, "zone")),
			ID:       text.Draw(rt, "id"),
			Method:   text.Draw(rt, "method"),
			Path:     text.Draw(rt, "path"),
			IP:       text.Draw(rt, "ip"),
			Status:   rapid.SampledFrom([]int{200, 304, 404, 499, 500, 503, rapid.Int().Draw(rt, "status")}).Draw(rt, "status"),
			Duration: time.Duration(rapid.Int64().Draw(rt, "duration")),
		}
		var want, got bytes.Buffer
		SlogAccessLog(slog.New(slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: level}))).Request(context.Background(), r)
		fallback := slog.New(slog.NewJSONHandler(&got, &slog.HandlerOptions{Level: level}))
		JSONAccessLog(&got, level, fallback).Request(context.Background(), r)
		if got.String() != want.String() {
			rt.Fatalf("got  %q\nwant %q", got.String(), want.String())
		}
	})
}

// BenchmarkAccessLog is one access log line, through slog's Logger and JSONHandler as the
// service wrote it before, and by hand (JSONAccessLog).
func BenchmarkAccessLog(b *testing.B) {
	r := RequestLine{Time: time.Now(), ID: "8027ff30-7ad1-4bdb-9b4e-b16959e44b0b", Method: "GET", Path: "/v1/pets",
		IP: "127.0.0.1", Status: 200, Duration: 1234567}
	var out bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&out, nil))
	byHand := JSONAccessLog(&out, slog.LevelInfo, log)
	for _, tc := range []struct {
		name string
		log  func()
	}{
		{"slog", func() {
			log.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("request_id", r.ID),
				slog.String("method", r.Method), slog.String("path", r.Path), slog.Int("status", r.Status),
				slog.Duration("duration", r.Duration), slog.String("ip", r.IP))
		}},
		{"by hand", func() { byHand.Request(context.Background(), r) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				tc.log()
			}
		})
	}
}

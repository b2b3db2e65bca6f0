package views

import (
	"context"
	"time"
)

type zoneKey struct{}

// WithZone gives the pages rendered with ctx the store's time zone, in which they show every
// time (and say so once, at the foot of the page).
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, zoneKey{}, loc)
}

// zoneOf is the store's time zone; UTC for pages rendered before the staff member is known.
func zoneOf(ctx context.Context) *time.Location {
	if loc, ok := ctx.Value(zoneKey{}).(*time.Location); ok {
		return loc
	}
	return time.UTC
}

// when formats a time for a table: in the store's zone, to the minute.
func when(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(zoneOf(ctx)).Format("2006-01-02 15:04")
}

func whenPtr(ctx context.Context, t *time.Time) string {
	if t == nil {
		return "never"
	}
	return when(ctx, *t)
}

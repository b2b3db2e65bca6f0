package routes

import (
	"net/url"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/valyala/fasthttp"
)

// TestPageURLWritesTheQueryAsURLValuesEncodes holds pageURL's hand-written query to what
// url.Values' Encode writes from the same parameters.
func TestPageURLWritesTheQueryAsURLValuesEncodes(t *testing.T) {
	app := fiber.New()
	cur := &models.Cursor{ID: 42}
	for _, query := range []string{
		"",
		"limit=20&status=available",
		"status=sold&limit=5&cursor=old&categoryId=",
		"id=3&limit=2&id=1&id=2",
		"q=a%20b%26c&%C3%A9t%C3%A9=%E2%9C%93&z=1&a=2",
		"cursor=x&cursor=y",
	} {
		for _, c := range []*models.Cursor{nil, cur} {
			fctx := &fasthttp.RequestCtx{}
			fctx.Request.SetRequestURI("/v1/pets?" + query)
			ctx := app.AcquireCtx(fctx)
			got := pageURL(ctx, "https://api.example", c)
			app.ReleaseCtx(ctx)

			parsed, _ := url.ParseQuery(query)
			want := url.Values{}
			for k, vs := range parsed {
				for _, v := range vs {
					if v != "" && k != "cursor" {
						want[k] = append(want[k], v)
					}
				}
			}
			if c != nil {
				want.Set("cursor", c.Encode())
			}
			wantURL := "https://api.example/v1/pets"
			if len(want) > 0 {
				wantURL += "?" + want.Encode()
			}
			if got != wantURL {
				t.Errorf("query %q, cursor %v: %q, want %q", query, c, got, wantURL)
			}
		}
	}
}

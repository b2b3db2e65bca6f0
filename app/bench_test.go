package app_test

import (
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes"
	"github.com/valyala/fasthttp"
)

// The hot paths of the API, through the whole middleware chain and the real database, without a
// network in between: each iteration hands one request to the server's handler, the way fasthttp
// does for a connection. Logs are written as in production (JSON) but to io.Discard.
// `make bench` measures the same paths under load, against a hand-written ceiling.

// benchServer starts the service on a fresh database of the given kind holding pets pets, and
// returns its handler and the Authorization header of its API key (an Enterprise key whose
// limits no benchmark reaches).
func benchServer(b *testing.B, store testenv.Store, pets int) (fasthttp.RequestHandler, string) {
	b.Helper()
	cfg := apptest.Config(b, store)
	log := app.NewLogger(cfg, io.Discard)
	s := apptest.New(b, cfg, apptest.WithLog(log), apptest.WithAccessLog(routes.SlogAccessLog(log)))
	if pets > 0 {
		rows := make([]models.Pet, pets)
		for i := range rows {
			rows[i] = models.Pet{Name: fmt.Sprintf("Pet %d", i), CategoryID: int64(1 + i%6), Status: models.PetStatuses[i%3]}
		}
		if err := s.DB.CreateInBatches(rows, 500).Error; err != nil {
			b.Fatal(err)
		}
	}
	return s.App.Handler(), "Bearer " + s.APIKey
}

// serve runs one request through h and fails the benchmark unless it answers want.
func serve(b *testing.B, h fasthttp.RequestHandler, auth string, ctx *fasthttp.RequestCtx, method, uri, body string, want int) {
	ctx.Request.Reset()
	ctx.Response.Reset()
	// fasthttp forgets a request's user values (fiber keeps the request context there) between
	// the requests of a connection.
	ctx.ResetUserValues()
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(uri)
	ctx.Request.Header.Set(fiber.HeaderAuthorization, auth)
	if body != "" {
		ctx.Request.Header.SetContentType("application/json")
		ctx.Request.SetBodyString(body)
	}
	h(ctx)
	if got := ctx.Response.StatusCode(); got != want {
		b.Fatalf("%s %s: status %d, want %d: %s", method, uri, got, want, ctx.Response.Body())
	}
}

func newRequestCtx() *fasthttp.RequestCtx {
	var ctx fasthttp.RequestCtx
	ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
	return &ctx
}

func BenchmarkListPets(b *testing.B) {
	for _, store := range testenv.Stores {
		b.Run(string(store), func(b *testing.B) {
			h, auth := benchServer(b, store, 200)
			ctx := newRequestCtx()
			b.ReportAllocs()
			cpu := startCPU(b)
			for b.Loop() {
				serve(b, h, auth, ctx, "GET", "/v1/pets?limit=20&status=available", "", 200)
			}
			cpu.report(b)
		})
	}
}

func BenchmarkCreatePet(b *testing.B) {
	for _, store := range testenv.Stores {
		b.Run(string(store), func(b *testing.B) {
			h, auth := benchServer(b, store, 0)
			ctx := newRequestCtx()
			b.ReportAllocs()
			cpu := startCPU(b)
			for b.Loop() {
				serve(b, h, auth, ctx, "POST", "/v1/pets", `{"name":"Rex","categoryId":1,"status":"pending"}`, 201)
			}
			cpu.report(b)
		})
	}
}

// Command ceiling4 is the second yardstick of `make bench`: the list as a user would write it
// from the interface specification alone, on plain fiber and pgxpool. It answers GET /v1/pets
// with the spec's four Pet fields (id, name, categoryId, status) from one statement, scanned into
// a struct and sent with c.JSON (fiber's default encoder), with nothing else: no authentication,
// limits, logs, metrics, cursor, Link or ETag. The service's list divided by this one's says what
// everything the service adds costs, measured against the simplest server that answers the spec.
package main

import (
	"context"
	"log"
	"os"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pet is the spec's Pet.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status"`
}

func main() {
	dsn, addr := os.Getenv("DATABASE_URL"), os.Getenv("CEILING_ADDR")
	if dsn == "" || addr == "" {
		log.Fatal("usage: DATABASE_URL=postgres://... CEILING_ADDR=127.0.0.1:8092 ceiling4")
	}
	// The pool's size comes from the URL (pool_max_conns): run.sh gives every server the same.
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		log.Fatal(err)
	}

	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/readyz", func(c *fiber.Ctx) error { return pool.Ping(c.UserContext()) })
	app.Get("/v1/pets", func(c *fiber.Ctx) error {
		rows, err := pool.Query(c.UserContext(),
			`SELECT id, name, category_id, status FROM pets WHERE status=$1 ORDER BY id LIMIT $2`,
			c.Query("status", "available"), c.QueryInt("limit", 20))
		if err != nil {
			return err
		}
		pets, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Pet])
		if err != nil {
			return err
		}
		return c.JSON(pets)
	})
	log.Fatal(app.Listen(addr))
}

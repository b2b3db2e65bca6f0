// Command ceiling4 is the second yardstick of `make bench`: the list as a user would write it
// from the interface specification alone, on plain fiber and pgxpool. It answers GET /v1/pets
// with the spec's four Pet fields (id, name, categoryId, status) from one statement, scanned into
// a struct and sent with c.JSON (fiber's default encoder), with nothing else: no authentication,
// limits, logs, metrics, cursor, Link or ETag. The service's list divided by this one's says what
// everything the service adds costs, measured against the simplest server that answers the spec.
//
// With CEILING4_ANSWER=service it is `make bench`'s ceiling4a instead: the same server sending
// what the service sends, release 1.2's Pet (its description, tags and photos with their absolute
// URLs, read in the page's one statement) and the service's twenty headers as constants, through
// c.JSON (encoding/json, as the service's encoder is), still with none of the service's layers.
// It divided by ceiling4 says what the answer itself costs; the service divided by it, what the
// service's layers cost.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/petstore/petstore/bench/released"
)

// Pet is the spec's Pet.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status"`
}

// mediaBase starts the photos' URLs, as the service's own address does under make bench.
const mediaBase = "http://127.0.0.1:18080/media/"

// serviceQuery is the service's own statement of a page: each pet's photos in display order
// come with it as text, per photo its fields joined by commas and photos by semicolons, which a
// hand-written server would read the same way (a JSON or array aggregate costs the database
// more; make bench measured 365 µs of its CPU a request against 245). The database does the same
// work for both servers: what differs is what each does with the rows.
const serviceQuery = `SELECT pets.id, pets.name, pets.category_id, pets.status, pets.description, pets.tags,
	pets.created_at, pets.updated_at, (SELECT string_agg(concat_ws(',', ph.id, ph.width, ph.height,
	(extract(epoch FROM ph.created_at) * 1000000)::bigint, ph.content_type, ph.key, ph.thumb_key), ';'
	ORDER BY ph.position, ph.id) FROM photos ph WHERE ph.pet_id = pets.id)
FROM pets WHERE deleted_at IS NULL AND status = $1 ORDER BY id LIMIT $2`

// serviceHeaders are the headers the service adds to a page of its list, with values of the
// same length as the service's under make bench's key.
var serviceHeaders = [][2]string{
	{"X-Request-Id", "db8f7e9f-8fed-4e01-8f1e-ff13376e95d7"},
	{"X-Xss-Protection", "0"},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Cross-Origin-Embedder-Policy", "require-corp"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
	{"Cross-Origin-Resource-Policy", "same-origin"},
	{"Origin-Agent-Cluster", "?1"},
	{"Referrer-Policy", "no-referrer"},
	{"X-Dns-Prefetch-Control", "off"},
	{"X-Download-Options", "noopen"},
	{"X-Permitted-Cross-Domain-Policies", "none"},
	{"Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"},
	{"Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"},
	{"X-Ratelimit-Limit", "1000000000"},
	{"X-Ratelimit-Remaining", "999999999"},
	{"X-Ratelimit-Reset", "1795858740"},
	{"Link", `<http://127.0.0.1:18080/v1/pets?cursor=djI6aWQ6YToyMzo&limit=20&status=available>; rel="next"`},
	{"Etag", `W/"5G3vHF4wsP7_I7yPQWrpEg"`},
	{"Vary", "Accept-Encoding"},
}

func main() {
	dsn, addr := os.Getenv("DATABASE_URL"), os.Getenv("CEILING_ADDR")
	if dsn == "" || addr == "" {
		log.Fatal("usage: DATABASE_URL=postgres://... CEILING_ADDR=127.0.0.1:8092 [CEILING4_ANSWER=service] ceiling4")
	}
	// The pool's size comes from the URL (pool_max_conns): run.sh gives every server the same.
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		log.Fatal(err)
	}

	config := fiber.Config{DisableStartupMessage: true}
	list := specList(pool)
	if os.Getenv("CEILING4_ANSWER") == "service" {
		list = serviceList(pool)
	}
	app := fiber.New(config)
	app.Get("/readyz", func(c *fiber.Ctx) error { return pool.Ping(c.UserContext()) })
	app.Get("/v1/pets", list)
	log.Fatal(app.Listen(addr))
}

func specList(pool *pgxpool.Pool) fiber.Handler {
	return func(c *fiber.Ctx) error {
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
	}
}

func serviceList(pool *pgxpool.Pool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		rows, err := pool.Query(c.UserContext(), serviceQuery, c.Query("status", "available"), c.QueryInt("limit", 20))
		if err != nil {
			return err
		}
		defer rows.Close()
		pets := []released.Pet{}
		for rows.Next() {
			var p released.Pet
			var tags string
			var photos *string
			if err := rows.Scan(&p.ID, &p.Name, &p.CategoryID, &p.Status, &p.Description, &tags, &p.CreatedAt, &p.UpdatedAt,
				&photos); err != nil {
				return err
			}
			p.Tags = strings.Fields(tags)
			p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
			if p.Photos, err = readPhotos(photos); err != nil {
				return err
			}
			pets = append(pets, p)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, h := range serviceHeaders {
			c.Set(h[0], h[1])
		}
		return c.JSON(pets)
	}
}

// readPhotos reads serviceQuery's photos: id, width, height, microseconds, type, key, thumbnail key.
func readPhotos(text *string) ([]released.Photo, error) {
	if text == nil {
		return []released.Photo{}, nil
	}
	rows := strings.Split(*text, ";")
	photos := make([]released.Photo, len(rows))
	for i, row := range rows {
		f := strings.SplitN(row, ",", 7)
		if len(f) != 7 {
			return nil, fmt.Errorf("photo %q", row)
		}
		var n [4]int64
		for j := range n {
			var err error
			if n[j], err = strconv.ParseInt(f[j], 10, 64); err != nil {
				return nil, err
			}
		}
		photos[i] = released.Photo{ID: n[0], Width: n[1], Height: n[2], CreatedAt: time.UnixMicro(n[3]).UTC(), ContentType: f[4],
			URL: mediaBase + f[5], ThumbnailURL: mediaBase + f[6]}
	}
	return photos, nil
}

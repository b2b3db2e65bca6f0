// Command ceiling is the yardstick of `make bench`: the pets list and create written by hand on
// fiber and pgx, with none of the service's layers (no authentication, limits, request ids,
// access log, GORM or validation beyond what the query needs). It reads and writes the same
// tables as the service (a creation: the pet, its audit entry and its event) and answers with
// the same JSON, so the service's throughput divided by
// this one's says what those layers cost.
//
// It lives in the service's module because pgx/v5 is already one of its direct dependencies
// (models maps pgconn errors): a module of its own would only duplicate go.mod and go.sum.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
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

type pet struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	CategoryID int64     `json:"categoryId"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

type newPet struct {
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status"`
}

// createPet writes what the service's creation writes since 1.1 (with 1.2's description and
// tags, empty, in the audit entry and the event): the pet, its audit entry and its pet.created
// event, atomically, in one statement, the fewest round trips a hand-written
// server could take (the service takes a transaction); without them this server would measure a
// different operation. It writes nothing while an endpoint is subscribed to
// pet.created, whose deliveries it could not enqueue (the bench subscribes none).
// petCreatedBit is pet.created's bit in webhook_endpoints.events.
const createPet = `WITH p AS (
	INSERT INTO pets (name, category_id, status, created_at, updated_at)
	SELECT $1, $2, $3, $4, $4 WHERE NOT EXISTS (
		SELECT 1 FROM webhook_endpoints WHERE deleted_at IS NULL AND disabled_at IS NULL AND (events & $10) <> 0)
	RETURNING id
), a AS (
	INSERT INTO audit_entries (created_at, actor, object_type, object_id, object_name, action, before, after)
	SELECT $4, $5, $6, id, $1, $7, '', $8 FROM p
)
INSERT INTO events (seq, type, object_id, created_at, data)
SELECT pg_current_xact_id()::text::bigint, $11, id, $4, '{"object":{"id":' || id || $9 FROM p RETURNING object_id`

const petCreatedBit int64 = 1

// One statement per filter, as the service's queries are, so each gets its own plan.
const (
	listAll      = `SELECT id, name, category_id, status, created_at, updated_at FROM pets WHERE id > $1 ORDER BY id LIMIT $2`
	listByStatus = `SELECT id, name, category_id, status, created_at, updated_at FROM pets WHERE id > $1 AND status = $3 ORDER BY id LIMIT $2`
)

func main() {
	dsn, addr := os.Getenv("DATABASE_URL"), os.Getenv("CEILING_ADDR")
	if dsn == "" || addr == "" {
		log.Fatal("usage: DATABASE_URL=postgres://... CEILING_ADDR=127.0.0.1:8091 ceiling")
	}
	// The pool's size comes from the URL (pool_max_conns): run.sh gives every server the same.
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		log.Fatal(err)
	}

	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/readyz", func(c *fiber.Ctx) error { return pool.Ping(c.UserContext()) })
	app.Get("/v1/pets", func(c *fiber.Ctx) error {
		limit := c.QueryInt("limit", 20)
		if limit < 1 || limit > 100 {
			return fiber.ErrBadRequest
		}
		var after int64
		if cur := c.Query("cursor"); cur != "" {
			raw, err := base64.RawURLEncoding.DecodeString(cur)
			if err != nil {
				return fiber.ErrBadRequest
			}
			if after, err = strconv.ParseInt(strings.TrimPrefix(string(raw), "v1:"), 10, 64); err != nil {
				return fiber.ErrBadRequest
			}
		}
		status := c.Query("status")
		var rows pgx.Rows
		var err error
		if status == "" {
			rows, err = pool.Query(c.UserContext(), listAll, after, limit+1)
		} else {
			rows, err = pool.Query(c.UserContext(), listByStatus, after, limit+1, status)
		}
		if err != nil {
			return err
		}
		pets, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pet])
		if err != nil {
			return err
		}
		if len(pets) > limit {
			pets = pets[:limit]
			next := base64.RawURLEncoding.EncodeToString([]byte("v1:" + strconv.FormatInt(pets[limit-1].ID, 10)))
			query := "limit=" + strconv.Itoa(limit) + "&cursor=" + next
			if status != "" {
				query += "&status=" + status
			}
			c.Set(fiber.HeaderLink, "</v1/pets?"+query+`>; rel="next"`)
		}
		return c.JSON(pets)
	})
	app.Post("/v1/pets", func(c *fiber.Ctx) error {
		var in newPet
		if err := c.BodyParser(&in); err != nil || in.Name == "" || in.CategoryID < 1 {
			return fiber.ErrBadRequest
		}
		if in.Status == "" {
			in.Status = "available"
		}
		now := time.Now().UTC()
		p := released.Pet{Name: in.Name, CategoryID: in.CategoryID, Status: in.Status, Tags: []string{}, CreatedAt: now,
			UpdatedAt: now, Photos: []released.Photo{}}
		after, err := json.Marshal(map[string]any{"name": p.Name, "categoryId": p.CategoryID, "status": p.Status,
			"description": p.Description, "tags": p.Tags})
		if err != nil {
			return err
		}
		object, err := json.Marshal(p)
		if err != nil {
			return err
		}
		rest := strings.TrimPrefix(string(object), `{"id":0`) + "}"
		err = pool.QueryRow(c.UserContext(), createPet, p.Name, p.CategoryID, p.Status, now, "bench", "pet", "create",
			string(after), rest, petCreatedBit, "pet.created").Scan(&p.ID)
		if err != nil {
			return err
		}
		c.Location("/v1/pets/" + strconv.FormatInt(p.ID, 10))
		return c.Status(fiber.StatusCreated).JSON(p)
	})
	log.Fatal(app.Listen(addr))
}

package app

import (
	"github.com/gofiber/fiber/v2"
	redisstorage "github.com/gofiber/storage/redis/v3"
	"github.com/redis/go-redis/v9"
)

// sessionStorage keeps the admin pages' sessions in Redis when REDIS_URL is set, so every
// instance shares them; nil keeps them in this instance's memory. The client connects lazily:
// a Redis that is down at start fails the requests that need it, not the whole service.
func sessionStorage(a *fiber.App, cfg Config) fiber.Storage {
	if cfg.RedisURL == "" {
		return nil
	}
	// LoadConfig has checked that go-redis accepts the URL.
	opts, _ := redis.ParseURL(cfg.RedisURL)
	client := redis.NewClient(opts)
	a.Hooks().OnShutdown(client.Close)
	return redisstorage.NewFromConnection(client)
}

package app

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
	redisstorage "github.com/gofiber/storage/redis/v3"
	"github.com/petstore/petstore/models"
	"github.com/redis/go-redis/v9"
)

// sessionStorage keeps the admin pages' sessions (and the login throttle's counts) in Redis
// when REDIS_URL is set, so every instance shares them; nil keeps them in this instance's
// memory. The client connects lazily: a Redis that is down at start fails the admin requests
// that need it, not the whole service.
func sessionStorage(a *fiber.App, cfg Config) fiber.Storage {
	if cfg.RedisURL == "" {
		return nil
	}
	// LoadConfig has checked that go-redis accepts the URL.
	opts, _ := redis.ParseURL(cfg.RedisURL)
	client := redis.NewClient(opts)
	a.Hooks().OnShutdown(client.Close)
	return prefixedStorage{inner: redisstorage.NewFromConnection(client), prefix: cfg.RedisPrefix + "session:"}
}

// prefixedStorage puts every key under the deployment's Redis prefix, and reports a storage
// that does not answer as unavailable (503) rather than as an internal error.
type prefixedStorage struct {
	inner  fiber.Storage
	prefix string
}

var errSessionsUnavailable = &models.Error{Code: models.EUnavailable,
	Message: "Staff sessions are unavailable (their store does not answer); try again shortly."}

func unavailable(err error) error {
	if err != nil {
		return errors.Join(errSessionsUnavailable, err)
	}
	return nil
}

func (s prefixedStorage) Get(key string) ([]byte, error) {
	v, err := s.inner.Get(s.prefix + key)
	return v, unavailable(err)
}

func (s prefixedStorage) Set(key string, val []byte, exp time.Duration) error {
	return unavailable(s.inner.Set(s.prefix+key, val, exp))
}

func (s prefixedStorage) Delete(key string) error { return unavailable(s.inner.Delete(s.prefix + key)) }

// Reset would empty the whole shared Redis database, other deployments' keys included; nothing
// in the service calls it.
func (s prefixedStorage) Reset() error {
	return errors.New("session storage: Reset is not supported on a shared Redis")
}

func (s prefixedStorage) Close() error { return s.inner.Close() }

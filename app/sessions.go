package app

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	redisstorage "github.com/gofiber/storage/redis/v3"
	"github.com/petstore/petstore/models"
	"github.com/redis/go-redis/v9"
)

// sessionStorage keeps the admin pages' sessions (and the addresses staff sign in from) in Redis
// when REDIS_URL is set, so every instance shares them; else in this instance's memory, bounded.
// The client connects lazily: a Redis that is down at start fails the admin requests that need
// it, not the whole service.
func sessionStorage(cfg Config) (_ fiber.Storage, closeStorage func() error) {
	if cfg.RedisURL == "" {
		return newMemoryStorage(maxMemorySessions, time.Now), func() error { return nil }
	}
	// LoadConfig has checked that go-redis accepts the URL.
	opts, _ := redis.ParseURL(cfg.RedisURL)
	client := redis.NewClient(opts)
	return prefixedStorage{inner: redisstorage.NewFromConnection(client), prefix: cfg.RedisPrefix + "session:"}, client.Close
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

// maxMemorySessions bounds the in-memory storage: sessions (a few hundred bytes each) and the
// addresses staff signed in from, about 5 MB at most. Only a successful login makes either, so
// reaching it takes many staff or many addresses.
const maxMemorySessions = 10_000

// memoryStorage is a fiber.Storage in this instance's memory that holds at most max entries.
// When it is full, a new entry first drops the expired ones, then the one that expires soonest.
type memoryStorage struct {
	mu      sync.Mutex
	max     int
	now     func() time.Time
	entries map[string]memoryEntry
}

type memoryEntry struct {
	val []byte
	// expires is zero for an entry that does not expire.
	expires time.Time
}

func newMemoryStorage(max int, now func() time.Time) *memoryStorage {
	return &memoryStorage{max: max, now: now, entries: map[string]memoryEntry{}}
}

func (m *memoryStorage) live(e memoryEntry, now time.Time) bool {
	return e.expires.IsZero() || now.Before(e.expires)
}

func (m *memoryStorage) Get(key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok {
		return nil, nil
	}
	if !m.live(e, m.now()) {
		delete(m.entries, key)
		return nil, nil
	}
	return slices.Clone(e.val), nil
}

func (m *memoryStorage) Set(key string, val []byte, exp time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	e := memoryEntry{val: slices.Clone(val)}
	if exp > 0 {
		e.expires = now.Add(exp)
	}
	if _, ok := m.entries[key]; !ok && len(m.entries) >= m.max {
		m.makeRoom(now)
	}
	m.entries[key] = e
	return nil
}

// makeRoom drops the expired entries, and when none has expired, the one that expires soonest.
func (m *memoryStorage) makeRoom(now time.Time) {
	var soonest string
	var soonestAt time.Time
	for k, e := range m.entries {
		switch {
		case !m.live(e, now):
			delete(m.entries, k)
		case soonest == "" || (!e.expires.IsZero() && (soonestAt.IsZero() || e.expires.Before(soonestAt))):
			soonest, soonestAt = k, e.expires
		}
	}
	if len(m.entries) >= m.max {
		delete(m.entries, soonest)
	}
}

func (m *memoryStorage) Delete(key string) error {
	m.mu.Lock()
	delete(m.entries, key)
	m.mu.Unlock()
	return nil
}

func (m *memoryStorage) Reset() error {
	m.mu.Lock()
	clear(m.entries)
	m.mu.Unlock()
	return nil
}

func (m *memoryStorage) Close() error { return nil }

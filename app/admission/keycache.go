package admission

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/models"
)

// DefaultCacheTTL is how long a key read from the database is trusted when Config gives none.
const DefaultCacheTTL = 5 * time.Second

// maxUnknownKeys bounds the memory wrong keys can take; past it the set starts afresh, which
// costs at most one more read per wrong key.
const maxUnknownKeys = 10_000

// keyCache authenticates keys, reading the database only for a key this instance has not
// seen, once per TTL, and after it hears that the key changed (forget). The TTL is the safety
// net for news that never arrives.
type keyCache struct {
	keys *models.APIKeyStore
	now  func() time.Time
	ttl  time.Duration

	mu     sync.RWMutex
	byHash map[[sha256.Size]byte]*cachedKey
	byID   map[int64][sha256.Size]byte
	// unknown holds keys that matched no row, until when (Unix nanoseconds), so a client that
	// repeats a wrong key costs one database read per TTL, not one per request. A key made later
	// cannot be among them: keys are random.
	unknown map[[sha256.Size]byte]int64
	// gen grows with every forget: a row read before a forget may be older than the change
	// announced, so it serves its own request but is not kept.
	gen uint64
}

// cachedKey is an immutable copy of a row; a change replaces the whole entry.
type cachedKey struct {
	key models.APIKey
	// checkAfter is when the row is read again (Unix nanoseconds); a failed read pushes it on,
	// so a database outage costs one read per key per TTL, not one per request.
	checkAfter atomic.Int64
	refreshing atomic.Bool
}

func newKeyCache(keys *models.APIKeyStore, now func() time.Time, ttl time.Duration) *keyCache {
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	return &keyCache{keys: keys, now: now, ttl: ttl, byHash: map[[sha256.Size]byte]*cachedKey{},
		byID: map[int64][sha256.Size]byte{}, unknown: map[[sha256.Size]byte]int64{}}
}

// authenticate returns the key a client sent, or invalid_api_key when it is unknown, revoked or
// expired.
func (c *keyCache) authenticate(ctx context.Context, pk models.PresentedKey) (models.APIKey, error) {
	now := c.now()
	hash := pk.Hash()
	c.mu.RLock()
	e := c.byHash[hash]
	unknownUntil := c.unknown[hash]
	gen := c.gen
	c.mu.RUnlock()
	switch {
	case e == nil:
		if now.UnixNano() < unknownUntil {
			return models.APIKey{}, models.ErrUnknownKey
		}
		k, err := c.keys.Find(ctx, pk)
		if err == models.ErrUnknownKey {
			c.rememberUnknown(hash, now)
		}
		if err != nil {
			return models.APIKey{}, err
		}
		e = c.remember(k, gen)
	case now.UnixNano() >= e.checkAfter.Load() && e.refreshing.CompareAndSwap(false, true):
		e = c.refresh(ctx, e, gen, now)
		if e == nil {
			return models.APIKey{}, models.ErrUnknownKey
		}
	}
	return e.key, e.key.Usable(now)
}

// refresh reads a cached key again; while the database does not answer, the cached copy keeps
// serving. It returns nil when the key was deleted.
func (c *keyCache) refresh(ctx context.Context, e *cachedKey, gen uint64, now time.Time) *cachedKey {
	defer e.refreshing.Store(false)
	k, err := c.keys.Read(ctx, e.key.ID)
	switch {
	case err == nil:
		return c.remember(k, gen)
	case models.ErrorCode(err) == models.ENotFound:
		c.forget(e.key.ID)
		return nil
	}
	e.checkAfter.Store(now.Add(c.ttl).UnixNano())
	return e
}

// remember caches a copy of the row read at generation gen, replacing any older copy, unless a
// forget came in between.
func (c *keyCache) remember(k models.APIKey, gen uint64) *cachedKey {
	e := &cachedKey{key: k}
	e.checkAfter.Store(c.now().Add(c.ttl).UnixNano())
	var h [sha256.Size]byte
	if _, err := hex.Decode(h[:], []byte(k.Hash)); err != nil {
		return e
	}
	c.mu.Lock()
	if c.gen == gen {
		c.byHash[h] = e
		c.byID[k.ID] = h
	}
	c.mu.Unlock()
	return e
}

func (c *keyCache) rememberUnknown(hash [sha256.Size]byte, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unknown) >= maxUnknownKeys {
		clear(c.unknown)
	}
	c.unknown[hash] = now.Add(c.ttl).UnixNano()
}

// forget drops the cached copy of key id, or of every key when id is 0, so the next request
// with it reads it again.
func (c *keyCache) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if id == 0 {
		clear(c.byHash)
		clear(c.byID)
		return
	}
	if h, ok := c.byID[id]; ok {
		delete(c.byHash, h)
		delete(c.byID, id)
	}
}

package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// APIKey is a client's credential as stored: never the key itself, only its SHA-256 and its
// non-secret prefix, which finds the row and names the key in lists and logs.
type APIKey struct {
	ID     int64  `gorm:"primaryKey"`
	Name   string `gorm:"size:400;not null"`
	Prefix string `gorm:"size:16;not null;uniqueIndex"`
	// Hash is the hex SHA-256 of the whole key. A key carries 256 random bits, so a fast hash
	// is enough: nothing can be guessed from it.
	Hash string `gorm:"size:64;not null" json:"-"`
	Plan Plan   `gorm:"size:16;not null"`
	// PerMinute and PerDay are an Enterprise key's own limits; zero on the other plans.
	PerMinute   int `gorm:"not null;default:0"`
	PerDay      int `gorm:"not null;default:0"`
	ExpiresAt   *time.Time
	RevokedAt   *time.Time
	BannedUntil *time.Time
	LastUsedAt  *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Limits are the rate limits the key lives under: its plan's, or its own on Enterprise.
func (k *APIKey) Limits() Limits {
	if k.Plan == PlanEnterprise {
		return Limits{PerMinute: k.PerMinute, PerDay: k.PerDay}
	}
	for _, p := range Plans {
		if p.Plan == k.Plan {
			return p.Limits
		}
	}
	return AnonymousLimits
}

// Banned reports whether the key is under a temporary ban at now.
func (k *APIKey) Banned(now time.Time) bool {
	return k.BannedUntil != nil && now.Before(*k.BannedUntil)
}

// Expired reports whether the key's expiry has passed at now.
func (k *APIKey) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// Key states, as lists show them; the first that applies wins.
const (
	KeyRevoked = "revoked"
	KeyExpired = "expired"
	KeyBanned  = "banned"
	KeyActive  = "active"
)

// State is the one word that describes the key at now: revoked, expired, banned or active.
func (k *APIKey) State(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return KeyRevoked
	case k.Expired(now):
		return KeyExpired
	case k.Banned(now):
		return KeyBanned
	}
	return KeyActive
}

// A key is keyTag, then the prefix's random part, then '_', then the secret: 40 random bits
// that find the row and 256 that are the secret, in lower-case base32, so a double click selects
// the whole key and nothing in it needs escaping.
const (
	keyTag      = "psk_"
	prefixLen   = len(keyTag) + 8
	secretLen   = 52
	plainKeyLen = prefixLen + 1 + secretLen
	keyAlphabet = "abcdefghijklmnopqrstuvwxyz234567"
	prefixBytes = 5
	secretBytes = 32
)

var keyEncoding = base32.NewEncoding(keyAlphabet).WithPadding(base32.NoPadding)

// PresentedKey is a key as a client sent it, checked for shape and hashed. It may point into
// the request's buffers, so it must not outlive the request.
type PresentedKey struct {
	prefix string
	hash   [sha256.Size]byte
}

// ParsePresentedKey checks the shape of a key a client sent. A malformed key is invalid_api_key,
// answered without touching the database.
func ParsePresentedKey(plain string) (PresentedKey, error) {
	if len(plain) != plainKeyLen || plain[:len(keyTag)] != keyTag || plain[prefixLen] != '_' {
		return PresentedKey{}, errUnknownKey
	}
	for i := len(keyTag); i < plainKeyLen; i++ {
		if c := plain[i]; i != prefixLen && !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return PresentedKey{}, errUnknownKey
		}
	}
	return PresentedKey{prefix: plain[:prefixLen], hash: sha256.Sum256([]byte(plain))}, nil
}

var errUnknownKey = &Error{Code: EInvalidAPIKey, Message: "the API key is not valid"}

// NewAPIKey is what staff give to issue a key.
type NewAPIKey struct {
	Name string
	// Plan is free, pro, business or enterprise.
	Plan string
	// PerMinute and PerDay are required on enterprise and refused on the other plans.
	PerMinute int
	PerDay    int
	// ExpiresAt, when set, must be in the future.
	ExpiresAt *time.Time
}

// DefaultKeyCacheTTL is KeyStoreOptions.CacheTTL when none is given.
const DefaultKeyCacheTTL = 5 * time.Second

const (
	// lastUsedEvery is how often a store writes last-used times: at most once per key per period.
	lastUsedEvery        = time.Minute
	lastUsedFlushTimeout = 5 * time.Second
	// createTrials is how many prefixes Create draws before it gives up on collisions.
	createTrials = 3
	// noStoredHash stands in for the hash of a prefix that finds no row, so an unknown key costs
	// the same comparison as a wrong one.
	noStoredHash = "0000000000000000000000000000000000000000000000000000000000000000"
)

// KeyStoreOptions tune an APIKeyStore; the zero value gives the defaults.
type KeyStoreOptions struct {
	// Now is the clock of expiry, bans and the cache; time.Now when nil.
	Now func() time.Time
	// CacheTTL is how long a key read from the database is trusted before it is read again, so
	// changes made by another process (the CLI, another instance) arrive within it.
	CacheTTL time.Duration
}

// APIKeyStore issues, lists and changes API keys, and authenticates the keys clients send.
//
// Authentication reads the database only for a key this instance has not seen, and then once
// per CacheTTL; a change made through the same store (revoke, plan, ban, unban) takes effect on
// its next request. Last-used times are kept in memory and written in batches.
type APIKeyStore struct {
	db  *gorm.DB
	now func() time.Time
	ttl time.Duration

	mu     sync.RWMutex
	byHash map[[sha256.Size]byte]*cachedKey
	// unknown holds keys that matched no row, until when (Unix nanoseconds), so a client that
	// repeats a wrong key costs one database read per TTL, not one per request. A key made later
	// cannot be among them: keys are random.
	unknown map[[sha256.Size]byte]int64

	usedMu    sync.Mutex
	used      map[int64]time.Time // last-used times not yet written
	lastFlush time.Time
	flushing  bool
	flushDone sync.WaitGroup
}

// cachedKey is an immutable copy of a row; a change replaces the whole entry.
type cachedKey struct {
	key APIKey
	// checkAfter is when the row is read again (Unix nanoseconds); a failed read pushes it on,
	// so a database outage costs one read per key per TTL, not one per request.
	checkAfter atomic.Int64
	refreshing atomic.Bool
}

// NewAPIKeyStore returns a store on db.
func NewAPIKeyStore(db *gorm.DB, o KeyStoreOptions) *APIKeyStore {
	s := &APIKeyStore{db: db, now: o.Now, ttl: o.CacheTTL,
		byHash: map[[sha256.Size]byte]*cachedKey{}, unknown: map[[sha256.Size]byte]int64{},
		used: map[int64]time.Time{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.ttl <= 0 {
		s.ttl = DefaultKeyCacheTTL
	}
	return s
}

// Now is the store's clock.
func (s *APIKeyStore) Now() time.Time { return s.now() }

func (s *APIKeyStore) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Create validates and issues a new key. It returns the stored key and the plain key, which
// is shown to the user once and never stored.
func (s *APIKeyStore) Create(ctx context.Context, n NewAPIKey) (*APIKey, string, error) {
	var errs fieldErrors
	name, nerr := validName("name", n.Name)
	errs.add(nerr)
	plan, limits, perr := planLimits(n.Plan, n.PerMinute, n.PerDay)
	var pe *Error
	if errors.As(perr, &pe) {
		errs.add(pe)
	}
	if n.ExpiresAt != nil && !n.ExpiresAt.After(s.now()) {
		errs.add(FieldError("expiresAt", "must be in the future, got %s", n.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	if err := errs.err(); err != nil {
		return nil, "", err
	}
	k := APIKey{Name: name, Plan: plan, PerMinute: limits.PerMinute, PerDay: limits.PerDay}
	if n.ExpiresAt != nil {
		exp := n.ExpiresAt.UTC().Truncate(time.Microsecond)
		k.ExpiresAt = &exp
	}
	// 40 random prefix bits make a collision rare; on one, draw again.
	for trial := 1; ; trial++ {
		plain := generateKey()
		k.ID, k.Prefix, k.Hash = 0, plain[:prefixLen], hashHex(plain)
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := tx.Create(&k).Error; err != nil {
				return err
			}
			return recordChange(tx, Change{Object: ObjectAPIKey, ID: k.ID, Name: k.Name, Action: AuditCreate, After: k.auditFields()})
		})
		if err == nil {
			return &k, plain, nil
		}
		if !errors.Is(err, gorm.ErrDuplicatedKey) || trial == createTrials {
			return nil, "", storeError(err, "")
		}
	}
}

func generateKey() string {
	var b [prefixBytes + secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	return keyTag + keyEncoding.EncodeToString(b[:prefixBytes]) + "_" + keyEncoding.EncodeToString(b[prefixBytes:])
}

func hashHex(plain string) string {
	h := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(h[:])
}

// List returns every key, revoked and expired ones included, in id order.
func (s *APIKeyStore) List(ctx context.Context) ([]APIKey, error) {
	var keys []APIKey
	if err := s.db.WithContext(ctx).Order("id").Find(&keys).Error; err != nil {
		return nil, storeError(err, "")
	}
	for i := range keys {
		s.withPendingUse(&keys[i])
	}
	return keys, nil
}

// Get returns one key.
func (s *APIKeyStore) Get(ctx context.Context, id int64) (*APIKey, error) {
	var k APIKey
	if err := s.db.WithContext(ctx).Take(&k, id).Error; err != nil {
		return nil, storeError(err, "API key "+strconv.FormatInt(id, 10)+" not found")
	}
	s.withPendingUse(&k)
	return &k, nil
}

// Revoke ends a key for good; revoking a revoked key keeps its first revocation time.
func (s *APIKeyStore) Revoke(ctx context.Context, id int64) (*APIKey, error) {
	return s.update(ctx, id, AuditRevoke, map[string]any{"revoked_at": s.stamp()}, "revoked_at IS NULL")
}

// SetPlan moves a key to another plan; perMinute and perDay are required for enterprise and
// must be zero otherwise.
func (s *APIKeyStore) SetPlan(ctx context.Context, id int64, plan string, perMinute, perDay int) (*APIKey, error) {
	p, limits, err := planLimits(plan, perMinute, perDay)
	if err != nil {
		return nil, err
	}
	return s.update(ctx, id, AuditUpdate, map[string]any{"plan": p, "per_minute": limits.PerMinute, "per_day": limits.PerDay}, "")
}

// Unban lifts a temporary ban at once; a key that is not banned is left as it is.
func (s *APIKeyStore) Unban(ctx context.Context, id int64) (*APIKey, error) {
	return s.update(ctx, id, AuditUnban, map[string]any{"banned_until": nil}, "banned_until IS NOT NULL")
}

// Ban bans a key until the given time, unless it is already banned; it returns the key with
// the ban that holds, so instances that decide to ban at once agree on its end. The audit log
// records the rate limiter as the one who banned.
func (s *APIKeyStore) Ban(ctx context.Context, id int64, until time.Time) (*APIKey, error) {
	ctx = WithActor(ctx, ActorRateLimiter)
	k, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if k.Banned(s.now()) {
		s.remember(*k)
		return k, nil
	}
	return s.update(ctx, id, AuditBan, map[string]any{"banned_until": until.UTC().Truncate(time.Microsecond)}, "")
}

// update changes one key's columns (only where cond holds, when given) and records the change
// as action, then reads the key back and refreshes this instance's cached copy, so the change
// applies to its next request.
func (s *APIKeyStore) update(ctx context.Context, id int64, action string, cols map[string]any, cond string) (*APIKey, error) {
	var k APIKey
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(forUpdate).Take(&k, id).Error; err != nil {
			return storeError(err, "API key "+strconv.FormatInt(id, 10)+" not found")
		}
		before := k.auditFields()
		q := tx.Model(&APIKey{}).Where("id = ?", id)
		if cond != "" {
			q = q.Where(cond)
		}
		if err := q.Updates(cols).Error; err != nil {
			return err
		}
		k = APIKey{}
		if err := tx.Take(&k, id).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectAPIKey, ID: k.ID, Name: k.Name, Action: action, Before: before, After: k.auditFields()})
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	s.withPendingUse(&k)
	s.remember(k)
	return &k, nil
}

// auditFields are what the audit log keeps of a key: never its hash.
func (k *APIKey) auditFields() Fields {
	return Fields{"name": k.Name, "plan": k.Plan, "perMinute": k.PerMinute, "perDay": k.PerDay,
		"expiresAt": k.ExpiresAt, "revokedAt": k.RevokedAt, "bannedUntil": k.BannedUntil}
}

// Authenticate returns the key a client sent, or invalid_api_key when it is unknown, revoked or
// expired. The hash is compared in constant time against the row its prefix finds. (The cache
// is looked up by the SHA-256 itself: its timing tells nothing about a stored key.)
func (s *APIKeyStore) Authenticate(ctx context.Context, pk PresentedKey) (APIKey, error) {
	if pk.prefix == "" {
		return APIKey{}, errUnknownKey
	}
	now := s.now()
	s.mu.RLock()
	e := s.byHash[pk.hash]
	unknownUntil := s.unknown[pk.hash]
	s.mu.RUnlock()
	if e == nil {
		if now.UnixNano() < unknownUntil {
			return APIKey{}, errUnknownKey
		}
		k, err := s.lookup(ctx, pk)
		if err == errUnknownKey {
			s.rememberUnknown(pk.hash, now)
		}
		if err != nil {
			return APIKey{}, err
		}
		e = s.remember(k)
	} else if now.UnixNano() >= e.checkAfter.Load() && e.refreshing.CompareAndSwap(false, true) {
		e = s.refresh(ctx, e, now)
	}
	if e == nil {
		return APIKey{}, errUnknownKey
	}
	return e.key, usable(&e.key, now)
}

func (s *APIKeyStore) lookup(ctx context.Context, pk PresentedKey) (APIKey, error) {
	var k APIKey
	err := s.db.WithContext(ctx).Where("prefix = ?", pk.prefix).Take(&k).Error
	stored := k.Hash
	if errors.Is(err, gorm.ErrRecordNotFound) {
		stored = noStoredHash
	} else if err != nil {
		return APIKey{}, storeError(err, "")
	}
	var sum [2 * sha256.Size]byte
	hex.Encode(sum[:], pk.hash[:])
	if subtle.ConstantTimeCompare(sum[:], []byte(stored)) != 1 || err != nil {
		return APIKey{}, errUnknownKey
	}
	return k, nil
}

// refresh reads a cached key again; while the database does not answer, the cached copy keeps
// serving. It returns nil when the key was deleted.
func (s *APIKeyStore) refresh(ctx context.Context, e *cachedKey, now time.Time) *cachedKey {
	defer e.refreshing.Store(false)
	var k APIKey
	err := s.db.WithContext(ctx).Take(&k, e.key.ID).Error
	switch {
	case err == nil:
		return s.remember(k)
	case errors.Is(err, gorm.ErrRecordNotFound):
		s.forget(e.key)
		return nil
	}
	e.checkAfter.Store(now.Add(s.ttl).UnixNano())
	return e
}

func usable(k *APIKey, now time.Time) error {
	switch {
	case k.RevokedAt != nil:
		return &Error{Code: EInvalidAPIKey, Message: "the API key was revoked"}
	case k.Expired(now):
		return &Error{Code: EInvalidAPIKey, Message: "the API key expired at " + k.ExpiresAt.UTC().Format(time.RFC3339)}
	}
	return nil
}

// remember caches a copy of the row, replacing any older copy.
func (s *APIKeyStore) remember(k APIKey) *cachedKey {
	var h [sha256.Size]byte
	if _, err := hex.Decode(h[:], []byte(k.Hash)); err != nil {
		return &cachedKey{key: k}
	}
	e := &cachedKey{key: k}
	e.checkAfter.Store(s.now().Add(s.ttl).UnixNano())
	s.mu.Lock()
	s.byHash[h] = e
	s.mu.Unlock()
	return e
}

// maxUnknownKeys bounds the memory wrong keys can take; past it the set starts afresh, which
// costs at most one more read per wrong key.
const maxUnknownKeys = 10_000

func (s *APIKeyStore) rememberUnknown(hash [sha256.Size]byte, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.unknown) >= maxUnknownKeys {
		clear(s.unknown)
	}
	s.unknown[hash] = now.Add(s.ttl).UnixNano()
}

func (s *APIKeyStore) forget(k APIKey) {
	var h [sha256.Size]byte
	if _, err := hex.Decode(h[:], []byte(k.Hash)); err == nil {
		s.mu.Lock()
		delete(s.byHash, h)
		s.mu.Unlock()
	}
}

// Touch records that the key was used now. The time reaches the database in a batch, at most
// once a minute, never on the request's path.
func (s *APIKeyStore) Touch(id int64) {
	now := s.now()
	s.usedMu.Lock()
	s.used[id] = now
	due := !s.flushing && now.Sub(s.lastFlush) >= lastUsedEvery
	if due {
		s.flushing, s.lastFlush = true, now
		s.flushDone.Add(1)
	}
	s.usedMu.Unlock()
	if due {
		go func() {
			defer s.flushDone.Done()
			ctx, cancel := context.WithTimeout(context.Background(), lastUsedFlushTimeout)
			defer cancel()
			_ = s.flushUsed(ctx)
		}()
	}
}

// flushUsed writes the pending last-used times; those it could not write wait for the next
// flush.
func (s *APIKeyStore) flushUsed(ctx context.Context) error {
	s.usedMu.Lock()
	pending := s.used
	s.used = make(map[int64]time.Time, len(pending))
	s.usedMu.Unlock()

	var errs []error
	failed := map[int64]time.Time{}
	for id, at := range pending {
		err := s.db.WithContext(ctx).Model(&APIKey{}).Where("id = ?", id).
			UpdateColumn("last_used_at", at.UTC().Truncate(time.Microsecond)).Error
		if err != nil {
			failed[id] = at
			errs = append(errs, err)
		}
	}
	s.usedMu.Lock()
	for id, at := range failed {
		if newer, ok := s.used[id]; !ok || newer.Before(at) {
			s.used[id] = at
		}
	}
	s.flushing = false
	s.usedMu.Unlock()
	if len(errs) > 0 {
		return storeError(errors.Join(errs...), "")
	}
	return nil
}

// Close writes the last-used times still in memory; the server calls it on shutdown.
func (s *APIKeyStore) Close(ctx context.Context) error {
	s.flushDone.Wait()
	s.usedMu.Lock()
	s.flushing = true
	s.usedMu.Unlock()
	return s.flushUsed(ctx)
}

// withPendingUse shows a use this instance has not written yet.
func (s *APIKeyStore) withPendingUse(k *APIKey) {
	s.usedMu.Lock()
	at, ok := s.used[k.ID]
	s.usedMu.Unlock()
	if ok && (k.LastUsedAt == nil || at.After(*k.LastUsedAt)) {
		at = at.UTC().Truncate(time.Microsecond)
		k.LastUsedAt = &at
	}
}

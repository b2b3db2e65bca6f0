package models

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"gorm.io/gorm"
)

// KeyChangesChannel is the PostgreSQL channel on which a change of an API key in schema is
// announced (NOTIFY, with the key's id as payload). The schema is part of the name because
// channels are shared by the whole database.
func KeyChangesChannel(schema string) string { return "petstore_api_keys:" + schema }

// notifyKeyChange announces a change inside its transaction, so listeners hear of it when, and
// only if, it commits.
const notifyKeyChange = "SELECT pg_notify('petstore_api_keys:' || current_schema(), ?)"

// createTrials is how many prefixes Create draws before it gives up on collisions.
const createTrials = 3

// KeyStoreOptions tune an APIKeyStore; the zero value gives the defaults.
type KeyStoreOptions struct {
	// Now is the clock of expiry and bans; time.Now when nil.
	Now func() time.Time
}

// APIKeyStore issues, lists and changes API keys, and finds the key a client presents.
//
// Every change (revoke, plan, limits, scopes, ban, unban) is announced: on PostgreSQL by a
// NOTIFY in its own transaction, which every instance listens to, and in this process to the
// functions given to OnChange. Last-used times are kept in memory and written in batches.
type APIKeyStore struct {
	db   *gorm.DB
	now  func() time.Time
	used *lastUsed

	mu        sync.RWMutex
	listeners []func(id int64)
}

// NewAPIKeyStore returns a store on db.
func NewAPIKeyStore(db *gorm.DB, o KeyStoreOptions) *APIKeyStore {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &APIKeyStore{db: db, now: now, used: newLastUsed(db, now)}
}

// OnChange makes fn hear of every change this store makes to a key, after it commits.
func (s *APIKeyStore) OnChange(fn func(id int64)) {
	s.mu.Lock()
	s.listeners = append(s.listeners, fn)
	s.mu.Unlock()
}

func (s *APIKeyStore) changed(id int64) {
	s.mu.RLock()
	listeners := s.listeners
	s.mu.RUnlock()
	for _, fn := range listeners {
		fn(id)
	}
}

func (s *APIKeyStore) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Create validates and issues a new key, with a new client of its name when it names none.
// It returns the stored key and the plain key, which is shown to the user once and never stored.
func (s *APIKeyStore) Create(ctx context.Context, n NewAPIKey) (*APIKey, string, error) {
	k, err := n.validate(s.now())
	if err != nil {
		return nil, "", err
	}
	var plain string
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if k.ClientID == 0 {
			c, err := createClient(tx, Client{Name: k.Name})
			if err != nil {
				return err
			}
			k.ClientID = c.ID
		} else if err := tx.Take(&Client{}, k.ClientID).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return &Error{Code: ENotFound, Field: "client", Message: "client " + strconv.FormatInt(k.ClientID, 10) + " not found"}
			}
			return err
		}
		// 40 random prefix bits make a collision rare; on one, draw again.
		for trial := 1; ; trial++ {
			plain = generateKey()
			k.ID, k.Prefix, k.Hash = 0, plain[:prefixLen], hashHex(plain)
			err := tx.Transaction(func(tx *gorm.DB) error { return tx.Create(&k).Error })
			if err == nil {
				return recordChange(tx, Change{Object: ObjectAPIKey, ID: k.ID, Name: k.Name, Action: AuditCreate, After: k.auditFields()})
			}
			if !errors.Is(err, gorm.ErrDuplicatedKey) || trial == createTrials {
				return err
			}
		}
	})
	if err != nil {
		return nil, "", storeError(err, "")
	}
	return &k, plain, nil
}

// List returns every key, revoked and expired ones included, in id order.
func (s *APIKeyStore) List(ctx context.Context) ([]APIKey, error) {
	return s.list(ctx, s.db.WithContext(ctx))
}

// ListForClient returns a client's keys in id order.
func (s *APIKeyStore) ListForClient(ctx context.Context, clientID int64) ([]APIKey, error) {
	return s.list(ctx, s.db.WithContext(ctx).Where("client_id = ?", clientID))
}

func (s *APIKeyStore) list(_ context.Context, q *gorm.DB) ([]APIKey, error) {
	var keys []APIKey
	if err := q.Order("id").Find(&keys).Error; err != nil {
		return nil, storeError(err, "")
	}
	for i := range keys {
		s.used.show(&keys[i])
	}
	return keys, nil
}

// Get returns one key, with its last use by this instance.
func (s *APIKeyStore) Get(ctx context.Context, id int64) (*APIKey, error) {
	k, err := s.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	s.used.show(&k)
	return &k, nil
}

// Read returns a key as stored.
func (s *APIKeyStore) Read(ctx context.Context, id int64) (APIKey, error) {
	var k APIKey
	err := s.db.WithContext(ctx).Take(&k, id).Error
	return k, storeError(err, "API key "+strconv.FormatInt(id, 10)+" not found")
}

// Find returns the stored key a client presents, or ErrUnknownKey. The hash is compared in
// constant time against the row its prefix finds.
func (s *APIKeyStore) Find(ctx context.Context, pk PresentedKey) (APIKey, error) {
	if pk.prefix == "" {
		return APIKey{}, ErrUnknownKey
	}
	var k APIKey
	err := s.db.WithContext(ctx).Where("prefix = ?", pk.prefix).Take(&k).Error
	stored := k.Hash
	if errors.Is(err, gorm.ErrRecordNotFound) {
		stored = noStoredHash
	} else if err != nil {
		return APIKey{}, storeError(err, "")
	}
	if !pk.matches(stored) || err != nil {
		return APIKey{}, ErrUnknownKey
	}
	return k, nil
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

// SetScopes replaces a key's scopes by the named ones (at least one).
func (s *APIKeyStore) SetScopes(ctx context.Context, id int64, scopes []string) (*APIKey, error) {
	set, err := ParseScopes("scopes", scopes)
	if err != nil {
		return nil, err
	}
	return s.update(ctx, id, AuditUpdate, map[string]any{"scopes": set}, "")
}

// Unban lifts a temporary ban at once, and forgives the refusals that led to it; a key that is
// not banned is left as it is.
func (s *APIKeyStore) Unban(ctx context.Context, id int64) (*APIKey, error) {
	return s.update(ctx, id, AuditUnban, map[string]any{"banned_until": nil, "unbans": gorm.Expr("unbans + 1")}, "banned_until IS NOT NULL")
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
		return k, nil
	}
	return s.update(ctx, id, AuditBan, map[string]any{"banned_until": until.UTC().Truncate(time.Microsecond)}, "banned_until IS NULL OR banned_until <= ?", s.stamp())
}

// update changes one key's columns (only where cond holds, when given), records the change as
// action in the audit log and announces it, then reads the key back.
func (s *APIKeyStore) update(ctx context.Context, id int64, action string, cols map[string]any, cond string, args ...any) (*APIKey, error) {
	changed := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var k APIKey
		if err := tx.Clauses(forUpdate).Take(&k, id).Error; err != nil {
			return storeError(err, "API key "+strconv.FormatInt(id, 10)+" not found")
		}
		before := k.auditFields()
		q := tx.Model(&APIKey{}).Where("id = ?", id)
		if cond != "" {
			q = q.Where(cond, args...)
		}
		res := q.Updates(cols)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		changed = true
		k = APIKey{}
		if err := tx.Take(&k, id).Error; err != nil {
			return err
		}
		if err := recordChange(tx, Change{Object: ObjectAPIKey, ID: k.ID, Name: k.Name, Action: action, Before: before, After: k.auditFields()}); err != nil {
			return err
		}
		if tx.Dialector.Name() == "postgres" {
			return tx.Exec(notifyKeyChange, strconv.FormatInt(id, 10)).Error
		}
		return nil
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	if changed {
		s.changed(id)
	}
	return s.Get(ctx, id)
}

// KeyChange is when a key last changed (its last use is not a change).
type KeyChange struct {
	ID        int64
	UpdatedAt time.Time
}

// ChangedSince returns the keys changed at or after since.
func (s *APIKeyStore) ChangedSince(ctx context.Context, since time.Time) ([]KeyChange, error) {
	var out []KeyChange
	err := s.db.WithContext(ctx).Model(&APIKey{}).Select("id, updated_at").Where("updated_at >= ?", since).Scan(&out).Error
	return out, storeError(err, "")
}

// Touch records that the key was used now. The time reaches the database in a batch, at most
// once a minute, never on the request's path.
func (s *APIKeyStore) Touch(id int64) { s.used.touch(id) }

// Close writes the last-used times still in memory; the server calls it on shutdown.
func (s *APIKeyStore) Close(ctx context.Context) error { return s.used.close(ctx) }

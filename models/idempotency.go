package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// IdempotencyTTL is how long a stored response is replayed (docs/design.md, "Idempotent creation": 24 hours). Older
// records are ignored at once and deleted by Purge.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyRecord is the first response to a request sent with an Idempotency-Key, kept in
// the database so every instance, and a restarted one, replays it. Keys are scoped to the API
// key that sent them. Status 0 marks a request still in flight.
type IdempotencyRecord struct {
	ID       int64  `gorm:"primaryKey"`
	APIKeyID int64  `gorm:"not null;uniqueIndex:idx_idempotency_records_scope,priority:1"`
	Key      string `gorm:"column:idempotency_key;size:255;not null;uniqueIndex:idx_idempotency_records_scope,priority:2"`
	// Fingerprint is a hash of the method, the path and the body, to tell a retry from a
	// different request that reuses the key.
	Fingerprint string `gorm:"size:64;not null"`
	Status      int    `gorm:"not null"`
	Body        []byte
	Location    string    `gorm:"size:2000;not null;default:''"`
	CreatedAt   time.Time `gorm:"not null;index"`
}

// InFlight reports whether the record's request has not finished yet.
func (r *IdempotencyRecord) InFlight() bool { return r.Status == 0 }

// IdempotencyStore keeps idempotency records.
type IdempotencyStore struct {
	db *gorm.DB
	// lease is how long a record may stay in flight: one older than that was left by an
	// instance that died mid-request, and the next retry takes it over.
	lease time.Duration
}

// NewIdempotencyStore returns a store on db; lease must exceed the longest a request can run.
func NewIdempotencyStore(db *gorm.DB, lease time.Duration) *IdempotencyStore {
	return &IdempotencyStore{db: db, lease: lease}
}

// Begin claims (apiKeyID, key) for a request with this fingerprint. It returns the record:
// in flight when the caller now owns it (run the request, then Finish or Release it), or the
// finished first response to replay. A request still in flight under the same key is a
// conflict; a different request under the key is idempotency_key_reused.
func (s *IdempotencyStore) Begin(ctx context.Context, apiKeyID int64, key, fingerprint string) (*IdempotencyRecord, error) {
	db := s.db.WithContext(ctx)
	// Each pass either claims the key, answers from the record found, or removes a stale
	// record and tries again; only a racing writer can make it go round more than twice.
	for range 3 {
		now := db.NowFunc()
		rec := IdempotencyRecord{APIKeyID: apiKeyID, Key: key, Fingerprint: fingerprint, CreatedAt: now}
		res := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&rec)
		if res.Error != nil {
			return nil, storeError(res.Error, "")
		}
		if res.RowsAffected == 1 {
			return &rec, nil
		}
		var old IdempotencyRecord
		err := db.Where("api_key_id = ? AND idempotency_key = ?", apiKeyID, key).Take(&old).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			continue
		}
		if err != nil {
			return nil, storeError(err, "")
		}
		expired := old.CreatedAt.Before(now.Add(-IdempotencyTTL))
		abandoned := old.InFlight() && old.CreatedAt.Before(now.Add(-s.lease))
		if expired || abandoned {
			if err := db.Where("id = ?", old.ID).Delete(&IdempotencyRecord{}).Error; err != nil {
				return nil, storeError(err, "")
			}
			continue
		}
		if old.Fingerprint != fingerprint {
			return nil, &Error{Code: EIdemReused, Field: "Idempotency-Key",
				Message: "Idempotency-Key was already used for a different request; use a new key for a new request"}
		}
		if old.InFlight() {
			return nil, &Error{Code: EConflict, Field: "Idempotency-Key",
				Message: "a request with this Idempotency-Key is still in progress; retry shortly"}
		}
		return &old, nil
	}
	return nil, Errorf(EConflict, "Idempotency-Key is being claimed by concurrent requests; retry shortly")
}

// Keep stores the response of the request that owns rec inside tx, the transaction of the change
// the request made: the change and its response commit together, so a crash cannot leave a
// change whose retry would make it again. If rec is no longer this request's (a retry took the
// key over after the lease), it is a conflict, and the change rolls back with it.
func (s *IdempotencyStore) Keep(tx *gorm.DB, rec *IdempotencyRecord, status int, body []byte, location string) error {
	res := tx.Model(&IdempotencyRecord{}).Where("id = ? AND status = 0", rec.ID).
		Updates(map[string]any{"status": status, "body": body, "location": location})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != 1 {
		return &Error{Code: EConflict, Field: "Idempotency-Key",
			Message: "a request with this Idempotency-Key is still in progress; retry shortly"}
	}
	return nil
}

// Finish stores the response of a request that owns rec and changed nothing (a refusal that is
// replayed, such as an order for a pet that is not available), to be replayed from now on.
func (s *IdempotencyStore) Finish(ctx context.Context, rec *IdempotencyRecord, status int, body []byte, location string) error {
	err := s.db.WithContext(ctx).Model(&IdempotencyRecord{}).Where("id = ? AND status = 0", rec.ID).
		Updates(map[string]any{"status": status, "body": body, "location": location}).Error
	return storeError(err, "")
}

// Release forgets the key of a request whose response is not kept, so a retry runs afresh.
func (s *IdempotencyStore) Release(ctx context.Context, rec *IdempotencyRecord) error {
	err := s.db.WithContext(ctx).Where("id = ? AND status = 0", rec.ID).Delete(&IdempotencyRecord{}).Error
	return storeError(err, "")
}

// Purge deletes the records created before the given time and says how many there were.
func (s *IdempotencyStore) Purge(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("created_at < ?", before).Delete(&IdempotencyRecord{})
	return res.RowsAffected, storeError(res.Error, "")
}

// PurgeExpired deletes the records older than IdempotencyTTL.
func (s *IdempotencyStore) PurgeExpired(ctx context.Context) (int64, error) {
	return s.Purge(ctx, s.db.NowFunc().Add(-IdempotencyTTL))
}

package models

import (
	"context"
	"time"
)

// What the admin dashboard counts besides orders: webhook endpoints in trouble and keys banned
// now. Each query repeats the predicate of its partial index (adminIndexes) word for word.

// The states of a webhook endpoint, as staff see it.
const (
	EndpointActive   = "active"
	EndpointFailing  = "failing"
	EndpointDisabled = "disabled"
	EndpointDeleted  = "deleted"
)

// State is the one word that describes the endpoint: deleted, disabled, failing (its deliveries
// have all failed since FailingSince) or active. A failing endpoint is never "active".
func (e *WebhookEndpoint) State() string {
	switch {
	case e.DeletedAt.Valid:
		return EndpointDeleted
	case e.Disabled():
		return EndpointDisabled
	case e.FailingSince != nil:
		return EndpointFailing
	}
	return EndpointActive
}

// Since is when the endpoint's trouble started: when it was disabled, or when its deliveries
// started failing; nil for an active one.
func (e *WebhookEndpoint) Since() *time.Time {
	if e.DisabledAt != nil {
		return e.DisabledAt
	}
	return e.FailingSince
}

const troubledEndpoints = "deleted_at IS NULL AND (failing_since IS NOT NULL OR disabled_at IS NOT NULL)"

// Troubled returns the endpoints that are failing or disabled (and not deleted), the longest in
// trouble first, at most limit.
func (s *WebhookStore) Troubled(ctx context.Context, limit int) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	err := s.db.WithContext(ctx).Unscoped().Where(troubledEndpoints).
		Order("COALESCE(disabled_at, failing_since), id").Limit(limit).Find(&out).Error
	return out, storeError(err, "")
}

// CountTroubled counts the failing and the disabled endpoints.
func (s *WebhookStore) CountTroubled(ctx context.Context) (failing, disabled int64, err error) {
	var rows []struct {
		Disabled bool
		N        int64
	}
	err = s.db.WithContext(ctx).Unscoped().Model(&WebhookEndpoint{}).Where(troubledEndpoints).
		Select("disabled_at IS NOT NULL AS disabled, COUNT(*) AS n").Group("disabled_at IS NOT NULL").Scan(&rows).Error
	for _, r := range rows {
		if r.Disabled {
			disabled = r.N
		} else {
			failing = r.N
		}
	}
	return failing, disabled, storeError(err, "")
}

// CountBanned counts the keys under a ban at now (revoked ones aside: their ban no longer
// matters).
func (s *APIKeyStore) CountBanned(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&APIKey{}).Where("banned_until > ? AND revoked_at IS NULL", now.UTC()).Count(&n).Error
	return n, storeError(err, "")
}

// Names returns the names of the clients with the given ids, by id; unknown ids are left out.
func (s *ClientStore) Names(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Client
	if err := s.db.WithContext(ctx).Select("id", "name").Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, storeError(err, "")
	}
	for _, c := range rows {
		out[c.ID] = c.Name
	}
	return out, nil
}

package models

import "time"

// APIKey is a client's credential as stored: never the key itself, only its SHA-256 and its
// non-secret prefix, which finds the row and names the key in lists and logs.
type APIKey struct {
	ID     int64  `gorm:"primaryKey"`
	Name   string `gorm:"size:400;not null"`
	Prefix string `gorm:"size:16;not null;uniqueIndex"`
	// Hash is the hex SHA-256 of the whole key. A key carries 256 random bits, so a fast hash
	// is enough: nothing can be guessed from it.
	Hash string `gorm:"size:64;not null" json:"-"`
	// ClientID is the client the key belongs to. The column admits NULL only so that keys
	// issued before clients existed can be given theirs by the migration.
	ClientID int64 `gorm:"index"`
	Plan     Plan  `gorm:"size:16;not null"`
	// Scopes are what the key may do; keys issued before scopes existed were given all (the
	// column admits NULL for them, as ClientID does).
	Scopes ScopeSet `gorm:"size:200"`
	// PerMinute and PerDay are an Enterprise key's own limits; zero on the other plans.
	PerMinute   int `gorm:"not null;default:0"`
	PerDay      int `gorm:"not null;default:0"`
	ExpiresAt   *time.Time
	RevokedAt   *time.Time
	BannedUntil *time.Time
	// Unbans counts the bans staff lifted: the refusals counted before the latest one do not
	// count toward the next ban.
	Unbans     int `gorm:"not null;default:0"`
	LastUsedAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
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

// Usable says why a client may not use the key at now (invalid_api_key), or nil.
func (k *APIKey) Usable(now time.Time) error {
	switch {
	case k.RevokedAt != nil:
		return &Error{Code: EInvalidAPIKey, Message: "the API key was revoked"}
	case k.Expired(now):
		return &Error{Code: EInvalidAPIKey, Message: "the API key expired at " + k.ExpiresAt.UTC().Format(time.RFC3339)}
	}
	return nil
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

// NewAPIKey is what staff give to issue a key.
type NewAPIKey struct {
	Name string
	// ClientID is the client the key is for; zero makes a new client of the key's name.
	ClientID int64
	// Plan is free, pro, business or enterprise.
	Plan string
	// Scopes are the scopes' names; none gives the key every scope.
	Scopes []string
	// PerMinute and PerDay are required on enterprise and refused on the other plans.
	PerMinute int
	PerDay    int
	// ExpiresAt, when set, must be in the future.
	ExpiresAt *time.Time
}

// validate checks every field at now and returns the key to store, without its client, prefix
// and hash.
func (n NewAPIKey) validate(now time.Time) (APIKey, error) {
	var errs fieldErrors
	name, nerr := validName("name", n.Name)
	errs.add(nerr)
	plan, limits, perr := planLimits(n.Plan, n.PerMinute, n.PerDay)
	addAll(&errs, perr)
	scopes := AllScopes
	if n.Scopes != nil {
		var serr error
		scopes, serr = ParseScopes("scopes", n.Scopes)
		addAll(&errs, serr)
	}
	if n.ClientID < 0 {
		errs.add(FieldError("client", "must be a client's id, got %d", n.ClientID))
	}
	if n.ExpiresAt != nil && !n.ExpiresAt.After(now) {
		errs.add(FieldError("expiresAt", "must be in the future, got %s", n.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	k := APIKey{Name: name, ClientID: n.ClientID, Plan: plan, Scopes: scopes, PerMinute: limits.PerMinute, PerDay: limits.PerDay}
	if n.ExpiresAt != nil {
		exp := n.ExpiresAt.UTC().Truncate(time.Microsecond)
		k.ExpiresAt = &exp
	}
	return k, errs.err()
}

// addAll adds the field errors err carries (one, or several joined).
func addAll(errs *fieldErrors, err error) {
	e, ok := err.(*Error)
	switch {
	case !ok:
	case len(e.Fields) > 0:
		*errs = append(*errs, e.Fields...)
	default:
		errs.add(e)
	}
}

// auditFields are what the audit log keeps of a key: never its hash.
func (k *APIKey) auditFields() Fields {
	return Fields{"name": k.Name, "client": k.ClientID, "plan": k.Plan, "scopes": k.Scopes.Strings(),
		"perMinute": k.PerMinute, "perDay": k.PerDay, "expiresAt": k.ExpiresAt, "revokedAt": k.RevokedAt,
		"bannedUntil": k.BannedUntil}
}

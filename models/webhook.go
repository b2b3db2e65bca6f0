package models

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/petstore/petstore/models/secretbox"
	"gorm.io/gorm"
)

// Limits of webhook endpoints (docs/design.md, "Events and webhooks").
const (
	MaxEndpointsPerClient        = 10
	MaxEndpointURLLength         = 2048
	MaxEndpointDescriptionLength = 200
	// SecretOverlap is how long a rotated-out secret keeps signing beside the new one.
	SecretOverlap = 24 * time.Hour
	// FailingEndpointDisabledAfter is how long an endpoint's deliveries may all fail before it is
	// disabled.
	FailingEndpointDisabledAfter = 5 * 24 * time.Hour
	// PauseAfterTimeouts attempts in a row without an answer in time pause an endpoint: a
	// receiver that hangs would otherwise hold a delivery worker for the whole timeout of each
	// of its deliveries. Its deliveries wait (none is lost) and are tried again after the pause.
	PauseAfterTimeouts = 3
	// DefaultTimeoutPause is how long such an endpoint is paused.
	DefaultTimeoutPause = 5 * time.Minute
)

// Why an endpoint is disabled: by its client (PATCH), or by the deliveries, after five days of
// failures.
const (
	DisabledByClient  = "requested"
	DisabledByFailing = "failing"
)

// ActorDeliveries names the deliveries in the audit log: they disable an endpoint that keeps
// failing.
const ActorDeliveries = "deliveries"

// WebhookEndpoint is a URL a client has the service send events to, as stored. Deleting one
// keeps its row (DeletedAt), so staff still see its attempts.
type WebhookEndpoint struct {
	ID          int64    `gorm:"primaryKey"`
	ClientID    int64    `gorm:"not null;index"`
	URL         string   `gorm:"size:2048;not null"`
	Description string   `gorm:"size:800;not null;default:''"`
	Events      EventSet `gorm:"not null"`
	// Secret signs every delivery; PreviousSecret too, until PreviousSecretUntil, after a
	// rotation. Both are stored sealed (models/secretbox), opened only to sign a delivery
	// (SigningSecrets); empty on a deleted endpoint.
	Secret              string `gorm:"size:255;not null"`
	PreviousSecret      string `gorm:"size:255;not null;default:''"`
	PreviousSecretUntil *time.Time
	DisabledAt          *time.Time
	DisabledReason      string `gorm:"size:16;not null;default:''"`
	// FailingSince is when the first of the deliveries that have all failed since failed; nil
	// after a success.
	FailingSince *time.Time
	// Timeouts counts the attempts in a row that got no answer in time; from
	// PauseAfterTimeouts on, each pauses the endpoint's deliveries until PausedUntil.
	Timeouts    int `gorm:"not null;default:0"`
	PausedUntil *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeletedAt   gorm.DeletedAt `gorm:"index"`
	// NewSecret is the clear secret Create and RotateSecret just made, for their answer, the only
	// time the client sees it; never stored.
	NewSecret string `gorm:"-"`
}

// Paused reports whether deliveries to the endpoint wait at now, after it kept timing out.
func (e *WebhookEndpoint) Paused(now time.Time) bool {
	return e.PausedUntil != nil && now.Before(*e.PausedUntil)
}

// Disabled reports whether deliveries to the endpoint are stopped.
func (e *WebhookEndpoint) Disabled() bool { return e.DisabledAt != nil }

// sealedSecrets are the stored secrets that sign a delivery at now: the current one, and the one
// it replaced within SecretOverlap of the rotation.
func (e *WebhookEndpoint) sealedSecrets(now time.Time) []string {
	if e.PreviousSecret != "" && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil) {
		return []string{e.Secret, e.PreviousSecret}
	}
	return []string{e.Secret}
}

// auditFields are what the audit log keeps of an endpoint: never its secrets, only until when a
// rotated-out one signs (which each rotation changes).
func (e *WebhookEndpoint) auditFields() Fields {
	types := e.Events.List()
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return Fields{"clientId": e.ClientID, "url": e.auditName(), "description": e.Description,
		"events": strings.Join(names, " "), "disabled": e.Disabled(), "previousSecretUntil": e.PreviousSecretUntil}
}

// auditName is the endpoint's URL without its query and user information, where receivers often
// carry a token: the audit log is read by every admin, the endpoint's page only by those who
// may see its client.
func (e *WebhookEndpoint) auditName() string {
	u, err := url.Parse(e.URL)
	if err != nil {
		return "(an unparsable URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// NewWebhookEndpoint is what a client gives to add an endpoint. Nil means the field was not given.
type NewWebhookEndpoint struct {
	URL         *string
	Events      []string
	Description *string
}

// WebhookEndpointPatch changes some of an endpoint's fields; nil leaves a field as it is.
type WebhookEndpointPatch struct {
	URL      *string
	Events   *[]string
	Disabled *bool
}

// ReadScope is the scope that reads events of type t, on /v1/events and through a webhook
// endpoint alike: pets:read for pet events, orders:read for order events.
func ReadScope(t EventType) Scope {
	if t.IsOrder() {
		return ScopeOrdersRead
	}
	return ScopePetsRead
}

// ScopeRefusal refuses a subscription to event types the API key may not read: an
// insufficient_scope error that names the Scope lacking, for the answer's challenge.
type ScopeRefusal struct {
	Scope Scope
	err   *Error
}

func (r *ScopeRefusal) Error() string { return r.err.Error() }
func (r *ScopeRefusal) Unwrap() error { return r.err }

// mayRead refuses events, a subscription, when have lacks the read scope of any of its types.
func mayRead(events EventSet, have ScopeSet) error {
	for _, t := range events.List() {
		if sc := ReadScope(t); !have.Has(sc) {
			return &ScopeRefusal{Scope: sc, err: &Error{Code: EInsufficientScope, Field: "events",
				Message: "subscribing to " + string(t) + " needs the scope " + string(sc) + ", which the API key does not have"}}
		}
	}
	return nil
}

// URLCheck refuses an endpoint URL the deliveries must not be sent to (see app/webhooks):
// with a validation error naming url.
type URLCheck func(ctx context.Context, rawURL string) error

// WebhookOptions are what a WebhookStore needs besides the database.
type WebhookOptions struct {
	// Check checks a URL at registration.
	Check URLCheck
	// NewSecret makes a signing secret.
	NewSecret func() (string, error)
	// Keys seal the secrets stored and open them to sign; nil is the development keyring.
	Keys *secretbox.Keyring
	// Now is the service's clock: when a rotated-out secret stops signing.
	Now func() time.Time
	// TimeoutPause is how long an endpoint that keeps timing out is paused (default
	// DefaultTimeoutPause).
	TimeoutPause time.Duration
}

// WebhookStore keeps webhook endpoints and their delivery attempts.
type WebhookStore struct {
	db  *gorm.DB
	opt WebhookOptions
}

// NewWebhookStore returns a store on db.
func NewWebhookStore(db *gorm.DB, opt WebhookOptions) *WebhookStore {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.TimeoutPause == 0 {
		opt.TimeoutPause = DefaultTimeoutPause
	}
	if opt.Keys == nil {
		opt.Keys = secretbox.Development()
	}
	return &WebhookStore{db: db, opt: opt}
}

func validEndpointURL(raw string) *Error {
	switch u, err := url.Parse(raw); {
	case raw == "":
		return FieldError("url", "must not be empty")
	case len(raw) > MaxEndpointURLLength:
		return FieldError("url", "must be at most %d characters, got %d", MaxEndpointURLLength, len(raw))
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return FieldError("url", "must be an absolute URL such as https://example.com/webhooks, got %s", strconv.Quote(raw))
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return FieldError("url", "must not have a fragment (#...)")
	case u.User != nil:
		return FieldError("url", "must not carry a user name or password; authenticate deliveries by their signature")
	}
	return nil
}

func validEvents(names []string) (EventSet, *Error) {
	if len(names) == 0 {
		return 0, FieldError("events", "must name at least one event type")
	}
	var set EventSet
	for _, n := range names {
		t, err := ParseEventType("events", n)
		if err != nil {
			return 0, err.(*Error)
		}
		if set.Has(t) {
			return 0, FieldError("events", "names %s twice", strconv.Quote(n))
		}
		set |= eventBit(t)
	}
	return set, nil
}

func validDescription(s string) (string, *Error) {
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return "", FieldError("description", "must be valid UTF-8")
	case n > MaxEndpointDescriptionLength:
		return "", FieldError("description", "must be at most %d characters, got %d", MaxEndpointDescriptionLength, n)
	case strings.IndexFunc(s, unicode.IsControl) >= 0 || strings.IndexFunc(s, isFormat) >= 0:
		return "", FieldError("description", "must not contain control or invisible format characters")
	}
	return s, nil
}

// Validate checks every field and returns the endpoint to store (without its secret).
func (n NewWebhookEndpoint) Validate() (WebhookEndpoint, error) {
	var e WebhookEndpoint
	var errs fieldErrors
	if n.URL == nil {
		errs.add(FieldError("url", "is required"))
	} else if err := validEndpointURL(*n.URL); err != nil {
		errs.add(err)
	} else {
		e.URL = *n.URL
	}
	if n.Events == nil {
		errs.add(FieldError("events", "is required"))
	} else {
		set, err := validEvents(n.Events)
		errs.add(err)
		e.Events = set
	}
	if n.Description != nil {
		d, err := validDescription(*n.Description)
		errs.add(err)
		e.Description = d
	}
	return e, errs.err()
}

// Create validates and adds an endpoint for a client, with a new secret (returned once, in the
// endpoint). A client has at most MaxEndpointsPerClient. scopes are those of the key that asks:
// it may subscribe only to the events it may read.
func (s *WebhookStore) Create(ctx context.Context, clientID int64, scopes ScopeSet, n NewWebhookEndpoint, actor string) (*WebhookEndpoint, error) {
	e, err := n.Validate()
	if err != nil {
		return nil, err
	}
	if err := mayRead(e.Events, scopes); err != nil {
		return nil, err
	}
	if err := s.opt.Check(ctx, e.URL); err != nil {
		return nil, err
	}
	if e.NewSecret, err = s.opt.NewSecret(); err != nil {
		return nil, err
	}
	if e.Secret, err = s.opt.Keys.Seal(e.NewSecret); err != nil {
		return nil, err
	}
	e.ClientID = clientID
	err = s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		// The client's row is the lock that keeps two creations from both taking the tenth place.
		var c Client
		if err := tx.Clauses(forUpdate).Take(&c, clientID).Error; err != nil {
			return storeError(err, "client "+strconv.FormatInt(clientID, 10)+" not found")
		}
		var n int64
		if err := tx.Model(&WebhookEndpoint{}).Where("client_id = ?", clientID).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxEndpointsPerClient {
			return &Error{Code: EValidation, Field: "url", Message: "a client has at most " +
				strconv.Itoa(MaxEndpointsPerClient) + " webhook endpoints; delete one before adding another"}
		}
		if err := tx.Create(&e).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectWebhookEndpoint, ID: e.ID, Name: e.auditName(), Action: AuditCreate, After: e.auditFields()})
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return &e, nil
}

func endpointNotFound(id int64) string {
	return "webhook endpoint " + strconv.FormatInt(id, 10) + " not found"
}

// List returns a client's endpoints in id order (at most MaxEndpointsPerClient).
func (s *WebhookStore) List(ctx context.Context, clientID int64) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	err := s.db.WithContext(ctx).Where("client_id = ?", clientID).Order("id").Find(&out).Error
	return out, storeError(err, "")
}

// Get returns one of a client's endpoints; another client's is not found.
func (s *WebhookStore) Get(ctx context.Context, clientID, id int64) (*WebhookEndpoint, error) {
	var e WebhookEndpoint
	err := s.db.WithContext(ctx).Where("client_id = ?", clientID).Take(&e, id).Error
	return &e, storeError(err, endpointNotFound(id))
}

// GetAny returns an endpoint, deleted or not (for staff and the deliveries).
func (s *WebhookStore) GetAny(ctx context.Context, id int64) (*WebhookEndpoint, error) {
	var e WebhookEndpoint
	err := s.db.WithContext(ctx).Unscoped().Take(&e, id).Error
	return &e, storeError(err, endpointNotFound(id))
}

// ForClient returns every endpoint of a client for staff, deleted ones last.
func (s *WebhookStore) ForClient(ctx context.Context, clientID int64) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	err := s.db.WithContext(ctx).Unscoped().Where("client_id = ?", clientID).
		Order("CASE WHEN deleted_at IS NULL THEN 0 ELSE 1 END, id").Find(&out).Error
	return out, storeError(err, "")
}

// change applies fn to one of a client's endpoints (clientID 0: any endpoint, for staff and the
// deliveries) in a transaction that locks it, and records the change in the audit log as action.
func (s *WebhookStore) change(ctx context.Context, clientID, id int64, action, actor string, fn func(tx *gorm.DB, e *WebhookEndpoint) error) (*WebhookEndpoint, error) {
	var e WebhookEndpoint
	err := s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		q := tx.Clauses(forUpdate)
		if clientID != 0 {
			q = q.Where("client_id = ?", clientID)
		}
		if err := q.Take(&e, id).Error; err != nil {
			return storeError(err, endpointNotFound(id))
		}
		before := e.auditFields()
		if err := fn(tx, &e); err != nil {
			return err
		}
		e.UpdatedAt = tx.NowFunc()
		if err := tx.Select("*").Omit("created_at").Save(&e).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectWebhookEndpoint, ID: e.ID, Name: e.auditName(), Action: action, Before: before, After: e.auditFields()})
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return &e, nil
}

// Update changes what the patch gives of one of a client's endpoints. A new URL is checked as at
// creation; enabling an endpoint forgets its failures. A patch that changes the events or the URL,
// or enables the endpoint, needs the read scope of every event type the endpoint is then
// subscribed to among scopes, those of the key that asks; disabling needs none.
func (s *WebhookStore) Update(ctx context.Context, clientID, id int64, scopes ScopeSet, p WebhookEndpointPatch, actor string) (*WebhookEndpoint, error) {
	var errs fieldErrors
	if p.URL != nil {
		errs.add(validEndpointURL(*p.URL))
	}
	var set EventSet
	if p.Events != nil {
		var err *Error
		set, err = validEvents(*p.Events)
		errs.add(err)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if p.URL != nil {
		if err := s.opt.Check(ctx, *p.URL); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, clientID, id, AuditUpdate, actor, func(_ *gorm.DB, e *WebhookEndpoint) error {
		if p.URL != nil {
			e.URL = *p.URL
		}
		if p.Events != nil {
			e.Events = set
		}
		if p.Disabled != nil {
			s.setDisabled(e, *p.Disabled, DisabledByClient)
		}
		if p.Events != nil || p.URL != nil || p.Disabled != nil && !*p.Disabled {
			return mayRead(e.Events, scopes)
		}
		return nil
	})
}

func (s *WebhookStore) setDisabled(e *WebhookEndpoint, disabled bool, reason string) {
	switch {
	case disabled && e.DisabledAt == nil:
		now := s.opt.Now().UTC()
		e.DisabledAt, e.DisabledReason = &now, reason
	case !disabled:
		e.DisabledAt, e.DisabledReason, e.FailingSince = nil, "", nil
	}
}

// Enable re-enables a disabled endpoint, as staff do; its failures are forgotten.
func (s *WebhookStore) Enable(ctx context.Context, id int64, actor string) (*WebhookEndpoint, error) {
	return s.change(ctx, 0, id, AuditEnable, actor, func(_ *gorm.DB, e *WebhookEndpoint) error {
		s.setDisabled(e, false, "")
		return nil
	})
}

// RotateSecret gives one of a client's endpoints a new secret (returned in NewSecret); the old
// one keeps signing beside it for SecretOverlap, moved as it is stored, never opened.
func (s *WebhookStore) RotateSecret(ctx context.Context, clientID, id int64, actor string) (*WebhookEndpoint, error) {
	secret, err := s.opt.NewSecret()
	if err != nil {
		return nil, err
	}
	sealed, err := s.opt.Keys.Seal(secret)
	if err != nil {
		return nil, err
	}
	e, err := s.change(ctx, clientID, id, AuditRotateSecret, actor, func(_ *gorm.DB, e *WebhookEndpoint) error {
		until := s.opt.Now().UTC().Add(SecretOverlap)
		e.PreviousSecret, e.PreviousSecretUntil, e.Secret = e.Secret, &until, sealed
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.NewSecret = secret
	return e, nil
}

// Delete deletes one of a client's endpoints: no delivery is made to it any more, and its signing
// secrets are wiped.
func (s *WebhookStore) Delete(ctx context.Context, clientID, id int64, actor string) error {
	return storeError(s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		var e WebhookEndpoint
		if err := tx.Clauses(forUpdate).Where("client_id = ?", clientID).Take(&e, id).Error; err != nil {
			return storeError(err, endpointNotFound(id))
		}
		// The row stays for the attempts staff read; its secrets go, nothing signs with them again.
		if err := tx.Model(&e).Updates(map[string]any{"secret": "", "previous_secret": "", "previous_secret_until": nil}).Error; err != nil {
			return err
		}
		if err := tx.Delete(&e).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectWebhookEndpoint, ID: e.ID, Name: e.auditName(), Action: AuditDelete, Before: e.auditFields()})
	}), "")
}

package models

import (
	"context"
	"net/mail"
	"strconv"
	"time"

	"gorm.io/gorm"
)

// Client is an integrator of the API. It owns its API keys (rotation is a new key of the same
// client) and the orders its keys place.
type Client struct {
	ID    int64  `gorm:"primaryKey"`
	Name  string `gorm:"size:400;not null"`
	Email string `gorm:"size:254;not null;default:''"`
	// CreatedAt of a client made for a key issued before clients existed is the key's own.
	CreatedAt time.Time
}

// NewClient is what staff give to add a client.
type NewClient struct {
	Name string
	// Email is an optional contact address.
	Email string
}

// MaxEmailLength is the longest address SMTP carries.
const MaxEmailLength = 254

// Validate checks the fields and returns the client to store.
func (n NewClient) Validate() (Client, error) {
	var errs fieldErrors
	name, nerr := validName("name", n.Name)
	errs.add(nerr)
	c := Client{Name: name}
	if n.Email != "" {
		a, err := mail.ParseAddress(n.Email)
		switch {
		case len(n.Email) > MaxEmailLength:
			errs.add(FieldError("email", "must be at most %d characters", MaxEmailLength))
		case err != nil || a.Address != n.Email:
			errs.add(FieldError("email", "must be a plain e-mail address such as ops@example.com, got %s", strconv.Quote(n.Email)))
		default:
			c.Email = a.Address
		}
	}
	return c, errs.err()
}

// ClientSummary is a client with the numbers its list shows.
type ClientSummary struct {
	Client
	Keys       int
	ActiveKeys int
	Orders     int
}

// ClientStore adds and lists clients.
type ClientStore struct{ db *gorm.DB }

// NewClientStore returns a store on db.
func NewClientStore(db *gorm.DB) *ClientStore { return &ClientStore{db: db} }

// Create validates and adds a client.
func (s *ClientStore) Create(ctx context.Context, n NewClient) (*Client, error) {
	c, err := n.Validate()
	if err != nil {
		return nil, err
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		c, err = createClient(tx, c)
		return err
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return &c, nil
}

// createClient stores a client in tx and records it in the audit log.
func createClient(tx *gorm.DB, c Client) (Client, error) {
	if err := tx.Create(&c).Error; err != nil {
		return c, err
	}
	return c, recordChange(tx, Change{Object: ObjectClient, ID: c.ID, Name: c.Name, Action: AuditCreate,
		After: Fields{"name": c.Name, "email": c.Email}})
}

// Get returns one client.
func (s *ClientStore) Get(ctx context.Context, id int64) (*Client, error) {
	var c Client
	err := s.db.WithContext(ctx).Take(&c, id).Error
	return &c, storeError(err, "client "+strconv.FormatInt(id, 10)+" not found")
}

// List returns every client in id order, with how many keys (of them unrevoked) and orders
// each has; clients are few.
func (s *ClientStore) List(ctx context.Context, now time.Time) ([]ClientSummary, error) {
	var out []ClientSummary
	err := s.db.WithContext(ctx).Raw(`SELECT c.id, c.name, c.email, c.created_at,
		(SELECT COUNT(*) FROM api_keys k WHERE k.client_id = c.id) AS keys,
		(SELECT COUNT(*) FROM api_keys k WHERE k.client_id = c.id AND k.revoked_at IS NULL
			AND (k.expires_at IS NULL OR k.expires_at > ?)) AS active_keys,
		(SELECT COUNT(*) FROM orders o WHERE o.client_id = c.id) AS orders
		FROM clients c ORDER BY c.id`, now).Scan(&out).Error
	return out, storeError(err, "")
}

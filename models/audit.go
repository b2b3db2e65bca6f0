package models

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// The audit log keeps every change that staff, API clients and the command line make to a stored
// object: who, when, which object, what was done, and the fields before and after. Each store
// method that changes something calls recordChange inside the transaction that makes the change,
// so there is no change without its entry and no entry without its change.

type actorKey struct{}

// WithActor returns ctx carrying who acts: StaffActor, APIKeyActor, ActorCLI, ... The admin pages
// and the API set it once per request; every change made under ctx is recorded as theirs.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorOf returns the actor ctx carries, or "" when none.
func ActorOf(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

// Actors that are not a person or an API client (besides SeedActor, whose demo data is not
// audited).
const (
	// ActorCLI is the command line (petstore keys, petstore staff): whoever runs it on the
	// service's database.
	ActorCLI = "cli"
	// ActorRateLimiter is the rate limiter, which bans keys that keep sending after their 429s.
	ActorRateLimiter = "ratelimit"
	// ActorVisitor is someone not signed in: a failed login, a lock-out.
	ActorVisitor = "visitor"
)

// errNoActor is a programming error: a store changed something under a context without WithActor.
var errNoActor = errors.New("models: a change was made without an actor (the context lacks models.WithActor)")

// The kinds of object the audit log records.
const (
	ObjectPet      = "pet"
	ObjectOrder    = "order"
	ObjectCategory = "category"
	ObjectAPIKey   = "api_key"
	ObjectStaff    = "staff"
	ObjectClient   = "client"
	// ObjectWebhookEndpoint is a client's webhook endpoint.
	ObjectWebhookEndpoint = "webhook_endpoint"
)

// AuditObjects lists every kind of object the audit log records, for its filter.
var AuditObjects = []string{ObjectPet, ObjectOrder, ObjectCategory, ObjectAPIKey, ObjectStaff, ObjectClient, ObjectWebhookEndpoint}

// Audit actions. An order's own actions (place, approve, deliver, cancel) and a pet's status set
// by hand (set_status) are recorded under the lifecycle's names.
const (
	AuditCreate         = "create"
	AuditUpdate         = "update"
	AuditDelete         = "delete"
	AuditRestore        = "restore"
	AuditRevoke         = "revoke"
	AuditBan            = "ban"
	AuditUnban          = "unban"
	AuditDisable        = "disable"
	AuditEnable         = "enable"
	AuditChangePassword = "change_password" // by the account's owner
	AuditResetPassword  = "reset_password"  // by an admin: a one-time password
	AuditSetPassword    = "set_password"    // on the command line
	AuditRotateSecret   = "rotate_secret"   // a webhook endpoint's signing secret
	AuditLogIn          = "log_in"
	AuditLogInFailed    = "log_in_failed"
	AuditLockOut        = "lock_out" // logins as an account from one address refused for a while
	AuditLogOut         = "log_out"
)

// AuditActions lists every action the audit log records, for its filter.
var AuditActions = []string{AuditCreate, AuditUpdate, AuditDelete, AuditRestore,
	string(ActionSetStatus), string(ActionPlace), string(ActionApprove), string(ActionDeliver), string(ActionCancel),
	AuditRevoke, AuditBan, AuditUnban, AuditDisable, AuditEnable, AuditChangePassword, AuditResetPassword, AuditSetPassword, AuditRotateSecret,
	AuditLogIn, AuditLogInFailed, AuditLockOut, AuditLogOut}

// Fields are an object's audited fields, by their API names: what a person compares, never a
// secret (no password or key hash).
type Fields map[string]any

// Change is one change to one object, as a store hands it to the audit log.
type Change struct {
	Object string // ObjectPet, ...
	ID     int64
	// Name is the object's name as people know it (a pet's name, a username), shown beside its id.
	Name   string
	Action string // AuditCreate, ...
	// Before is nil for a creation, After nil for a deletion. Of an update the log keeps only the
	// fields that changed.
	Before, After Fields
}

// AuditEntry is one recorded change.
type AuditEntry struct {
	ID         int64     `gorm:"primaryKey;index:idx_audit_entries_object,priority:3;index:idx_audit_entries_actor,priority:2"`
	CreatedAt  time.Time `gorm:"not null;index"`
	Actor      string    `gorm:"size:200;not null;index:idx_audit_entries_actor,priority:1"`
	ObjectType string    `gorm:"size:32;not null;index:idx_audit_entries_object,priority:1"`
	ObjectID   int64     `gorm:"not null;index:idx_audit_entries_object,priority:2"`
	ObjectName string    `gorm:"size:400;not null;default:''"`
	Action     string    `gorm:"size:32;not null"`
	// Before and After are JSON objects of Fields; empty when there is no such side.
	Before string `gorm:"type:text;not null;default:''"`
	After  string `gorm:"type:text;not null;default:''"`
}

// recordChange writes c to the audit log inside tx, the transaction that makes the change, as
// done by the actor of the context tx runs under, at the database's time. A change that leaves
// every audited field as it was is not recorded.
func recordChange(tx *gorm.DB, c Change) error {
	actor := ActorOf(tx.Statement.Context)
	if actor == "" {
		return errNoActor
	}
	before, after := c.Before, c.After
	if before != nil && after != nil {
		before, after = changedFields(before, after)
		if len(before) == 0 {
			return nil
		}
	}
	b, err := fieldsJSON(before)
	if err != nil {
		return err
	}
	a, err := fieldsJSON(after)
	if err != nil {
		return err
	}
	// Written out rather than through GORM's Create, whose callbacks doubled what auditing
	// cost a pet's creation (BenchmarkCreatePet).
	return tx.Exec("INSERT INTO audit_entries (created_at, actor, object_type, object_id, object_name, action, before, after) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		tx.NowFunc(), actor, c.Object, c.ID, c.Name, c.Action, b, a).Error
}

// changedFields keeps the fields whose values differ, compared as JSON.
func changedFields(before, after Fields) (Fields, Fields) {
	b, a := Fields{}, Fields{}
	for k := range mergeKeys(before, after) {
		bj, _ := json.Marshal(before[k])
		aj, _ := json.Marshal(after[k])
		if string(bj) != string(aj) {
			b[k], a[k] = before[k], after[k]
		}
	}
	return b, a
}

func mergeKeys(x, y Fields) map[string]struct{} {
	keys := make(map[string]struct{}, len(x)+len(y))
	for k := range x {
		keys[k] = struct{}{}
	}
	for k := range y {
		keys[k] = struct{}{}
	}
	return keys
}

func fieldsJSON(f Fields) (string, error) {
	if f == nil {
		return "", nil
	}
	b, err := json.Marshal(f)
	return string(b), err
}

// BeforeFields and AfterFields decode the entry's fields; nil when that side is absent.
func (e *AuditEntry) BeforeFields() Fields { return decodeFields(e.Before) }

// AfterFields: see BeforeFields.
func (e *AuditEntry) AfterFields() Fields { return decodeFields(e.After) }

func decodeFields(s string) Fields {
	if s == "" {
		return nil
	}
	var f Fields
	if json.Unmarshal([]byte(s), &f) != nil {
		return nil
	}
	return f
}

// AuditFilter narrows the audit log. Zero values do not filter.
type AuditFilter struct {
	Actor    string
	Object   string
	ObjectID int64
	Action   string
	// Day keeps the entries of one day, in Day's location (the store's zone): from its midnight
	// to the next, however long daylight saving makes it.
	Day time.Time
}

// AuditStore reads the audit log; the stores write it.
type AuditStore struct{ db *gorm.DB }

// NewAuditStore returns a store on db.
func NewAuditStore(db *gorm.DB) *AuditStore { return &AuditStore{db: db} }

// auditEntries lists the log newest first, by id only.
var auditEntries = keyset[AuditEntry]{
	table: "audit_entries",
	id:    func(e *AuditEntry) int64 { return e.ID },
}

// AuditOrder is the audit log's one order: newest first.
var AuditOrder = Sort{Desc: true}

// List returns a page of the entries f keeps, newest first (page's sort is AuditOrder).
func (s *AuditStore) List(ctx context.Context, f AuditFilter, page Page) (Paged[AuditEntry], error) {
	var where []string
	var args []any
	if f.Actor != "" {
		where, args = append(where, "actor = ?"), append(args, f.Actor)
	}
	if f.Object != "" {
		where, args = append(where, "object_type = ?"), append(args, f.Object)
	}
	if f.ObjectID != 0 {
		where, args = append(where, "object_id = ?"), append(args, f.ObjectID)
	}
	if f.Action != "" {
		where, args = append(where, "action = ?"), append(args, f.Action)
	}
	if !f.Day.IsZero() {
		day := time.Date(f.Day.Year(), f.Day.Month(), f.Day.Day(), 0, 0, 0, 0, f.Day.Location())
		where, args = append(where, "created_at >= ? AND created_at < ?"), append(args, day.UTC(), day.AddDate(0, 0, 1).UTC())
	}
	page.Sort = AuditOrder
	return auditEntries.list(ctx, s.db, where, args, page)
}

// Actor is an actor string as people read it: a staff member's username, an API key's name, or
// a word for the command line, the rate limiter and the seed. ID is the staff member's or the
// key's id, 0 for the others.
type Actor struct {
	Kind string // ObjectStaff, ObjectAPIKey, or the actor string itself
	ID   int64
	Name string
}

// Actors resolves actor strings to the staff members and API keys they name. An actor whose
// account or key no longer exists keeps its raw name.
func (s *AuditStore) Actors(ctx context.Context, actors []string) (map[string]Actor, error) {
	out := make(map[string]Actor, len(actors))
	var usernames []string
	var keyIDs []int64
	for _, a := range actors {
		kind, ref, _ := strings.Cut(a, ":")
		switch kind {
		case "staff":
			usernames = append(usernames, ref)
			out[a] = Actor{Kind: ObjectStaff, Name: ref}
		case "api-key":
			out[a] = Actor{Kind: ObjectAPIKey, Name: a}
			if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
				keyIDs = append(keyIDs, id)
			}
		default:
			out[a] = Actor{Kind: a, Name: a}
		}
	}
	if len(usernames) > 0 {
		var staff []Staff
		if err := s.db.WithContext(ctx).Select("id, username").Where("username IN ?", usernames).Find(&staff).Error; err != nil {
			return nil, storeError(err, "")
		}
		for _, st := range staff {
			out[StaffActor(st.Username)] = Actor{Kind: ObjectStaff, ID: st.ID, Name: st.Username}
		}
	}
	if len(keyIDs) > 0 {
		var keys []APIKey
		if err := s.db.WithContext(ctx).Select("id, name").Where("id IN ?", keyIDs).Find(&keys).Error; err != nil {
			return nil, storeError(err, "")
		}
		for _, k := range keys {
			out[APIKeyActor(k.ID)] = Actor{Kind: ObjectAPIKey, ID: k.ID, Name: k.Name}
		}
	}
	return out, nil
}

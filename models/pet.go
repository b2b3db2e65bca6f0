package models

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// PetStatus is a pet's availability. The name after @name is its schema in the API document.
type PetStatus string //	@name	PetStatus

// The pet statuses of the spec.
const (
	PetAvailable PetStatus = "available"
	PetPending   PetStatus = "pending"
	PetSold      PetStatus = "sold"
)

// PetStatuses lists every status, in lifecycle order.
var PetStatuses = []PetStatus{PetAvailable, PetPending, PetSold}

// ParsePetStatus checks a status given by a user; field names the parameter in the message.
func ParsePetStatus(field, s string) (PetStatus, error) {
	for _, st := range PetStatuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", &Error{Code: EValidation, Field: field,
		Message: field + ": must be one of available, pending, sold; got " + strconv.Quote(s)}
}

// Pet is an animal of the catalogue, as stored. A deleted pet keeps its row (DeletedAt set), so
// its orders and history stay and staff can restore it; GORM's queries leave it out unless
// Unscoped.
//
// The API's lists of the live pets of a status or a category read a partial index of the live
// pets in order, which PostgreSQL picks even before it has statistics of the table (right after a
// bulk load): with none it takes `deleted_at IS NULL` for one row in two hundred, and with a full
// index it read every pet of the status and sorted them. These indexes also require what their
// lists' condition implies (status IS NOT NULL; the columns are NOT NULL, so they hold the same
// rows): a list without that condition, which sorts by another column, cannot take one for a
// cheap set of live pets to sort, which without statistics it would. Without statistics the lists
// of every live pet still sort them, whatever the indexes: the planner's statistics are gathered
// after a seed and by migrate (see analyzeUnknown).
type Pet struct {
	ID         int64     `gorm:"primaryKey;index:idx_pets_status_id,priority:2;index:idx_pets_live_status_id,priority:2,where:deleted_at IS NULL AND status IS NOT NULL;index:idx_pets_live_category_id,priority:2,where:deleted_at IS NULL AND category_id IS NOT NULL;index:idx_pets_deleted_id,where:deleted_at IS NOT NULL;index:idx_pets_name_id,priority:2;index:idx_pets_updated_at_id,priority:2;index:idx_pets_deleted_name_id,priority:2,where:deleted_at IS NOT NULL;index:idx_pets_deleted_status_id,priority:2,where:deleted_at IS NOT NULL;index:idx_pets_deleted_updated_at_id,priority:2,where:deleted_at IS NOT NULL"`
	Name       string    `gorm:"size:400;not null;index:idx_pets_name_id,priority:1;index:idx_pets_deleted_name_id,priority:1,where:deleted_at IS NOT NULL"`
	CategoryID int64     `gorm:"not null;index:idx_pets_live_category_id,priority:1,where:deleted_at IS NULL AND category_id IS NOT NULL"`
	Category   *Category `gorm:"constraint:OnUpdate:CASCADE,OnDelete:RESTRICT"`
	Status     PetStatus `gorm:"size:16;not null;index:idx_pets_status_id,priority:1;index:idx_pets_live_status_id,priority:1,where:deleted_at IS NULL AND status IS NOT NULL;index:idx_pets_deleted_status_id,priority:1,where:deleted_at IS NOT NULL"`
	CreatedAt  time.Time
	UpdatedAt  time.Time `gorm:"index:idx_pets_updated_at_id,priority:1;index:idx_pets_deleted_updated_at_id,priority:1,where:deleted_at IS NOT NULL"`
	DeletedAt  gorm.DeletedAt
}

// auditFields are what the audit log keeps of a pet.
func (p *Pet) auditFields() Fields {
	return Fields{"name": p.Name, "categoryId": p.CategoryID, "status": p.Status}
}

// NewPet is what a user gives to add a pet. Nil means the field was not given.
type NewPet struct {
	Name       *string
	CategoryID *int64
	Status     *string
}

// Validate checks every field and returns the pet to store, with the name trimmed and the
// status defaulted to available. The category's existence is checked by the store.
func (n NewPet) Validate() (Pet, error) {
	p, err := petFields(n.Name, n.CategoryID, n.Status, true)
	if n.Status == nil {
		p.Status = PetAvailable
	}
	return p, err
}

// PetPatch changes some of a pet's fields (a JSON Merge Patch of them): nil leaves a field as it
// is. Each given field follows the rules of creation; a status follows the rule of a status set
// by hand (see setByHand).
type PetPatch struct {
	Name       *string
	CategoryID *int64
	Status     *string
}

// petFields checks the fields given, with the rules every way of adding or changing a pet
// shares, and returns them in a Pet (zero where not given). With required, name and category
// must be given.
func petFields(name *string, categoryID *int64, status *string, required bool) (Pet, error) {
	var p Pet
	var errs fieldErrors
	switch {
	case name != nil:
		n, err := validName("name", *name)
		errs.add(err)
		p.Name = n
	case required:
		errs.add(FieldError("name", "is required"))
	}
	switch {
	case categoryID != nil && *categoryID < 1:
		errs.add(FieldError("categoryId", "must be a positive integer"))
	case categoryID != nil:
		p.CategoryID = *categoryID
	case required:
		errs.add(FieldError("categoryId", "is required"))
	}
	if status != nil {
		st, err := ParsePetStatus("status", *status)
		if err != nil {
			errs.add(err.(*Error))
		}
		p.Status = st
	}
	return p, errs.err()
}

// categoryError reports a write that named a category that does not exist (the foreign key
// refused it) as the validation error it is.
func categoryError(err error, categoryID int64) error {
	// 23503, foreign_key_violation, as pgx reports it where GORM has not translated it.
	var pgErr *pgconn.PgError
	if errors.Is(err, gorm.ErrForeignKeyViolated) || (errors.As(err, &pgErr) && pgErr.Code == "23503") {
		return FieldError("categoryId", "no category with id %d", categoryID)
	}
	return storeError(err, "")
}

// PetFilter narrows a list of pets. Zero values do not filter.
type PetFilter struct {
	Status     PetStatus
	CategoryID int64
	// IDs keeps only the pets with these ids.
	IDs []int64
	// NameContains matches names case-insensitively (ASCII), for the admin pages' search.
	NameContains string
	// Search is the admin pages' search box: a number (42 or #42) finds the pet with that id,
	// anything else is part of a name, as NameContains matches it.
	Search string
	// Deleted lists the deleted pets instead of the others (staff only).
	Deleted bool
}

// pets lists the pets table. Besides id, a page may be sorted by name, status or the time of the
// last change, each through an index on (column, id), and a partial one of the deleted pets
// (without it SQLite would read the whole catalogue's index looking for the few deleted ones).
var pets = keyset[Pet]{
	table:   "pets",
	columns: "id, name, category_id, status, created_at, updated_at, deleted_at",
	fields: func(p *Pet) []any {
		return []any{&p.ID, &p.Name, &p.CategoryID, &p.Status, &p.CreatedAt, &p.UpdatedAt, &p.DeletedAt}
	},
	sortKeys: map[string]sortKey[Pet]{
		"name":    textKey("name", func(p *Pet) string { return p.Name }),
		"status":  textKey("status", func(p *Pet) string { return string(p.Status) }),
		"updated": timeKey("updated_at", false, func(p *Pet) *time.Time { return &p.UpdatedAt }),
	},
	id: func(p *Pet) int64 { return p.ID },
}

// livePets lists pets that are not deleted: their deleted_at is NULL, so it is not read (the
// item's zero DeletedAt says the same), which spares every row of the API's list a column.
var livePets = func() keyset[Pet] {
	k := pets
	k.columns = "id, name, category_id, status, created_at, updated_at"
	k.fields = func(p *Pet) []any {
		return []any{&p.ID, &p.Name, &p.CategoryID, &p.Status, &p.CreatedAt, &p.UpdatedAt}
	}
	return k
}()

// PetStore reads and changes pets.
type PetStore struct{ db *gorm.DB }

// NewPetStore returns a store on db.
func NewPetStore(db *gorm.DB) *PetStore { return &PetStore{db: db} }

// List returns one page of the pets that match f; it may read a replica (MayReadReplica).
func (s *PetStore) List(ctx context.Context, f PetFilter, page Page) (Paged[Pet], error) {
	where, args := make([]string, 1, 6), make([]any, 0, 6)
	where[0] = "deleted_at IS NULL"
	if f.Deleted {
		where[0] = "deleted_at IS NOT NULL"
	}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.CategoryID != 0 {
		where = append(where, "category_id = ?")
		args = append(args, f.CategoryID)
	}
	if len(f.IDs) > 0 {
		where = append(where, "id IN ?")
		args = append(args, f.IDs)
	}
	if f.NameContains != "" {
		where = append(where, "LOWER(name) LIKE ? ESCAPE '\\'")
		args = append(args, nameLike(f.NameContains))
	}
	// A number is an id alone: with "or a name containing it", no index could answer.
	if id, ok := searchedID(f.Search); ok {
		where, args = append(where, "id = ?"), append(args, id)
	} else if f.Search != "" {
		where, args = append(where, "LOWER(name) LIKE ? ESCAPE '\\'"), append(args, nameLike(f.Search))
	}
	db := laggingRead(ctx, s.db)
	if f.Deleted {
		return pets.list(ctx, db, where, args, page)
	}
	return livePets.list(ctx, db, where, args, page)
}

// Get returns one pet that is not deleted; it may read a replica (MayReadReplica).
func (s *PetStore) Get(ctx context.Context, id int64) (*Pet, error) {
	var p Pet
	err := laggingRead(ctx, s.db).WithContext(ctx).Take(&p, id).Error
	return &p, storeError(err, petNotFound(id))
}

// GetAny returns one pet, deleted or not (for staff).
func (s *PetStore) GetAny(ctx context.Context, id int64) (*Pet, error) {
	var p Pet
	err := s.db.WithContext(ctx).Unscoped().Take(&p, id).Error
	return &p, storeError(err, petNotFound(id))
}

func petNotFound(id int64) string { return "pet " + strconv.FormatInt(id, 10) + " not found" }

// Create validates and stores a new pet; then, when given, runs in the same transaction. A
// category that does not exist is a validation error.
func (s *PetStore) Create(ctx context.Context, n NewPet, then Then[Pet]) (*Pet, error) {
	p, err := n.Validate()
	if err != nil {
		return nil, err
	}
	if then == nil {
		if direct, err := s.createInOneStatement(ctx, &p); direct {
			if err != nil {
				return nil, categoryError(err, p.CategoryID)
			}
			return &p, nil
		}
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Omit("Category").Create(&p).Error; err != nil {
			return err
		}
		if err := recordChange(tx, Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: AuditCreate, After: p.auditFields()}); err != nil {
			return err
		}
		ev, err := petEvent(EventPetCreated, nil, &p)
		if err != nil {
			return err
		}
		if err := recordEvents(tx, ev); err != nil {
			return err
		}
		return then.run(tx, &p)
	})
	if err != nil {
		return nil, categoryError(err, p.CategoryID)
	}
	return &p, nil
}

// createPetAudited writes a pet, its audit entry and its pet.created event in one statement,
// atomic as the transaction of Create is, in one round trip to PostgreSQL instead of six (BEGIN,
// four statements, COMMIT). Anything else a creation must write belongs in this statement too, or
// Create must take its transaction for it: so it writes nothing when an endpoint is subscribed to
// pet.created (the deliveries are enqueued by River in a transaction), and Create then takes its
// transaction. The look-up is in the statement's own snapshot, as it is in the transaction's.
// The event's data is the pet's JSON with the new id put in ($9 is what follows the id).
const createPetAudited = `WITH p AS (
	INSERT INTO pets (name, category_id, status, created_at, updated_at)
	SELECT $1, $2, $3, $4, $4 WHERE NOT EXISTS (
		SELECT 1 FROM webhook_endpoints WHERE deleted_at IS NULL AND disabled_at IS NULL AND (events & $10) <> 0)
	RETURNING id
), a AS (
	INSERT INTO audit_entries (created_at, actor, object_type, object_id, object_name, action, before, after)
	SELECT $4, $5, $6, id, $1, $7, '', $8 FROM p
)
INSERT INTO events (seq, type, object_id, created_at, data)
SELECT pg_current_xact_id()::text::bigint, $11, id, $4, '{"object":{"id":' || id || $9 FROM p RETURNING object_id`

// errSubscribed is createInOneStatement's way of saying that it wrote nothing because an
// endpoint is subscribed to the event.
var errSubscribed = errors.New("models: an endpoint is subscribed to pet.created")

// createInOneStatement stores p and records its creation with createPetAudited, on pgx where
// db allows (onPgx); false when it does not, or when an endpoint is subscribed to pet.created,
// and Create takes its transaction.
func (s *PetStore) createInOneStatement(ctx context.Context, p *Pet) (bool, error) {
	actor := ActorOf(ctx)
	if actor == "" {
		return false, nil // the transaction reports errNoActor
	}
	after, err := fieldsJSON(p.auditFields())
	if err != nil {
		return false, nil // the transaction reports it, from recordChange
	}
	now := s.db.NowFunc()
	created := *p
	created.CreatedAt, created.UpdatedAt = now, now
	object, err := petJSON(&created)
	if err != nil {
		return false, nil // the transaction reports it, from recordEvents
	}
	// petJSON writes the id first: what follows it, and the end of the event's data.
	rest := strings.TrimPrefix(string(object), `{"id":0`) + "}"
	direct, err := onPgx(ctx, s.db, func(ctx context.Context, conn *pgx.Conn) error {
		err := conn.QueryRow(ctx, createPetAudited, p.Name, p.CategoryID, string(p.Status), now, actor, ObjectPet, AuditCreate, after,
			rest, int64(eventBit(EventPetCreated)), string(EventPetCreated)).Scan(&p.ID)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return errSubscribed
		case err == nil:
			p.CreatedAt, p.UpdatedAt = now, now
		}
		return err
	})
	if errors.Is(err, errSubscribed) {
		return false, nil
	}
	return direct, err
}

// nameLike is the LIKE pattern of names that contain s, case-insensitively (ASCII).
func nameLike(s string) string { return "%" + escapeLike(strings.ToLower(s)) + "%" }

// searchedID reads a search for an id: digits, after an optional #.
func searchedID(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	return id, err == nil && id > 0 && !strings.ContainsAny(s, "+-")
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

package models

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Events say what changed in the catalogue and the orders. Each is written by the store method
// that makes the change, inside its transaction (recordEvent), so there is no change without its
// event and no event without its change; the same transaction enqueues the event's deliveries to
// the webhook endpoints subscribed to it (see delivery.go).

// EventType names what an event says happened. The name after @name is its schema in the API
// document.
type EventType string //	@name	EventType

// The event types of docs/design.md, "Events and webhooks". A pet whose status an order changes gives both the order's
// event and pet.updated; a deleted pet that staff restore gives pet.updated.
const (
	EventPetCreated     EventType = "pet.created"
	EventPetUpdated     EventType = "pet.updated"
	EventPetDeleted     EventType = "pet.deleted"
	EventOrderPlaced    EventType = "order.placed"
	EventOrderApproved  EventType = "order.approved"
	EventOrderDelivered EventType = "order.delivered"
	EventOrderCancelled EventType = "order.cancelled"
)

// EventTypes lists every event type; an EventSet has one bit per entry, in this order.
var EventTypes = []EventType{EventPetCreated, EventPetUpdated, EventPetDeleted,
	EventOrderPlaced, EventOrderApproved, EventOrderDelivered, EventOrderCancelled}

// EventRetention is how long events are kept (docs/design.md: 30 days); PurgeEvents deletes older ones.
const EventRetention = 30 * 24 * time.Hour

// ParseEventType checks an event type named by a user; field names the input in the message.
func ParseEventType(field, s string) (EventType, error) {
	for _, t := range EventTypes {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return "", &Error{Code: EValidation, Field: field,
		Message: field + ": must be one of " + strings.Join(names, ", ") + "; got " + strconv.Quote(s)}
}

// IsOrder reports whether events of this type carry an order (and belong to its client).
func (t EventType) IsOrder() bool { return strings.HasPrefix(string(t), "order.") }

// orderEvents are the event type of each order action.
var orderEvents = map[Action]EventType{ActionPlace: EventOrderPlaced, ActionApprove: EventOrderApproved,
	ActionDeliver: EventOrderDelivered, ActionCancel: EventOrderCancelled}

// EventSet is a set of event types, one bit per entry of EventTypes: what an endpoint is
// subscribed to, stored as an integer so a query can test it.
type EventSet uint32

func eventBit(t EventType) EventSet {
	for i, et := range EventTypes {
		if et == t {
			return 1 << i
		}
	}
	return 0
}

// Has reports whether the set holds t.
func (s EventSet) Has(t EventType) bool { b := eventBit(t); return b != 0 && s&b == b }

// List returns the set's types in the order of EventTypes.
func (s EventSet) List() []EventType {
	out := make([]EventType, 0, len(EventTypes))
	for i, t := range EventTypes {
		if s&(1<<i) != 0 {
			out = append(out, t)
		}
	}
	return out
}

// Event is one recorded event, as stored. Its public id (PublicID) is made of Seq and ID, so
// that ids sort as the list does.
type Event struct {
	ID int64 `gorm:"primaryKey;index:idx_events_seq_id,priority:2;index:idx_events_type_seq_id,priority:3;index:idx_events_client_seq_id,priority:3"`
	// Seq orders the events: on PostgreSQL the id of the transaction that recorded the event,
	// on SQLite (one writer at a time, so ids are already in commit order) 0.
	Seq      int64     `gorm:"not null;default:0;index:idx_events_seq_id,priority:1;index:idx_events_type_seq_id,priority:2;index:idx_events_client_seq_id,priority:2"`
	Type     EventType `gorm:"size:32;not null;index:idx_events_type_seq_id,priority:1"`
	ObjectID int64     `gorm:"not null"`
	// ClientID is the client that owns an order event's order; nil for pet events and for the
	// orders of staff and the seed.
	ClientID  *int64    `gorm:"index:idx_events_client_seq_id,priority:1"`
	CreatedAt time.Time `gorm:"not null;index"`
	// Data is the event's data as the API shows it: {"object": ..., "previous": ...}.
	Data string `gorm:"type:text;not null"`
}

// eventIDs writes an event's id in base 32 (digits, then lowercase letters without i, l, o and
// u), whose characters sort in the order of their values, so that ids of the same length sort
// as the numbers they encode.
var eventIDs = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// eventIDPrefix starts every event id.
const eventIDPrefix = "evt_"

// PublicID is the event's id in the API: evt_ and 26 characters, which sort as the events were
// recorded (by Seq, then ID).
func (e *Event) PublicID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(e.Seq)) // #nosec G115 -- ids and transaction ids are never negative
	binary.BigEndian.PutUint64(b[8:], uint64(e.ID))  // #nosec G115 -- ditto
	return eventIDPrefix + eventIDs.EncodeToString(b[:])
}

// ParseEventID reads an id made by PublicID; ok is false for anything else.
func ParseEventID(s string) (seq, id int64, ok bool) {
	rest, found := strings.CutPrefix(s, eventIDPrefix)
	if !found || len(rest) != 26 {
		return 0, 0, false
	}
	b, err := eventIDs.DecodeString(rest)
	if err != nil || len(b) != 16 {
		return 0, 0, false
	}
	// Read back as written; a value past int64's range comes out negative and is refused.
	seq = int64(binary.BigEndian.Uint64(b[:8])) // #nosec G115 -- refused below when it overflowed
	id = int64(binary.BigEndian.Uint64(b[8:]))  // #nosec G115 -- ditto
	return seq, id, seq >= 0 && id > 0 && eventIDs.EncodeToString(b) == rest
}

// petJSON and orderJSON are a pet and an order as the API shows them, as an event carries them.
func petJSON(p *Pet) ([]byte, error) { return EncodeJSON(p.Response()) }

func orderJSON(o *Order) ([]byte, error) { return EncodeJSON(o.Response()) }

// change is one event to record: its type, the object's JSON before (nil for a creation) and
// after, and the client that owns an order.
type change struct {
	typ           EventType
	objectID      int64
	before, after []byte
	clientID      *int64
}

// eventData builds an event's data (EventResponse's): the object after, and the earlier values
// of the fields that differ from before.
func (c change) eventData() (string, error) {
	var r EventResponse
	r.Data.Object = c.after
	if c.before != nil {
		var before, after map[string]json.RawMessage
		if err := json.Unmarshal(c.before, &before); err != nil {
			return "", err
		}
		if err := json.Unmarshal(c.after, &after); err != nil {
			return "", err
		}
		prev := map[string]json.RawMessage{}
		for k, v := range before {
			if !bytes.Equal(v, after[k]) {
				prev[k] = v
			}
		}
		for k := range after {
			if _, ok := before[k]; !ok {
				prev[k] = json.RawMessage("null")
			}
		}
		var err error
		if r.Data.Previous, err = EncodeJSON(prev); err != nil {
			return "", err
		}
	}
	data, err := EncodeJSON(r.Data)
	return string(data), err
}

// petEvent and orderEvent describe the change of a pet or an order from before (nil for a new
// one) to after.
func petEvent(typ EventType, before, after *Pet) (change, error) {
	c := change{typ: typ, objectID: after.ID}
	var err error
	if before != nil {
		if c.before, err = petJSON(before); err != nil {
			return c, err
		}
	}
	c.after, err = petJSON(after)
	return c, err
}

func orderEvent(typ EventType, before, after *Order) (change, error) {
	c := change{typ: typ, objectID: after.ID, clientID: after.ClientID}
	var err error
	if before != nil {
		if c.before, err = orderJSON(before); err != nil {
			return c, err
		}
	}
	c.after, err = orderJSON(after)
	return c, err
}

// publishPetEvent records the event of a pet's change from before (nil for a new one) to after,
// inside tx, the transaction that makes it.
func publishPetEvent(tx *gorm.DB, typ EventType, before, after *Pet) error {
	ev, err := petEvent(typ, before, after)
	if err != nil {
		return err
	}
	return recordEvents(tx, ev)
}

// recordEvents writes the events of a change inside tx, the transaction that makes it, and
// enqueues their deliveries in the same transaction.
func recordEvents(tx *gorm.DB, changes ...change) error {
	if len(changes) == 0 {
		return nil
	}
	// A statement of its own in the same transaction: the caller's may carry clauses (an Omit,
	// the seed's last model) that are not the events'.
	tx = tx.Session(&gorm.Session{NewDB: true})
	events := make([]Event, len(changes))
	now := tx.NowFunc()
	for i, c := range changes {
		data, err := c.eventData()
		if err != nil {
			return err
		}
		events[i] = Event{Type: c.typ, ObjectID: c.objectID, ClientID: c.clientID, CreatedAt: now, Data: data}
	}
	if err := insertEvents(tx, events); err != nil {
		return err
	}
	return enqueueDeliveries(tx, events)
}

// insertEvents writes events and fills in their ids and Seq. On PostgreSQL each carries the id
// of the transaction that writes it (Seq), which is what the list is ordered by: it lists an
// event only once every transaction that could still write an event before it has ended (see
// List). Written out rather than through GORM's Create, like the audit log's entries: one
// statement per batch, which is most of what recording an event costs a request.
func insertEvents(tx *gorm.DB, events []Event) error {
	seq := "0"
	if tx.Dialector.Name() == "postgres" {
		seq = "pg_current_xact_id()::text::bigint"
	}
	// The ids come back in no promised order: each goes to an event of its type and object.
	// Events alike in both (a pet updated twice by the seed) are interchangeable for what the ids
	// are used for, the deliveries.
	type key struct {
		typ EventType
		obj int64
	}
	for start := 0; start < len(events); start += seedBatch {
		batch := events[start:min(start+seedBatch, len(events))]
		var q strings.Builder
		q.WriteString("INSERT INTO events (seq, type, object_id, client_id, created_at, data) VALUES ")
		args := make([]any, 0, 5*len(batch))
		waiting := make(map[key][]int, len(batch))
		for i := range batch {
			e := &batch[i]
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(" + seq + ", ?, ?, ?, ?, ?)")
			args = append(args, e.Type, e.ObjectID, e.ClientID, e.CreatedAt, e.Data)
			k := key{e.Type, e.ObjectID}
			waiting[k] = append(waiting[k], i)
		}
		q.WriteString(" RETURNING id, seq, type, object_id")
		rows, err := tx.Raw(q.String(), args...).Rows()
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, sq int64
			var k key
			if err := rows.Scan(&id, &sq, &k.typ, &k.obj); err != nil {
				_ = rows.Close() // the scan's error is the one to report
				return err
			}
			if w := waiting[k]; len(w) > 0 {
				batch[w[0]].ID, batch[w[0]].Seq = id, sq
				waiting[k] = w[1:]
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// EventFilter narrows the events a client lists. Zero values do not filter.
type EventFilter struct {
	Type EventType
	// Pets lists pet events, and OrdersOf the events of this client's orders (0: none); a key's
	// scopes decide which (pets:read, orders:read).
	Pets     bool
	OrdersOf int64
}

// events lists the events table in the order they were recorded: (seq, id).
var events = keyset[Event]{
	table: "events",
	sortKeys: map[string]sortKey[Event]{
		eventOrderKey: intKey("seq", func(e *Event) int64 { return e.Seq }),
	},
	id: func(e *Event) int64 { return e.ID },
}

// eventOrderKey is the events list's one order: as recorded.
const eventOrderKey = "recorded"

// EventOrder is the sort of every events page (a cursor is made for it).
var EventOrder = Sort{Key: eventOrderKey}

// EventStore reads events; the stores write them.
type EventStore struct{ db *gorm.DB }

// NewEventStore returns a store on db, which must be the primary (events are read as written).
func NewEventStore(db *gorm.DB) *EventStore { return &EventStore{db: db} }

// List returns one page of the events f lets a client see, oldest first. On PostgreSQL it stops
// before the events of transactions that might still be followed by an earlier one: those of
// any transaction at or after the oldest one still running, whose place in the list is not
// final yet; they appear once it ends.
func (s *EventStore) List(ctx context.Context, f EventFilter, page Page) (Paged[Event], error) {
	var where []string
	var args []any
	switch {
	case f.Pets && f.OrdersOf != 0:
		where, args = append(where, "(type LIKE 'pet.%' OR client_id = ?)"), append(args, f.OrdersOf)
	case f.Pets:
		where = append(where, "type LIKE 'pet.%'")
	case f.OrdersOf != 0:
		where, args = append(where, "client_id = ?"), append(args, f.OrdersOf)
	default:
		return Paged[Event]{}, nil
	}
	if f.Type != "" {
		where, args = append(where, "type = ?"), append(args, f.Type)
	}
	if s.db.Dialector.Name() == "postgres" {
		where = append(where, "seq < pg_snapshot_xmin(pg_current_snapshot())::text::bigint")
	}
	page.Sort = EventOrder
	return events.list(ctx, s.db, where, args, page)
}

// Get returns one event by id.
func (s *EventStore) Get(ctx context.Context, id int64) (*Event, error) {
	var e Event
	err := s.db.WithContext(ctx).Take(&e, id).Error
	return &e, storeError(err, "event "+strconv.FormatInt(id, 10)+" not found")
}

// Purge deletes the events older than EventRetention, and the delivery attempts of that age.
func (s *EventStore) Purge(ctx context.Context) (int64, error) {
	db := s.db.WithContext(ctx)
	cut := db.NowFunc().Add(-EventRetention)
	if err := db.Where("at < ?", cut).Delete(&DeliveryAttempt{}).Error; err != nil {
		return 0, storeError(err, "")
	}
	res := db.Where("created_at < ?", cut).Delete(&Event{})
	return res.RowsAffected, storeError(res.Error, "")
}

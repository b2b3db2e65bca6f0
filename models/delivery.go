package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"gorm.io/gorm"
)

// Deliveries run from River, a durable job queue in the service's own database: one job per
// event and subscribed endpoint, enqueued in the transaction that records the event, so a
// change that commits has its deliveries queued and one that rolls back has none. Any instance
// works the queue (app starts the workers); this file only enqueues, and keeps the attempts.

// DeliveryArgs is the job of delivering one event to one endpoint.
type DeliveryArgs struct {
	EventID    int64 `json:"event_id"`
	EndpointID int64 `json:"endpoint_id"`
}

// DeliveryKind is the kind of the delivery jobs in River's table.
const DeliveryKind = "webhook_delivery"

// Kind names the job's kind for River.
func (DeliveryArgs) Kind() string { return DeliveryKind }

// QueueDriver returns the River driver for db's database, on its own pool: database/sql for
// PostgreSQL (the pool GORM uses, so jobs go into GORM's transactions), SQLite's for SQLite.
func QueueDriver(db *gorm.DB) (riverdriver.Driver[*sql.Tx], error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if db.Dialector.Name() == "postgres" {
		return riverdatabasesql.New(sqlDB), nil
	}
	return riversqlite.New(sqlDB), nil
}

// queue is how the stores enqueue jobs inside their transactions: a River client that only
// inserts, kept with the database as a GORM plugin (Open adds it), so every store and command
// on the database has it without being handed it.
type queue struct{ client *river.Client[*sql.Tx] }

const queuePlugin = "petstore:queue"

func (*queue) Name() string                 { return queuePlugin }
func (*queue) Initialize(db *gorm.DB) error { return nil }

// useQueue adds the enqueuing client to db.
func useQueue(db *gorm.DB) error {
	driver, err := QueueDriver(db)
	if err != nil {
		return err
	}
	client, err := river.NewClient(driver, &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	return db.Use(&queue{client: client})
}

// enqueue inserts jobs inside tx, a transaction of db (the jobs commit or roll back with it).
func enqueue(tx *gorm.DB, jobs []river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	q, ok := tx.Config.Plugins[queuePlugin].(*queue)
	if !ok {
		return errors.New("models: the database has no job queue (open it with models.Open)")
	}
	sqlTx, ok := tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return fmt.Errorf("models: jobs are enqueued inside a transaction, not on %T", tx.Statement.ConnPool)
	}
	_, err := q.client.InsertManyTx(tx.Statement.Context, sqlTx, jobs)
	return err
}

// migrateQueue creates or upgrades River's tables and says how many of its migrations it applied.
func migrateQueue(ctx context.Context, driver riverdriver.Driver[*sql.Tx]) (int, error) {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, err
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Versions), nil
}

// enqueueDeliveries enqueues, inside tx, a delivery of each event to every enabled endpoint
// subscribed to its type: any client's for pet events, the order's client's for order events.
// One query finds the endpoints of the whole batch.
func enqueueDeliveries(tx *gorm.DB, events []Event) error {
	var types EventSet
	for i := range events {
		types |= eventBit(events[i].Type)
	}
	type endpoint struct {
		id, clientID int64
		events       EventSet
	}
	var endpoints []endpoint
	// Written out and scanned by hand: every change of a pet or an order asks, most often to find
	// none.
	rows, err := tx.Raw("SELECT id, client_id, events FROM webhook_endpoints WHERE deleted_at IS NULL AND disabled_at IS NULL AND (events & ?) <> 0 ORDER BY id",
		int64(types)).Rows()
	if err != nil {
		return err
	}
	for rows.Next() {
		var ep endpoint
		if err := rows.Scan(&ep.id, &ep.clientID, &ep.events); err != nil {
			_ = rows.Close() // the scan's error is the one to report
			return err
		}
		endpoints = append(endpoints, ep)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil || len(endpoints) == 0 {
		return err
	}
	var jobs []river.InsertManyParams
	for i := range events {
		e := &events[i]
		for _, ep := range endpoints {
			if !ep.events.Has(e.Type) || e.Type.IsOrder() && (e.ClientID == nil || *e.ClientID != ep.clientID) {
				continue
			}
			jobs = append(jobs, river.InsertManyParams{Args: DeliveryArgs{EventID: e.ID, EndpointID: ep.id}})
		}
	}
	return enqueue(tx, jobs)
}

// Resend enqueues one more delivery of an event to an endpoint, as staff ask in the admin pages.
func (s *WebhookStore) Resend(ctx context.Context, eventID, endpointID int64) error {
	return storeError(s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var e WebhookEndpoint
		if err := tx.Take(&e, endpointID).Error; err != nil {
			return storeError(err, endpointNotFound(endpointID))
		}
		if e.Disabled() {
			return Errorf(EConflict, "webhook endpoint %d is disabled; enable it first", endpointID)
		}
		var n int64
		if err := tx.Model(&Event{}).Where("id = ?", eventID).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			return &Error{Code: ENotFound, Message: "event " + strconv.FormatInt(eventID, 10) + " not found (events are kept 30 days)"}
		}
		return enqueue(tx, []river.InsertManyParams{{Args: DeliveryArgs{EventID: eventID, EndpointID: endpointID}}})
	}), "")
}

// The outcomes of a delivery attempt.
const (
	OutcomeDelivered = "delivered" // answered 2xx
	OutcomeRetrying  = "retrying"  // failed; another attempt follows
	OutcomeFailed    = "failed"    // failed, and it was the last attempt
	// OutcomeSkipped: not sent, because no live key of the endpoint's client may read the event
	// any more (see ClientMayRead); neither a success nor a failure of the endpoint.
	OutcomeSkipped = "skipped"
)

// ClientMayRead reports whether a live key of a client (neither revoked nor expired) has scope.
// A subscription is checked against the scopes of the key that makes it; the client's keys may
// lose them later (a scope taken away, a key revoked), so each delivery asks again before it is
// sent: no key of the client reads what its endpoints would receive.
func (s *WebhookStore) ClientMayRead(ctx context.Context, clientID int64, scope Scope) (bool, error) {
	var keys []APIKey
	err := s.db.WithContext(ctx).Select("scopes").
		Where("client_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)", clientID, s.opt.Now().UTC()).
		Find(&keys).Error
	if err != nil {
		return false, storeError(err, "")
	}
	for _, k := range keys {
		if k.Scopes.Has(scope) {
			return true, nil
		}
	}
	return false, nil
}

// DeliveryAttempt is one attempt to deliver an event to an endpoint, kept for the admin pages
// as long as events are.
type DeliveryAttempt struct {
	ID         int64     `gorm:"primaryKey;index:idx_delivery_attempts_endpoint_id_id,priority:2"`
	EndpointID int64     `gorm:"not null;index:idx_delivery_attempts_endpoint_id_id,priority:1"`
	EventID    int64     `gorm:"not null"`
	EventType  EventType `gorm:"size:32;not null"`
	// Attempt counts the attempts of one delivery job, from 1.
	Attempt    int       `gorm:"not null"`
	At         time.Time `gorm:"not null;index"`
	StatusCode int       `gorm:"not null;default:0"` // 0: no answer
	Duration   time.Duration
	Error      string `gorm:"size:1000;not null;default:''"`
	Outcome    string `gorm:"size:16;not null"`
	// TimedOut says the attempt got no answer in time (see notePause); not kept.
	TimedOut bool `gorm:"-"`
}

// maxAttemptError bounds the error text kept of an attempt.
const maxAttemptError = 1000

// Delivery is what the deliveries read for one job: the event and the endpoint (deleted ones
// too). Event is nil when it was purged, Endpoint when it never existed.
func (s *WebhookStore) Delivery(ctx context.Context, a DeliveryArgs) (*Event, *WebhookEndpoint, error) {
	db := s.db.WithContext(ctx)
	var evs []Event
	if err := db.Where("id = ?", a.EventID).Limit(1).Find(&evs).Error; err != nil {
		return nil, nil, storeError(err, "")
	}
	var eps []WebhookEndpoint
	if err := db.Unscoped().Where("id = ?", a.EndpointID).Limit(1).Find(&eps).Error; err != nil {
		return nil, nil, storeError(err, "")
	}
	var ev *Event
	var ep *WebhookEndpoint
	if len(evs) == 1 {
		ev = &evs[0]
	}
	if len(eps) == 1 {
		ep = &eps[0]
	}
	return ev, ep, nil
}

// RecordAttempt keeps an attempt and what it says about its endpoint: a success forgets earlier
// failures; a failure starts the endpoint's failing period, and one that has lasted
// FailingEndpointDisabledAfter disables it (recorded in the audit log as the deliveries'). An
// attempt that timed out, the PauseAfterTimeouts-th in a row or later, pauses the endpoint for the
// store's TimeoutPause, and says so in its error. It reports whether it disabled the endpoint.
func (s *WebhookStore) RecordAttempt(ctx context.Context, a DeliveryAttempt) (disabled bool, err error) {
	a.At = a.At.UTC()
	err = s.db.WithContext(WithActor(ctx, ActorDeliveries)).Transaction(func(tx *gorm.DB) error {
		var e WebhookEndpoint
		if err := tx.Unscoped().Clauses(forUpdate).Take(&e, a.EndpointID).Error; err != nil {
			return err
		}
		if a.Outcome != OutcomeSkipped {
			if err := s.notePause(tx, &e, &a); err != nil {
				return err
			}
		}
		if len(a.Error) > maxAttemptError {
			a.Error = a.Error[:maxAttemptError]
		}
		if err := tx.Create(&a).Error; err != nil {
			return err
		}
		switch {
		case a.Outcome == OutcomeSkipped:
			return nil
		case a.Outcome == OutcomeDelivered && e.FailingSince != nil:
			return tx.Model(&e).Update("failing_since", nil).Error
		case a.Outcome == OutcomeDelivered:
			return nil
		case e.FailingSince == nil:
			return tx.Model(&e).Update("failing_since", a.At).Error
		case e.Disabled() || e.DeletedAt.Valid || a.At.Sub(*e.FailingSince) < FailingEndpointDisabledAfter:
			return nil
		}
		before := e.auditFields()
		at := a.At
		e.DisabledAt, e.DisabledReason = &at, DisabledByFailing
		if err := tx.Model(&e).Updates(map[string]any{"disabled_at": at, "disabled_reason": DisabledByFailing}).Error; err != nil {
			return err
		}
		disabled = true
		return recordChange(tx, Change{Object: ObjectWebhookEndpoint, ID: e.ID, Name: e.auditName(), Action: AuditDisable, Before: before, After: e.auditFields()})
	})
	return disabled, storeError(err, "")
}

// notePause counts an attempt's timeout against its endpoint, e, and pauses it after
// PauseAfterTimeouts in a row; any other outcome ends the count and the pause.
func (s *WebhookStore) notePause(tx *gorm.DB, e *WebhookEndpoint, a *DeliveryAttempt) error {
	timeouts, paused := 0, (*time.Time)(nil)
	if a.TimedOut {
		timeouts = e.Timeouts + 1
		if timeouts >= PauseAfterTimeouts {
			until := a.At.Add(s.opt.TimeoutPause)
			paused = &until
			a.Error += fmt.Sprintf("; %d attempts in a row timed out: deliveries to the endpoint wait until %s", timeouts, until.Format(time.RFC3339))
		}
	}
	if timeouts == e.Timeouts && paused == nil && e.PausedUntil == nil {
		return nil
	}
	e.Timeouts, e.PausedUntil = timeouts, paused
	return tx.Model(e).Updates(map[string]any{"timeouts": timeouts, "paused_until": paused}).Error
}

// Attempts returns an endpoint's most recent delivery attempts, newest first, at most limit.
func (s *WebhookStore) Attempts(ctx context.Context, endpointID int64, limit int) ([]DeliveryAttempt, error) {
	var out []DeliveryAttempt
	err := s.db.WithContext(ctx).Where("endpoint_id = ?", endpointID).Order("id DESC").Limit(limit).Find(&out).Error
	return out, storeError(err, "")
}

// QueueStats describe the deliveries not yet done, for the metrics: how many, and when the oldest
// was enqueued (zero when none).
type QueueStats struct {
	Pending int64
	Oldest  time.Time
}

// pendingStates are the states of a River job that has not finished.
var pendingStates = []string{"available", "pending", "retryable", "running", "scheduled"}

// Queue returns the stats of the deliveries queued.
func (s *WebhookStore) Queue(ctx context.Context) (QueueStats, error) {
	var st QueueStats
	db := s.db.WithContext(ctx)
	if err := db.Raw("SELECT COUNT(*) FROM river_job WHERE kind = ? AND state IN ?", DeliveryKind, pendingStates).Scan(&st.Pending).Error; err != nil {
		return st, storeError(err, "")
	}
	if st.Pending == 0 {
		return st, nil
	}
	var oldest sql.NullTime
	err := db.Raw("SELECT created_at FROM river_job WHERE kind = ? AND state IN ? ORDER BY id LIMIT 1", DeliveryKind, pendingStates).Row().Scan(&oldest)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	st.Oldest = oldest.Time
	return st, storeError(err, "")
}

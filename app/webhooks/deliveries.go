package webhooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/petstore/petstore/models"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// DefaultRetryDelays is the decided schedule: the waits after each failed attempt of a delivery;
// after the last, the delivery has failed.
var DefaultRetryDelays = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// JobTimeout bounds one attempt: the POST's 10 seconds and the database work around it.
const JobTimeout = 20 * time.Second

// RetryPolicy schedules the next attempt of a failed delivery after Delays (one per failed
// attempt, with ±10% jitter, so endpoints that failed together are not retried together). An
// attempt cut short by a crash is retried at once: River rescues it only once it has been
// running longer than any attempt can (JobTimeout), which a failed attempt never has.
type RetryPolicy struct{ Delays []time.Duration }

// NextRetry implements river.ClientRetryPolicy.
func (p RetryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	now := time.Now()
	if job.AttemptedAt != nil && now.Sub(*job.AttemptedAt) > JobTimeout {
		return now
	}
	d := p.Delays[min(max(job.Attempt, 1), len(p.Delays))-1]
	jitter := time.Duration((rand.Float64()*0.2 - 0.1) * float64(d)) // #nosec G404 -- spreading retries needs no secret randomness
	return now.Add(d + jitter)
}

// Worker delivers one event to one endpoint per job: it signs the event and POSTs it, keeps the
// attempt, and tells River to retry a failure until the schedule runs out.
type Worker struct {
	river.WorkerDefaults[models.DeliveryArgs]
	Store  *models.WebhookStore
	Client *Client
	// PerEndpoint and PerClient bound the attempts this instance has in flight to one endpoint
	// and to all the endpoints of one client; a delivery over either waits (is snoozed) and
	// takes its turn later, so a client whose receivers are slow holds only its share of the
	// workers. Zero: DefaultPerEndpoint, DefaultPerClient.
	PerEndpoint, PerClient int
	// Now is the service's clock: the webhook-timestamp, and which secrets sign.
	Now    func() time.Time
	Delays []time.Duration
	Log    *slog.Logger
	// Outcome, when set, hears the outcome of every attempt (models.OutcomeDelivered, ...).
	Outcome func(string)

	inFlight inFlight
}

// The caps of an instance's attempts in flight, out of its 20 workers: one client's receivers,
// however slow, leave 12 of them to the other clients.
const (
	DefaultPerEndpoint = 4
	DefaultPerClient   = 8
)

// busySnooze is how long a delivery over a cap waits before it asks again (±20%, so the waiting
// ones do not come back together).
const busySnooze = time.Second

// slotWait is how long a delivery over a cap waits in its worker for an attempt to end before it
// snoozes. A receiver that answers at once frees a slot within milliseconds: snoozing at once
// sent most of a busy endpoint's deliveries round River's schedule for a second, and one endpoint
// got about 90 deliveries a second instead of 500 (BenchmarkDeliveries). A slow receiver holds a
// waiting worker this long, no longer.
const slotWait = 250 * time.Millisecond

// inFlight counts the attempts under way by endpoint and by client.
type inFlight struct {
	mu               sync.Mutex
	endpoint, client map[int64]int
	// freed is closed, and replaced, when an attempt ends.
	freed chan struct{}
}

// acquire counts an attempt to endpoint ep of client, waiting up to wait (or until ctx ends) for
// both to be under their caps; false when they are not.
func (f *inFlight) acquire(ctx context.Context, ep, client int64, perEndpoint, perClient int, wait time.Duration) bool {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		freed, ok := f.tryAcquire(ep, client, perEndpoint, perClient)
		if ok {
			return true
		}
		select {
		case <-freed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// tryAcquire counts the attempt unless either is at its cap; then it returns the channel that
// the next attempt to end closes.
func (f *inFlight) tryAcquire(ep, client int64, perEndpoint, perClient int) (<-chan struct{}, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.endpoint == nil {
		f.endpoint, f.client, f.freed = map[int64]int{}, map[int64]int{}, make(chan struct{})
	}
	if f.endpoint[ep] >= perEndpoint || f.client[client] >= perClient {
		return f.freed, false
	}
	f.endpoint[ep]++
	f.client[client]++
	return nil, true
}

func (f *inFlight) release(ep, client int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	decrement(f.endpoint, ep)
	decrement(f.client, client)
	close(f.freed)
	f.freed = make(chan struct{})
}

func decrement(m map[int64]int, k int64) {
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}

// jittered spreads d by ±20%.
func jittered(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d)) // #nosec G404 -- spreading waits needs no secret randomness
}

// errNothingToDeliver ends a job whose event was purged or whose endpoint is deleted or disabled.
var errNothingToDeliver = errors.New("nothing to deliver: the event is gone, or the endpoint is deleted or disabled")

// errNoScope ends a job whose event no key of the endpoint's client may read any more.
var errNoScope = errors.New("not sent: no API key of the client may read the event any more")

// record keeps an attempt, even when the job's context has ended: what happened has happened.
func (w *Worker) record(ctx context.Context, rec models.DeliveryAttempt) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if disabled, err := w.Store.RecordAttempt(ctx, rec); err != nil {
		w.Log.Error("keeping a delivery attempt", "endpoint", rec.EndpointID, "event", rec.EventID, "error", err.Error())
	} else if disabled {
		w.Log.Warn("webhook endpoint disabled after failing for 5 days", "endpoint", rec.EndpointID)
	}
}

// Work implements river.Worker.
func (w *Worker) Work(ctx context.Context, job *river.Job[models.DeliveryArgs]) error {
	ev, ep, err := w.Store.Delivery(ctx, job.Args)
	if err != nil {
		return err
	}
	if ev == nil || ep == nil || ep.DeletedAt.Valid || ep.Disabled() {
		return river.JobCancel(errNothingToDeliver)
	}
	now := w.Now()
	scope := models.ReadScope(ev.Type)
	if may, err := w.Store.ClientMayRead(ctx, ep.ClientID, scope); err != nil {
		return err
	} else if !may {
		w.record(ctx, models.DeliveryAttempt{EndpointID: ep.ID, EventID: ev.ID, EventType: ev.Type, Attempt: job.Attempt, At: now,
			Outcome: models.OutcomeSkipped, Error: "not sent: no API key of the client has the scope " + string(scope) + " any more"})
		return river.JobCancel(errNoScope)
	}
	if ep.Paused(now) {
		// The wait is no attempt: River does not count a snooze against the retries.
		return river.JobSnooze(ep.PausedUntil.Sub(now) + jittered(busySnooze))
	}
	if !w.inFlight.acquire(ctx, ep.ID, ep.ClientID, cmp.Or(w.PerEndpoint, DefaultPerEndpoint), cmp.Or(w.PerClient, DefaultPerClient), slotWait) {
		return river.JobSnooze(jittered(busySnooze))
	}
	defer w.inFlight.release(ep.ID, ep.ClientID)
	body, err := ev.Payload()
	if err != nil {
		return river.JobCancel(err)
	}
	var a Attempt
	if secrets, err := w.Store.SigningSecrets(ctx, ep, now); err != nil {
		// Nothing is sent unsigned or signed with anything else; the attempt says why, and a key
		// configured again before the last retry lets the delivery go out.
		w.Log.Error("opening a webhook endpoint's signing secret", "endpoint", ep.ID, "error", err.Error())
		a.Err = fmt.Errorf("not sent: the endpoint's signing secret could not be decrypted: %w", err)
	} else {
		a = w.Client.Deliver(ctx, Delivery{URL: ep.URL, MsgID: ev.PublicID(), Timestamp: now, Body: body, Secrets: secrets})
	}
	last := job.Attempt > len(w.Delays)
	rec := models.DeliveryAttempt{EndpointID: ep.ID, EventID: ev.ID, EventType: ev.Type, Attempt: job.Attempt, At: now,
		StatusCode: a.StatusCode, Duration: a.Duration, Outcome: models.OutcomeDelivered, TimedOut: a.TimedOut}
	switch {
	case a.Err != nil && last:
		rec.Outcome, rec.Error = models.OutcomeFailed, a.Err.Error()
	case a.Err != nil:
		rec.Outcome, rec.Error = models.OutcomeRetrying, a.Err.Error()
	}
	w.record(ctx, rec)
	if w.Outcome != nil {
		w.Outcome(rec.Outcome)
	}
	switch {
	case a.Err == nil:
		return nil
	case last:
		return river.JobCancel(a.Err)
	}
	return a.Err
}

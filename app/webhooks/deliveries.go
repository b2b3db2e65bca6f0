package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
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
	// Now is the service's clock: the webhook-timestamp, and which secrets sign.
	Now    func() time.Time
	Delays []time.Duration
	Log    *slog.Logger
	// Outcome, when set, hears the outcome of every attempt (models.OutcomeDelivered, ...).
	Outcome func(string)
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
	body, err := ev.Payload()
	if err != nil {
		return river.JobCancel(err)
	}
	a := w.Client.Deliver(ctx, Delivery{URL: ep.URL, MsgID: ev.PublicID(), Timestamp: now, Body: body, Secrets: ep.Secrets(now)})
	last := job.Attempt > len(w.Delays)
	rec := models.DeliveryAttempt{EndpointID: ep.ID, EventID: ev.ID, EventType: ev.Type, Attempt: job.Attempt, At: now,
		StatusCode: a.StatusCode, Duration: a.Duration, Outcome: models.OutcomeDelivered}
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

package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/app/webhooks"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
	"github.com/riverqueue/river"
	"gorm.io/gorm"
)

// DeliveryOptions change how StartDeliveries works the queue; the zero value is the service's.
type DeliveryOptions struct {
	// Now is the service's clock (webhook-timestamp, secret rotation, failing endpoints).
	Now func() time.Time
	// Metrics counts attempts and reports the queue; nil counts nothing.
	Metrics *metrics.Metrics
	// Poll is how often an idle worker looks for deliveries (default deliveryPoll).
	Poll time.Duration
	// AttemptTimeout bounds an attempt (default 10 s, the decided one) and TimeoutPause is how
	// long an endpoint that keeps timing out is paused (default models.DefaultTimeoutPause):
	// tests shorten both.
	AttemptTimeout, TimeoutPause time.Duration
	// Media is the photos' store, whose orphans the queue sweeps (SweepOrphans); nil opens the
	// configured one.
	Media media.Store
}

// deliveryPoll is how long a new delivery may wait before an idle instance picks it up: River
// polls the queue instead of listening, the same way on both databases.
const deliveryPoll = 500 * time.Millisecond

// deliveryWorkers is how many deliveries one instance attempts at once; most of an attempt is
// waiting for the receiver.
const deliveryWorkers = 20

// deliveryCooldown is the least time between two fetches of work while the queue is busy: River
// fetches at most deliveryWorkers jobs each time, so it bounds an instance's deliveries per second
// (River's default, 100 ms, allowed 200; BenchmarkDeliveries measures what this allows).
const deliveryCooldown = 20 * time.Millisecond

// rescueAfter is when River takes a delivery still marked running as cut short by a crash and
// retries it (RetryPolicy retries it at once). With River's rescuer running every 30 s and its
// leader elected within about 15 s of a crash, such a delivery is retried within a minute of an
// instance running again. It must exceed webhooks.JobTimeout, the longest an attempt runs.
const rescueAfter = 25 * time.Second

// newWebhookClient is the client deliveries are sent with and endpoint URLs checked by.
func newWebhookClient(cfg Config) *webhooks.Client {
	return webhooks.NewClient(webhooks.ClientOptions{AllowHTTP: cfg.WebhookAllowHTTP, AllowPrivate: cfg.WebhookAllowPrivate})
}

// newWebhookStore keeps webhook endpoints, checking their URLs with client.
func newWebhookStore(cfg Config, db *gorm.DB, client *webhooks.Client, now func() time.Time) *models.WebhookStore {
	return models.NewWebhookStore(db, models.WebhookOptions{Check: client.CheckURL, NewSecret: webhooks.NewSecret, Keys: cfg.WebhookSecretKeys, Now: now})
}

// StartDeliveries works the webhook delivery queue on db, beside any other instance doing the
// same, until stop is called; stop lets the attempts under way finish within the shutdown
// timeout (one cut short then is made again by whichever instance runs next).
func StartDeliveries(ctx context.Context, cfg Config, log *slog.Logger, db *gorm.DB, o DeliveryOptions) (stop func(), err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll == 0 {
		o.Poll = deliveryPoll
	}
	driver, err := models.QueueDriver(db)
	if err != nil {
		return nil, err
	}
	client := webhooks.NewClient(webhooks.ClientOptions{AllowHTTP: cfg.WebhookAllowHTTP, AllowPrivate: cfg.WebhookAllowPrivate, Timeout: o.AttemptTimeout})
	store := models.NewWebhookStore(db, models.WebhookOptions{Check: client.CheckURL, NewSecret: webhooks.NewSecret, Keys: cfg.WebhookSecretKeys, Now: o.Now, TimeoutPause: o.TimeoutPause})
	worker := &webhooks.Worker{Store: store, Client: client, Now: o.Now, Delays: cfg.WebhookRetryDelays, Log: log}
	worker.Outcome = o.Metrics.WatchDeliveries(func(ctx context.Context) (int64, time.Time, error) {
		st, err := store.Queue(ctx)
		return st.Pending, st.Oldest, err
	}, time.Now)
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, worker); err != nil {
		return nil, err
	}
	if o.Media == nil {
		o.Media = OpenMedia(cfg, log)
	}
	sweeper := &orphanWorker{store: o.Media, photos: models.NewPhotoStore(db), now: o.Now, log: log}
	if err := river.AddWorkerSafely(workers, sweeper); err != nil {
		return nil, err
	}
	rc, err := river.NewClient(driver, &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: deliveryWorkers}},
		Workers:              workers,
		PeriodicJobs:         orphanJobs(),
		RetryPolicy:          webhooks.RetryPolicy{Delays: cfg.WebhookRetryDelays},
		JobTimeout:           webhooks.JobTimeout,
		RescueStuckJobsAfter: rescueAfter,
		PollOnly:             true,
		FetchPollInterval:    o.Poll,
		FetchCooldown:        min(o.Poll, deliveryCooldown),
		// River's own lines (a job errored, retrying) say less than the attempts kept.
		Logger: slog.New(atLeast{log.Handler(), slog.LevelWarn}),
	})
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	if err := rc.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if err := rc.Stop(ctx); err != nil {
			log.Warn("webhook deliveries did not stop in time; River retries the attempts cut short", "error", err.Error())
		}
	}, nil
}

// atLeast passes on the records of level and above.
type atLeast struct {
	slog.Handler
	level slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(as), h.level}
}
func (h atLeast) WithGroup(n string) slog.Handler { return atLeast{h.Handler.WithGroup(n), h.level} }

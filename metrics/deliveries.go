package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DeliveryOutcomes are the outcomes of a webhook delivery attempt the counter has from the start:
// delivered (2xx), retrying (failed, another attempt follows), failed (the last attempt failed).
var DeliveryOutcomes = []string{"delivered", "retrying", "failed"}

// QueueStats says how many deliveries wait in the queue and when the oldest was enqueued (zero
// when none).
type QueueStats func(ctx context.Context) (pending int64, oldest time.Time, err error)

// WatchDeliveries counts webhook delivery attempts by outcome and reports the queue, read
// through stats at each scrape: its depth and the age of its oldest pending delivery. It returns
// the function that counts one attempt.
func (m *Metrics) WatchDeliveries(stats QueueStats, now func() time.Time) func(outcome string) {
	if m == nil {
		return func(string) {}
	}
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "petstore_webhook_deliveries_total",
		Help: "Webhook delivery attempts, by outcome: delivered (answered 2xx), retrying (failed; another attempt follows) or failed (the last attempt failed).",
	}, []string{"outcome"})
	for _, o := range DeliveryOutcomes {
		attempts.WithLabelValues(o)
	}
	m.registry.MustRegister(attempts, &queueCollector{stats: stats, now: now})
	return func(outcome string) { attempts.WithLabelValues(outcome).Inc() }
}

var (
	queueDepth = prometheus.NewDesc("petstore_webhook_queue_depth",
		"Webhook deliveries not done yet: waiting, scheduled for a retry or being attempted.", nil, nil)
	queueOldest = prometheus.NewDesc("petstore_webhook_oldest_pending_seconds",
		"Age of the oldest webhook delivery not done yet (0 when none).", nil, nil)
)

// queueCollector reads the queue's depth from the database at each scrape, within a second.
type queueCollector struct {
	stats QueueStats
	now   func() time.Time
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepth; ch <- queueOldest }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	pending, oldest, err := c.stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepth, err)
		return
	}
	age := 0.0
	if !oldest.IsZero() {
		age = max(0, c.now().Sub(oldest).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(queueOldest, prometheus.GaugeValue, age)
}

package apptest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Receiver is a webhook receiver on a loopback port of its own: it keeps every delivery it is
// sent and answers as the test says (200 unless told otherwise).
type Receiver struct {
	URL string
	mu  sync.Mutex
	got []Delivery
	// seen counts the deliveries of each webhook-id so far.
	seen   map[string]int
	answer func(id string, n int) int
	more   chan struct{}
}

// Delivery is one POST a receiver was sent.
type Delivery struct {
	Header http.Header
	Body   []byte
	At     time.Time
	// Status is what the receiver answered.
	Status int
}

// ID is the delivery's webhook-id.
func (d Delivery) ID() string { return d.Header.Get("webhook-id") }

// NewReceiver starts a receiver, stopped when the test ends.
func NewReceiver(tb testing.TB) *Receiver {
	tb.Helper()
	r := &Receiver{seen: map[string]int{}, more: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	tb.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Answer makes the receiver answer the n-th delivery (from 0) of each webhook-id with the
// status f returns.
func (r *Receiver) Answer(f func(id string, n int) int) {
	r.mu.Lock()
	r.answer = f
	r.mu.Unlock()
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	id := req.Header.Get("webhook-id")
	status := http.StatusOK
	if r.answer != nil {
		status = r.answer(id, r.seen[id])
	}
	r.seen[id]++
	r.got = append(r.got, Delivery{Header: req.Header.Clone(), Body: body, At: time.Now(), Status: status})
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
	w.WriteHeader(status)
}

// Deliveries returns what the receiver was sent so far, in order.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Wait waits until the receiver has been sent at least n deliveries and returns them all;
// it fails the test when they do not arrive within limit.
func (r *Receiver) Wait(tb testing.TB, n int, limit time.Duration) []Delivery {
	tb.Helper()
	deadline := time.After(limit)
	for {
		if got := r.Deliveries(); len(got) >= n {
			return got
		}
		select {
		case <-r.more:
		case <-deadline:
			tb.Fatalf("%d webhook deliveries after %s, want %d: %v", len(r.Deliveries()), limit, n, r.Deliveries())
		}
	}
}

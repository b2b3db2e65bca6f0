package webhooks

import (
	"context"
	"testing"
	"time"
)

// A delivery over its endpoint's cap takes the slot an attempt frees while it waits, and gives
// up (to be snoozed) when none is freed in time or its job is cancelled.
func TestADeliveryOverTheCapWaitsForAFreedSlot(t *testing.T) {
	var f inFlight
	ctx := context.Background()
	for range 4 {
		if !f.acquire(ctx, 1, 10, 4, 8, 0) {
			t.Fatal("an endpoint under its cap of 4 was refused")
		}
	}
	if f.acquire(ctx, 1, 10, 4, 8, 10*time.Millisecond) {
		t.Fatal("a fifth attempt to an endpoint with 4 in flight was let through")
	}
	if !f.acquire(ctx, 2, 10, 4, 8, 0) {
		t.Fatal("another endpoint of the same client, under the client's cap of 8, was refused")
	}

	// The slot is freed once the attempt below is (most likely) waiting: called after the
	// release, it would find the slot free anyway, so the test cannot fail by being slow.
	got := make(chan bool)
	time.AfterFunc(20*time.Millisecond, func() { f.release(1, 10) })
	go func() { got <- f.acquire(ctx, 1, 10, 4, 8, time.Minute) }()
	if !<-got {
		t.Fatal("a waiting attempt did not take the slot an ended attempt freed")
	}

	cancelled, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	go func() { got <- f.acquire(cancelled, 1, 10, 4, 8, time.Minute) }()
	select {
	case ok := <-got:
		if ok {
			t.Fatal("a waiting attempt whose job was cancelled took a slot")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a waiting attempt went on waiting after its job was cancelled")
	}
}

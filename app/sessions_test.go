package app

import (
	"fmt"
	"testing"
	"time"
)

func TestMemorySessionStorageStaysWithinItsBoundDroppingWhatExpiresSoonest(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	m := newMemoryStorage(3, func() time.Time { return now })
	set := func(key string, exp time.Duration) {
		t.Helper()
		if err := m.Set(key, []byte(key), exp); err != nil {
			t.Fatal(err)
		}
	}
	has := func(key string) bool {
		t.Helper()
		v, err := m.Get(key)
		if err != nil {
			t.Fatal(err)
		}
		return v != nil
	}
	set("session-a", 8*time.Hour)
	set("throttle", time.Hour)
	set("session-b", 8*time.Hour)
	// Full: the entry that expires soonest (the throttle count) makes room.
	set("session-c", 8*time.Hour)
	if has("throttle") || !has("session-a") || !has("session-b") || !has("session-c") {
		t.Fatal("a full storage dropped something other than the entry that expires soonest")
	}
	// Replacing an entry takes no room.
	set("session-a", 8*time.Hour)
	if !has("session-b") || len(m.entries) != 3 {
		t.Fatalf("replacing an entry dropped another: %d entries", len(m.entries))
	}
	// Expired entries go first, all of them.
	now = now.Add(8*time.Hour + time.Second)
	set("session-d", 8*time.Hour)
	if len(m.entries) != 1 || !has("session-d") || has("session-a") {
		t.Fatalf("after expiry: %d entries, want only the new one", len(m.entries))
	}
	// A visitor looping on the login page, or guessing from many addresses, cannot grow it.
	for i := range 10_000 {
		set(fmt.Sprintf("login-failures:ip:10.0.%d.%d", i/256, i%256), time.Hour)
	}
	if len(m.entries) != 3 {
		t.Fatalf("%d entries after 10,000 sets, want the bound of 3", len(m.entries))
	}
	// Values are copies: changing what was stored or read changes nothing inside.
	val := []byte("abc")
	if err := m.Set("copy", val, 0); err != nil {
		t.Fatal(err)
	}
	val[0] = 'x'
	if got, _ := m.Get("copy"); string(got) != "abc" {
		t.Fatalf("stored value changed to %q", got)
	}
}

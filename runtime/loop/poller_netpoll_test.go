//go:build linux && cogen_netpoll

package loop

import (
	"runtime"
	"testing"
	"time"
)

// pollerFDs is how many descriptors New opens: none for the portable poller.
const pollerFDs = 0

// TestNetpollWatchersEnd: every registration runs two watcher goroutines
// and holds one duplicate descriptor; Unregister and Close end both, and a
// number registered anew after Unregister gets only its new watch's edges.
func TestNetpollWatchersEnd(t *testing.T) {
	g0, fds0 := runtime.NumGoroutine(), openFDs(t)
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var rs, ws []int
	for range n {
		r, w := pipe(t)
		register(t, l, r)
		rs, ws = append(rs, r), append(ws, w)
	}
	if got := runtime.NumGoroutine() - g0; got < 2*n {
		t.Fatalf("%d goroutines for %d registrations", got, n)
	}
	if got := openFDs(t) - fds0; got != 3*n { // pipe ends plus one duplicate per registration
		t.Fatalf("%d descriptors open, want %d", got, 3*n)
	}
	for _, r := range rs[:n/2] {
		if err := l.Lookup(r).Unregister(); err != nil {
			t.Fatal(err)
		}
	}
	checkGoroutines(t, g0+n)
	// Re-registered: an edge from the old watch must not be delivered twice
	// or to the wrong registration; the new one reports fresh edges.
	f := register(t, l, rs[0])
	write(t, ws[0], "x")
	awaitSeen(t, l, f, EventIn)
	fw := newFDWaiter(l)
	if err := f.WaitRead(&fw.w, time.Second); err != nil {
		t.Fatal(err)
	}
	runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
	if fw.reason != Ready || fw.events&EventIn == 0 {
		t.Fatalf("re-registered fd woke with %v %#x", fw.reason, fw.events)
	}
	l.Close()
	checkGoroutines(t, g0)
	if got := openFDs(t) - fds0; got != 2*n {
		t.Fatalf("%d descriptors open after Close, want the %d pipe ends", got, 2*n)
	}
}

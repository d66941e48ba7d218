// Package loop is the one event loop that both cogen coroutine models run on:
// a single-goroutine reactor built from an edge-triggered poller, a
// hierarchical timing wheel, a FIFO ready queue and a thread-safe submit
// queue.
//
// It can be thought of as libco's co_eventloop with cocoyaxi's IO table: every
// file descriptor is registered once, edge-triggered, for its whole life, and
// each registration holds one read waiter and one write waiter.
//
// # Waiters
//
// A [Waiter] is one suspended computation as the loop sees it. It is embedded
// in whatever waits (a stackful coroutine, a stackless task), so waiting
// allocates nothing. A waiter is armed on at most one source at a time plus an
// optional deadline; whichever fires first wakes it with a [Reason], disarms
// the rest and puts the waiter on the ready queue. The loop then calls its
// [Runner]: a stackful coroutine resumes, a stackless frame steps. Waking a
// waiter that is not armed (already queued, finished or cancelled) is a no-op.
//
// # One iteration
//
//	wait for readiness   (timeout: 0 if work is ready, else until the next timer, else forever)
//	wake fd waiters      (an edge that nobody waits for is remembered on the fd)
//	fire due timers      (never before their deadline; equal deadlines in insertion order)
//	drain submitted funcs
//	run the ready queue  (the waiters queued before this step; later wake-ups run next iteration)
//	call stop            (true ends Run)
//
// An idle loop with no timers blocks in the poller indefinitely: it does not
// wake up periodically (libco wakes about 900 times a second).
//
// # Threading
//
// Everything except [Loop.Submit] must be called from the goroutine that
// runs the loop, or while it is not running ([Loop.Stats] included: read it
// from the stop function, a submitted func, or after Run returns). Coroutines and
// frames of one loop run one at a time, so they share data without locks.
//
// # Platforms
//
// The poller is epoll on Linux. On other systems [New] returns
// [ErrNotSupported]; the package still compiles.
package loop

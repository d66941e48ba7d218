package hook

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// An fdState is what the hook layer knows about a descriptor it created or
// manages: libco's rpchook_t. The descriptor itself is always non-blocking
// in the kernel; the state keeps the user's view of it.
//
// Every field is atomic: a descriptor may be configured on one goroutine and
// used on another (an env's main goroutine, a coroutine of another env).
type fdState struct {
	nonblock atomic.Bool  // the user's O_NONBLOCK: calls never wait
	rtimeout atomic.Int64 // SO_RCVTIMEO in nanoseconds; 0 means none
	wtimeout atomic.Int64 // SO_SNDTIMEO in nanoseconds; 0 means none

	// owner is the loop the descriptor is registered with, set by the first
	// call that waits on it in a coroutine and cleared by Detach and Close.
	// A descriptor is served by one loop at a time.
	owner atomic.Pointer[loop.Loop]
}

// claim makes l the loop serving st's descriptor, unless another loop does.
func (st *fdState) claim(l *loop.Loop) bool {
	o := st.owner.Load()
	if o == l {
		return true
	}
	return o == nil && st.owner.CompareAndSwap(nil, l)
}

// deadline returns the monotonic time (see now) at which a call starting now
// times out with the given per-fd timeout, or -1 for none.
func deadline(timeout *atomic.Int64) time.Duration {
	t := timeout.Load()
	if t <= 0 {
		return -1
	}
	return now() + time.Duration(t)
}

// remaining turns a deadline back into a timeout: -1 for none, and never
// below 0.
func remaining(d time.Duration) time.Duration {
	if d < 0 {
		return -1
	}
	return max(d-now(), 0)
}

var start = time.Now()

// now reads the monotonic clock.
func now() time.Duration { return time.Since(start) }

// fdTable maps descriptor numbers to their state: libco's
// g_rpchook_socket_fd, without its fixed size. Lookups take two atomic loads
// and no lock; creating, closing and growing take the mutex.
type fdTable struct {
	mu    sync.Mutex
	slots atomic.Pointer[[]atomic.Pointer[fdState]]
}

var table fdTable

func (t *fdTable) get(fd int) *fdState {
	p := t.slots.Load()
	if p == nil || fd < 0 || fd >= len(*p) {
		return nil
	}
	return (*p)[fd].Load()
}

func (t *fdTable) set(fd int, st *fdState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.slots.Load()
	if p == nil || fd >= len(*p) {
		n := 1024
		if p != nil {
			n = len(*p)
		}
		for n <= fd {
			n *= 2
		}
		grown := make([]atomic.Pointer[fdState], n)
		if p != nil {
			for i := range *p {
				grown[i].Store((*p)[i].Load())
			}
		}
		t.slots.Store(&grown)
		p = &grown
	}
	(*p)[fd].Store(st)
}

// remove drops fd's entry and returns it, or nil.
func (t *fdTable) remove(fd int) *fdState {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.slots.Load()
	if p == nil || fd < 0 || fd >= len(*p) {
		return nil
	}
	return (*p)[fd].Swap(nil)
}

// count returns the number of entries, for tests.
func (t *fdTable) count() int {
	p := t.slots.Load()
	if p == nil {
		return 0
	}
	n := 0
	for i := range *p {
		if (*p)[i].Load() != nil {
			n++
		}
	}
	return n
}

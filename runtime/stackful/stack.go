package stackful

import (
	"iter"
	"math/bits"
)

// Attr are a coroutine's stack attributes (libco's stCoRoutineAttr_t). The
// zero value, like a nil *Attr, is the default: a goroutine stack that
// starts at the runtime's minimum (2 KiB) and grows by copying on demand.
type Attr struct {
	// StackSize, if positive, reserves a private stack of this many bytes
	// when the coroutine starts, rounded up to a power of two between
	// 4 KiB and 8 MiB (Go stacks are powers of two; libco caps at 8 MiB).
	// Calls that stay within it never pay for stack growth. Ignored when
	// ShareStack is set.
	StackSize int

	// ShareStack, if set, runs the coroutine on a carrier goroutine of
	// this group, reused from one finished coroutine to the next.
	ShareStack *ShareStack
}

// Private stacks.
//
// A Go coroutine cannot run on memory the runtime does not own, so a private
// stack is the coroutine's own goroutine stack, grown up front: before fn
// runs, the coroutine calls a chain of functions whose frames add up to
// three quarters of the requested size. The runtime grows the stack to fit
// them in one step (it doubles until the frame fits), copying only the few
// hundred bytes in use; the frames' arrays are never touched. After that,
// calls within the reservation find the stack already large enough.
//
// The runtime's garbage collector halves a stack that uses less than a
// quarter of it, at most once per cycle, when it scans the goroutine; a
// reservation held by a coroutine that stays shallow therefore decays over
// GC cycles (GODEBUG=gcshrinkstackoff=1 turns shrinking off).

const (
	minReservation = 4 << 10
	maxReservation = 8 << 20
)

// reservation maps a requested stack size to the bytes of frames that make
// the runtime grow the stack to it: a power of two S needs frames above S/2
// (or S/2 would do) and below S minus what is in use and the guard.
func reservation(size int) int {
	size = max(size, minReservation)
	size = min(size, maxReservation)
	s := 1 << bits.Len(uint(size-1))
	return s/2 + s/4 - 2<<10
}

// touchReserved is never set. The reserving functions touch their arrays
// only if it is, so the compiler must give them their frames but the
// program never writes to them.
var (
	touchReserved bool
	//lint:ignore U1000 written only, under touchReserved, which is never set
	reservedSink byte
)

// reserveStack grows the current goroutine's stack by about n bytes of
// frames, largest frame first so the first growth is the only one.
func reserveStack(n int) {
	switch {
	case n >= 64<<10:
		reserve64K(n - 64<<10)
	case n >= 8<<10:
		reserve8K(n - 8<<10)
	case n >= 1<<10:
		reserve1K(n - 1<<10)
	}
}

//go:noinline
func reserve64K(rest int) {
	if touchReserved {
		var pad [64 << 10]byte
		pad[rest&(len(pad)-1)] = 1
		reservedSink = pad[(rest>>1)&(len(pad)-1)]
	}
	reserveStack(rest)
}

//go:noinline
func reserve8K(rest int) {
	if touchReserved {
		var pad [8 << 10]byte
		pad[rest&(len(pad)-1)] = 1
		reservedSink = pad[(rest>>1)&(len(pad)-1)]
	}
	reserveStack(rest)
}

//go:noinline
func reserve1K(rest int) {
	if touchReserved {
		var pad [1 << 10]byte
		pad[rest&(len(pad)-1)] = 1
		reservedSink = pad[(rest>>1)&(len(pad)-1)]
	}
	reserveStack(rest)
}

// A ShareStack is a group of coroutines that share carriers: libco's
// stShareStack_t, allocated by [AllocShareStack].
//
// In libco, the coroutines of a group take turns on a few large stacks and
// copy the used part out and in on every switch. A Go coroutine cannot leave
// its goroutine stack, so here the shared thing is the goroutine itself: a
// coroutine of the group starts on an idle carrier goroutine if there is one,
// and when it finishes the carrier goes back to the group instead of exiting,
// keeping its stack. Carrier stacks start at the runtime minimum and grow and
// shrink on demand (the copying libco does on each switch, Go does only when
// a stack grows or the GC shrinks it). What the group buys:
//
//   - creating, running and releasing a coroutine costs no goroutine
//     creation and no allocation besides the Co (see BenchmarkStackfulCreateRelease);
//   - memory is bounded by the live coroutines plus at most count idle
//     carriers; a suspended coroutine still holds its carrier.
//
// A ShareStack is bound to the first env that uses it; [Env.Close] ends its
// idle carriers. It must not be shared between envs.
type ShareStack struct {
	count   int
	size    int
	env     *Env
	idle    []*carrier
	stats   ShareStackStats
	starter func() (struct{}, bool) // next of the group's coroutines until they start
}

// ShareStackStats are a share stack's counters.
type ShareStackStats struct {
	Carriers int    // carrier goroutines started
	Reused   uint64 // coroutines that started on a reused carrier
	Idle     int    // carriers waiting for a coroutine now
}

// AllocShareStack creates a share-stack group (libco's co_alloc_sharestack).
// count is the number of idle carriers the group keeps for reuse (libco: the
// number of shared stacks); size is libco's size of each shared stack. Go
// sizes carrier stacks itself, so size reserves nothing: it is reported by
// [ShareStack.StackSize] for code ported from libco. count must be positive.
func AllocShareStack(count, size int) *ShareStack {
	if count < 1 {
		panic("stackful: AllocShareStack with a count below 1")
	}
	if size < 0 {
		panic("stackful: AllocShareStack with a negative size")
	}
	s := &ShareStack{count: count, size: size}
	s.starter = func() (struct{}, bool) {
		s.env.current.start(s) // Resume has pushed the coroutine
		return struct{}{}, true
	}
	return s
}

// Count returns the number of idle carriers the group keeps.
func (s *ShareStack) Count() int { return s.count }

// StackSize returns the size given to AllocShareStack.
func (s *ShareStack) StackSize() int { return s.size }

// Stats returns the group's counters.
func (s *ShareStack) Stats() ShareStackStats {
	st := s.stats
	st.Idle = len(s.idle)
	return st
}

func (s *ShareStack) bind(e *Env) {
	if s.env == e {
		return
	}
	if s.env != nil && !s.env.closed {
		panic("stackful: ShareStack used by two envs")
	}
	s.env = e
	e.shares = append(e.shares, s)
}

// A carrier is a goroutine that runs the coroutines of a share stack one
// after another.
type carrier struct {
	next  func() (struct{}, bool)
	stop  func()
	co    *Co // the coroutine it runs now
	share *ShareStack
}

// start runs co for the first time on a carrier.
func (s *ShareStack) start(co *Co) {
	var c *carrier
	if n := len(s.idle); n > 0 {
		c = s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		s.stats.Reused++
	} else {
		c = &carrier{share: s}
		c.next, c.stop = iter.Pull(c.body)
		s.stats.Carriers++
	}
	c.co = co
	co.next = c.next
	c.next()
}

func (c *carrier) body(yield func(struct{}) bool) {
	s := c.share
	for {
		co := c.co
		co.yield = yield
		co.run()
		co.next = s.starter // for Reset
		c.co = nil
		if s.env.closing || len(s.idle) >= s.count {
			return
		}
		s.idle = append(s.idle, c)
		if !yield(struct{}{}) {
			return // drained by Env.Close
		}
	}
}

// drain ends the idle carriers.
func (s *ShareStack) drain() {
	for _, c := range s.idle {
		c.stop()
	}
	clear(s.idle)
	s.idle = s.idle[:0]
	s.env = nil
}

//go:build linux || darwin || freebsd

package conet

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Conns that change envs.
//
// A descriptor is served by one loop at a time (fd.owner): its registration
// and the loop-side fields of the netFD (rco, wco, rbusy, wbusy, rq, wq)
// belong to that loop's goroutine. When a coroutine of another env (B) uses
// it, as a connection pool shared by several envs does, the descriptor
// migrates: B asks the owner (A) through A's submit queue to release it,
// and parks on its own loop. On A's goroutine the release succeeds if no
// coroutine of A is using the descriptor (nobody reads, writes or waits
// for a turn): A drops its registration (epoll_ctl DEL), moves the bytes it
// had read ahead on the stream into the netFD (reads take them first), and
// hands ownership straight to B's loop, then wakes B through B's submit
// queue. Every later call in B is on B's loop, with no further cost.
//
// The call falls back instead - it runs through Go's poller on an offload
// worker (stackful.Co.Offload) while the coroutine waits on its loop - when
// A is using the descriptor itself (a reader of A waits on it while B
// writes), or when A does not answer within migrateWait (its goroutine is
// busy, or not running its loop). A fallback is correct whatever A does:
// Go's poller and the loops can all watch one descriptor. When A is using
// it, the next call asks again; when A did not answer, calls fall back at
// once for retryAfter (the unanswered request stays queued and moves the
// descriptor when A runs again, which ends the back-off: it was about A).
// If A's loop is closed, its registrations are gone and B takes the
// descriptor over at once.
//
// Why migrate rather than always fall back: a conn that stays in one env
// (the common case, and every call after a hand-off) then pays nothing at
// all, while a fallback pays two cross-thread wake-ups on every call and
// takes an offload worker for its duration. Per hand-off the two cost about
// the same: BenchmarkConnHandOff, where every exchange uses a conn the other
// env used last, measured fallback/migration ratios of 0.59-1.15 (median
// 0.93, -count 5, 100-170 µs per exchange with the echo server's round
// trip, load average 20 on 2 cores): within the noise.

// migrateWait bounds how long a coroutine waits for the owning loop to
// release a descriptor before its call falls back.
const migrateWait = 20 * time.Millisecond

// Migrations, fallbacks and release requests so far, process-wide: for
// tests and benchmarks.
var migrations, fallbacks, requests atomic.Int64

// retryAfter is how long calls fall back at once, without asking again,
// after a serving loop left a release request unanswered for migrateWait:
// a busy or abandoned env costs each call a wait only once per retryAfter.
// The unanswered request stays queued and moves the conn when that loop
// runs again.
const retryAfter = time.Second

// noMigration makes every call on a conn served by another env fall back:
// for the benchmark that compares the two.
var noMigration atomic.Bool

// errFallback says that a call must run through Go's poller on an offload
// worker (see above); it never leaves the package.
var errFallback = errors.New("conet: fall back to an offloaded call")

// claim binds fd to co's loop for a call in one direction: at once if no
// loop serves it, by migration if another does. errFallback means the
// caller must fall back.
func (fd *netFD) claim(co *stackful.Co, write bool) (*loop.Loop, error) {
	l := co.Env().Loop()
	if fd.comp && fd.owner.Load() != l {
		// The bytes are in the serving loop's buffers: no migration, no
		// fallback through Go's poller.
		if fd.closed() {
			return nil, errClosed
		}
		return nil, ErrCompletion
	}
	for {
		o := fd.owner.Load()
		switch {
		case o == l:
			return l, nil
		case o == nil:
			if !fd.owner.CompareAndSwap(nil, l) {
				continue
			}
			if fd.closed() {
				// Close may not have seen the owner: do not register.
				return nil, errClosed
			}
			return l, nil
		}
		if fd.closed() {
			return nil, errClosed
		}
		if noMigration.Load() || now() < time.Duration(fd.noAskUntil.Load()) {
			fallbacks.Add(1)
			return nil, errFallback
		}
		ok, err := fd.migrate(co, o, l, write)
		if err != nil {
			return nil, err
		}
		if !ok {
			fallbacks.Add(1)
			return nil, errFallback
		}
	}
}

// migration is one request to release a descriptor; its fields belong to
// the requesting coroutine's loop.
type migration struct {
	answered bool
	released bool
	waiting  bool
}

// migrate asks from to hand fd over to l and waits for the answer in co,
// at most migrateWait and never beyond the call's deadline. It reports
// false, nil when the call must fall back; true when fd.owner has changed
// (to l, or to nil because from is closed) and claim should look again.
func (fd *netFD) migrate(co *stackful.Co, from, l *loop.Loop, write bool) (bool, error) {
	m := &migration{}
	w := co.Waiter()
	requests.Add(1)
	err := from.Submit(func() {
		released := fd.release(from, l)
		l.Submit(func() {
			m.answered, m.released = true, released
			if m.waiting {
				w.Wake(loop.Ready)
			}
		})
	})
	if err != nil {
		// from is closed, and its registrations with it.
		fd.owner.CompareAndSwap(from, nil)
		return true, nil
	}
	dl := &fd.rdeadline
	if write {
		dl = &fd.wdeadline
	}
	wait := migrateWait
	if t, err := timeout(dl); err == nil && t >= 0 {
		wait = min(wait, t)
	}
	deadline := time.Now().Add(wait)
	defer func() { m.waiting = false }()
	for !m.answered {
		left := time.Until(deadline)
		if left <= 0 {
			if wait == migrateWait {
				fd.backOff(from)
			}
			return false, nil
		}
		m.waiting = true
		w.Park(left)
		r := co.Await()
		m.waiting = false
		switch r {
		case loop.Timeout:
			if !m.answered {
				if wait == migrateWait {
					fd.backOff(from)
				}
				return false, nil
			}
		case loop.LoopClosed:
			return false, errClosed
		}
	}
	return m.released, nil
}

// backOff makes calls from other envs fall back without asking for
// retryAfter, because from left a request unanswered for migrateWait -
// unless from has handed fd over meanwhile (that request, answered late):
// the back-off is about from, and would otherwise stop every env from
// asking the new owner, which did nothing wrong, and keep the conn where
// the late answer put it. release resets noAskUntil after its CAS of the
// owner; the owner is read again after the store, so whichever of the two
// goroutines comes second undoes a stale back-off.
func (fd *netFD) backOff(from *loop.Loop) {
	fd.noAskUntil.Store(int64(now() + retryAfter))
	if fd.owner.Load() != from {
		fd.noAskUntil.Store(0)
	}
}

// release hands fd over from the loop from, on whose goroutine it runs, to
// the loop to, unless a coroutine of from is using fd.
func (fd *netFD) release(from, to *loop.Loop) bool {
	switch fd.owner.Load() {
	case from:
	case to:
		return true // another request of to's already moved it
	default:
		return false
	}
	if fd.rbusy || fd.wbusy || fd.rco != nil || fd.wco != nil || fd.rq.Len() > 0 || fd.wq.Len() > 0 {
		return false
	}
	if f := from.Lookup(fd.sysfd); f != nil {
		if n := f.Buffered(); n > 0 {
			b := make([]byte, n)
			fd.pushCarry(b[:f.TakeBuffered(b, false)])
		}
		f.Unregister()
	}
	if !fd.owner.CompareAndSwap(from, to) {
		return false
	}
	fd.noAskUntil.Store(0) // a back-off for from (see backOff)
	migrations.Add(1)
	return true
}

// Bytes carried over from a loop's read-ahead.

// keepReadAhead moves the bytes l's TryReadStream read beyond the caller's
// buffer (at most 64) from l's registration into fd, where every reader -
// a coroutine of any env, a plain goroutine, a RawConn's caller after the
// next Read - finds them first. Left on the loop, they would be skipped by
// a read through Go's poller and lost if l closed. It runs on l's
// goroutine after a read; the common case, nothing read ahead, costs a
// lookup and a nil check.
func (fd *netFD) keepReadAhead(l *loop.Loop) {
	f := l.Lookup(fd.sysfd)
	if f == nil {
		return
	}
	if n := f.Buffered(); n > 0 {
		var b [64]byte
		fd.pushCarry(b[:f.TakeBuffered(b[:min(n, len(b))], false)])
	}
}

// pushCarry keeps b for the next reads of fd, before anything read later.
func (fd *netFD) pushCarry(b []byte) {
	fd.carryMu.Lock()
	fd.carry = append(fd.carry, b...)
	fd.carried.Store(int32(len(fd.carry)))
	fd.carryMu.Unlock()
}

// takeCarry moves carried bytes into p; it costs one atomic load when
// there are none.
func (fd *netFD) takeCarry(p []byte) int {
	if fd.carried.Load() == 0 {
		return 0
	}
	fd.carryMu.Lock()
	n := copy(p, fd.carry)
	fd.carry = fd.carry[n:]
	fd.carried.Store(int32(len(fd.carry)))
	fd.carryMu.Unlock()
	return n
}

// Prompt close.

// retire replaces fd's descriptor with a placeholder (dup3 of a fresh,
// unconnected socket onto the same number): the socket is released at
// once - the peer sees the connection end, and every epoll instance drops
// it - while the number stays taken until the loop that served it has
// dropped its registration and the last reference closes it. Close uses it
// when that loop cannot be reached at once, so that no loop ever holds a
// registration under a number that has been reused. The caller holds a
// reference, so the number cannot be closed meanwhile.
//
// The shutdown first ends the connection even where another descriptor
// still refers to the socket (the portable poller watches a dup of it).
func (fd *netFD) retire() {
	unix.Shutdown(fd.sysfd, unix.SHUT_RDWR)
	p, err := loop.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return // the shutdown has ended the connection; the socket goes with the number
	}
	dupOnto(p, fd.sysfd)
	unix.Close(p)
}

// dropOpen drops the open reference of a closed fd once no loop serves it:
// at once when none does or the caller runs on the serving loop, else
// through that loop (retiring the descriptor first, so that it is released
// now whatever that loop is doing). A loop that gave fd to another on the
// way forwards the work to the new owner.
func (fd *netFD) dropOpen() {
	o := fd.owner.Load()
	switch {
	case o == nil:
		fd.decref()
	case onLoop(o):
		fd.unregister(o)
		fd.decref()
	default:
		fd.state.Add(1) // holds the number while it is retired below
		if o.Submit(func() {
			if cur := fd.owner.Load(); cur != o {
				fd.dropOpen() // migrated meanwhile: the new owner drops it
				return
			}
			fd.unregister(o)
			fd.decref()
		}) != nil {
			// o is closed, and its registrations with it; a new owner may
			// have taken over since.
			if fd.owner.CompareAndSwap(o, nil) {
				fd.decref()
			} else {
				fd.dropOpen()
			}
		} else if !fd.comp {
			// (In completion mode the loop still has bytes to send: it
			// releases the socket when it runs.)
			fd.retire()
		}
		fd.decref()
	}
}

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
//	run the ready queue  (the waiters queued before this step; a hand-off's waiter right after its waker)
//	run it again         (the wake-ups queued meanwhile, round by round: at most 63 more rounds,
//	                      and no more once 50 µs have passed, looked at every 8 rounds)
//	call stop            (true ends Run; so does a pending StopRun)
//
// Run also calls stop once before its first iteration, and returns at once
// if it holds: the first poll could otherwise block for good on a condition
// met before Run was called.
//
// A waiter woken while the ready queue runs (a Cond signalled by a coroutine
// the loop resumed, a task that another one awaited) therefore runs before
// stop is asked, as in libco, whose co_eventloop drains its active list,
// entries appended meanwhile included, before calling pfn. The bound keeps
// a waiter that requeues itself forever (Gosched in a loop, two coroutines
// signalling each other) from starving fd events and timers: such a waiter
// runs at most 64 times per iteration (8 times if those rounds took 50 µs),
// and what is still queued then runs first thing in the next iteration
// (whose poller wait does not block), or, if stop ends Run, in the next Run.
// An fd event or a due timer thus waits at most 64 short rounds, or about
// 50 µs plus 8 rounds, for the poll that sees it. Not polling between
// rounds is what keeps wake-ups cheap: an epoll_wait costs about as much as
// a whole channel round trip between two stackless tasks.
//
// A direct hand-off ([Waiter.WakeNext], Go's runnext) puts its waiter in
// a run-next slot instead of at the back of the queue: it runs right after
// the runner that woke it, within the same round, so a value handed from
// one coroutine to another is taken while it is still in the cache, and a
// lone pair taking turns does not poll between hand-offs. At most 64
// run-next runs follow one another; then a hand-off queues at the back like
// any wake-up, so the waiters queued before the chain run before it goes
// on. A stackful coroutine that waits may take the slot itself
// ([Loop.TakeNext]) and switch straight to its waiter.
//
// An idle loop with no timers blocks in the poller indefinitely: it does not
// wake up periodically (libco wakes about 900 times a second), so stop is
// not called until something happens. Other goroutines end a Run with
// [Loop.StopRun] or make it look at stop again with [Loop.Wake];
// [Loop.SetIdleTick] restores a libco-like cadence for code that needs one.
//
// # Timeouts
//
// Every waiting operation that takes a timeout, in this package and in both
// coroutine models built on it (the Try* functions, [Loop.TryPoll],
// [FD.WaitRead], [Cond.Wait], [Waiter.Park] and [Waiter.Sleep]; stackful's
// ReadTimeout, WriteTimeout, AcceptTimeout, ConnectTimeout, Poll, Wait and
// Sleep; stackless's Poll, Wait and Sleep), follows one convention:
//
//	timeout < 0   wait as long as it takes
//	timeout == 0  do not wait: try once, and if that would block, time out at once
//	timeout > 0   wait at most timeout; a deadline never fires early
//
// "At once" means in the call itself for the Try* functions (ErrTimeout,
// nothing armed), Poll (0 ready) and the models' methods (a Cond wait
// returns false, an I/O call fails with the loop's ErrTimeout, without
// suspending); for the waiter-level arms it means the waiter is woken with
// Timeout in the call that armed it, unless its source is ready already (an
// fd edge seen before). Sleep takes a duration, not a timeout: d <= 0
// returns at once (as time.Sleep does). libco's co_cond_timedwait and
// co_poll read a timeout <= 0 as "forever" for conds and "do not wait" for
// poll; here 0 never waits anywhere.
//
// # Timers
//
// A timer (and a waiter's deadline) fires in the first iteration that starts
// at or after its deadline, never before; all timers due by then fire in
// that iteration in (deadline, arming) order, so equal deadlines fire in
// arming order and timers that fell due while the loop was busy or blocked
// fire together, ordered by deadline (libco's observable order, without
// libco's up to 1 ms early fires). Adding and cancelling cost O(1) (a
// hierarchical timing wheel with 1 ms slots; see wheel.go); the timers of
// the current millisecond sit in a small heap so that each fires at its own
// deadline, not at its slot's end.
//
// The loop sleeps until the earliest deadline with nanosecond precision:
// epoll_pwait2 on Linux 5.11 and later, a timerfd in the epoll set before
// that, epoll_wait's milliseconds rounded up if neither works (detected once
// per process). What bounds the lateness is then the kernel: the waiting
// thread's timer slack (50 µs by default, prctl PR_SET_TIMERSLACK; none with
// a timerfd) and the time to schedule the thread, plus whatever runs on the
// loop before the timer's turn in the iteration. Measured beside time.Sleep
// (BenchmarkSleepLateness, cmd/cobench's timers group), a 10 ms sleep is as
// punctual as Go's own.
//
// # Non-blocking operations
//
// TryRead, TryReadStream, TryWrite, TryAccept, TryConnect and TryPoll make
// the system call once and, if it would block, arm the caller's waiter on
// the fd. Reads and writes of registered fds (non-blocking by contract,
// never regular files) are made without the scheduler's syscall bookkeeping
// (RawSyscall). TryReadStream, which both coroutine models' Read use, makes
// a request/response exchange on a stream cost one read and one write: it
// knows when a read emptied the stream, reading up to 64 bytes beyond a
// small buffer to tell (bytes read beyond it are held on the fd, see
// [FD.Buffered]).
//
// # Threading
//
// Everything except [Loop.Submit] must be called from the goroutine that
// runs the loop, or while it is not running ([Loop.Stats] included: read it
// from the stop function, a submitted func, or after Run returns). Coroutines and
// frames of one loop run one at a time, so they share data without locks.
//
// # Groups: one loop per core
//
// A [Group] ([StartGroup]) runs N loops, N defaulting to GOMAXPROCS, each
// on a goroutine of its own locked to its OS thread, as libco runs one env
// per thread. The loops share nothing: work crosses from one to another
// only through [Group.Submit] (the target loop's submit queue: a mutex, and
// a poller wake-up, an eventfd write on Linux, if the loop is blocked — a
// thread wake-up of a few microseconds, where a goroutine channel hand-off
// on one core takes a few hundred nanoseconds, so keep a connection's work
// on the loop that accepted it and batch hand-offs). [Group.Next] places
// work round-robin. [ListenTCP] with reusePort gives each loop a listener
// of its own on one port, so the kernel spreads connections without any
// hand-off. Shutdown runs each loop's [Group.OnShutdown] funcs (close the
// listeners), waits up to a deadline for [GroupConfig.Idle], then calls
// Exit and closes the loop; a loop that fails (an error, a panic, a Run
// ended from outside) shuts the whole group down with its error. The
// stackful and stackless packages build their groups on this one.
//
// # Platforms
//
// On Linux the poller is epoll by default for a loop made with [New], and
// io_uring for a [Group]'s loops ([GroupConfig.Backend]: they run on locked
// threads, where the ring binds to its loop), or as chosen ([Backend]:
// [NewBackend], or the environment variable COGEN_LOOP_BACKEND=uring|epoll
// for every loop that New or StartGroup creates). io_uring is used as a
// readiness engine, and for connections registered with RegisterCompletion
// as a completion engine (below). The
// io_uring backend keeps every operation and contract of the epoll one: each
// registered fd has one multishot IORING_OP_POLL_ADD (edge-triggered, the
// same events), and each iteration is one io_uring_enter that submits the
// polls queued since and waits with the timer's nanosecond timeout; reads
// and writes remain the operations' own system calls. It needs Linux 5.17
// (features NODROP, EXT_ARG, CQE_SKIP; multishot poll; ASYNC_CANCEL) and a
// kernel that allows io_uring; the loop probes at creation and otherwise
// falls back to epoll, logging why once per process. A registered fd must
// then be closed through the loop ([FD.Close] or [FD.Unregister] first), as
// with the portable poller: the poll holds a reference to the file. The
// kernel runs a completion's work on one thread: run such a loop on a
// goroutine locked to its OS thread, as [Group] does (runtime.LockOSThread
// before the loop first waits, and before creating its coroutines). The
// loop's first wait then binds the ring to that thread
// (IORING_SETUP_SINGLE_ISSUER and DEFER_TASKRUN, Linux 6.1; else
// COOP_TASKRUN, Linux 5.19), which runs the work only when the loop asks,
// without signals; the goroutine must then stay locked, and drive the loop
// from that thread, until Close. While busy, such a loop waits without
// handing its P back to the scheduler (the runtime interrupts the wait when
// it needs the goroutine; not with GOMAXPROCS 1). Run itself does not lock
// the thread. On an unlocked goroutine the ring is shared: the work is
// signalled to whichever thread submitted it, an idle thread the loop ran
// on earlier included (see docs/benchmarks.md).
//
// # Completion I/O
//
// On io_uring, a connected stream socket registered with
// [Loop.RegisterCompletion] is served by completion instead of readiness
// ([Loop.Completion] reports whether the backend can; elsewhere it is
// Register). The loop keeps a multishot IORING_OP_RECV in flight on it that
// picks buffers from a provided-buffer ring shared by the loop's
// connections (2 KiB each; the ring starts with 64 and doubles when a
// quarter is left, up to 1024 or two per connection, at most 16384), and
// TryRead and TryReadStream copy out
// of them without a system call; TryWrite copies into a per-fd send queue
// and returns (it waits only when 64 KiB wait to be sent), and one
// IORING_OP_SEND per fd is in flight, resubmitted for a short send and
// followed by what was written meanwhile. All of it rides on the
// io_uring_enter each iteration makes anyway, so a request costs no read or
// write system call; Run and RunOnce submit what is queued before they
// return. The costs: an idle connection holds a 16-byte record in the
// poller's table beside what readiness mode holds (received
// bytes, send buffers and errors live in a record the connection takes
// from a pool while it has any), and one whose reader lags stops receiving past four
// chunks (what its socket held when the receive ran may all be in the
// ring by then). When the ring runs dry a connection falls back to
// readiness and read(2) into the caller's buffer until the stream is
// empty, so no data waits for a buffer another connection holds.
//
// Such an fd's contract differs: bytes the loop received and nobody read
// are the loop's (a read(2) of one's own would miss them; [FD.Buffered],
// WaitRead and TryPoll count them), a send's error is reported by the
// next write, a half-close must go through [Loop.ShutdownWrite] (after
// the queued sends), and [FD.Close] sends what was written before closing
// the descriptor, which it leaves open until the last send completes, for
// at most 5 s (then the connection is reset), and not at all when input
// was left unread (the connection is reset, as close(2) would). Completions are matched to connections by a
// slot that outlives every request of its connection, never by fd number,
// so a completion that arrives after a close never reaches the
// connection that reuses the number; its buffer goes back to the ring. It
// needs IORING_OP_RECV and IORING_OP_SEND and provided-buffer rings (Linux
// 5.19), and multishot receive (6.0; without it receives are single-shot).
// The stackless ServeTCP and Group.ServeTCP, and cohttp's stackless
// server, register their connections this way. A listener registered with
// [Loop.RegisterAccept] (the stackless ServeTCP's and Group.ServeTCP's) has
// one multishot IORING_OP_ACCEPT in flight that serves every accept
// (Linux 5.19; without it, readiness and accept(2)): TryAccept takes the
// connections it queued without a system call, and FD.Close cancels it
// and closes those not taken; a completion that arrives after the close
// closes its connection.
//
// Everywhere else (and on Linux with the build
// tag cogen_netpoll, which is how its tests run here) it is a portable
// poller built on Go's own runtime poller: a goroutine per registered fd
// and direction waits in Go's poller on a duplicate of the fd and posts
// each edge to the loop, which wakes as on a Submit. It costs a goroutine
// switch and a poll(2) per edge and a second descriptor per registration,
// and its timeouts are Go timers. Two differences show: a registered fd must
// be closed through the loop ([FD.Close], or [FD.Unregister] first), since
// the duplicate keeps the file open until the registration ends; and an
// edge reaches the loop a moment after the kernel saw it, not in the same
// non-blocking check. On Windows descriptors are not ints: the loop runs
// timers, waiters, conds and submitted funcs, and [Loop.Register] fails
// with [ErrNotSupported].
package loop

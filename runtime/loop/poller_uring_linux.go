//go:build linux && !cogen_netpoll

package loop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// uringPoller is the poller on io_uring used as a readiness engine: each
// registered fd has one multishot IORING_OP_POLL_ADD in flight, edge-
// triggered like the epoller's registration, and every loop iteration is
// one io_uring_enter that submits what the iteration queued (new polls,
// cancellations) and waits for completions with the loop's timeout
// (IORING_ENTER_EXT_ARG: nanoseconds, no timerfd). A completion carries the
// poll(2) bits that fired, so the loop core sees the same events as with
// epoll; reads and writes stay plain system calls made by the loop's
// operations.
//
// Stale completions. A poll's user_data is its fd number and a generation
// (pollData); regs[fd] holds the generation of the fd's live poll, 0 when
// it has none. del zeroes it before asking the kernel to cancel the poll, so
// whatever that poll posts afterwards (its -ECANCELED, an edge already in
// the completion ring, or a poll of a closed fd whose number a new fd now
// has) carries an old generation and is dropped: a descriptor unregistered
// is never reported again, whatever order completions come in.
//
// File references. A poll holds a reference to its file, so closing the
// descriptor alone would keep the socket open. del therefore submits the
// cancellation at once (one io_uring_enter, where epoll makes one epoll_ctl),
// before FD.Close closes the descriptor; Loop.Close closes the ring, which
// cancels what is left.
//
// A multishot poll ends when the kernel cannot post to a full completion
// ring (it then keeps the completions in its overflow list, IORING_FEAT_NODROP)
// or on an error; a completion without IORING_CQE_F_MORE is its last, and
// wait arms a new poll for the fd, which reports the fd's current state
// first, so no edge is lost (a spurious one may be reported: the loop's
// operations retry on EAGAIN).
//
// Wake is an eventfd with a multishot poll of its own, as in the epoller.
//
// Threads. The kernel finishes a completion (a receive's copy, a poll's
// wake-up) as task work of a thread. On a shared ring (no setup flag) that
// is the thread that submitted the request, signalled (TWA_SIGNAL: an
// interrupt, an extra kernel entry) wherever it is, even idle or running
// another goroutine, for as long as a multishot request lives. A ring bound
// to one thread avoids that: with IORING_SETUP_SINGLE_ISSUER and
// DEFER_TASKRUN (Linux 6.1) the work waits, unsignalled, until that thread
// calls io_uring_enter with GETEVENTS, which wait does when the TASKRUN
// flag says work is pending; with COOP_TASKRUN (Linux 5.19) it runs at the
// thread's next kernel entry. Either needs the loop's goroutine to stay on
// that thread: the ring is created disabled (IORING_SETUP_R_DISABLED), and
// the first io_uring_enter decides: on a goroutine locked to its thread
// (runtime.LockOSThread, as [Group] does) it enables the ring there, bound
// to that thread for good; otherwise it replaces the ring by a shared one,
// moving the entries queued so far (nothing has reached the kernel yet).
// Run does not lock the thread itself: a stackful coroutine records its
// goroutine's thread-lock state when it is created and the runtime throws
// if a switch finds it changed. A bound ring entered from another thread
// fails (EEXIST with DEFER_TASKRUN; with COOP_TASKRUN completions would
// wait for the old thread), so a bound loop's goroutine must stay locked
// until Close.
type uringPoller struct {
	r       *ring
	mode    ringMode
	rawOK   bool // the loop may wait raw (block's doc): bound, one of at most GOMAXPROCS-1 (rawLoops), signal preemption
	rawWait bool // the next blocking wait is raw: rawOK, and the last wait reaped
	efd     int
	waking  atomic.Bool // a wake is in flight; cleared when the loop drains the eventfd
	regs    []uint32    // per fd number: generation of its live poll, 0 for none
	gen     uint32      // last generation handed out
	fn      func(fd int, ev Events)
	reapFn  func(*cqe)
	n       int           // events delivered by the current wait
	arg     getEventsArg  // enter's scratch
	ts      unix.Timespec // enter's timeout
	st      unix.Stat_t   // add's scratch
	drained [8]byte
	held    []heldEvent // completions reaped outside wait, for the next one
	// wakeBad is set when the wake poll completed with an error or as a
	// single shot: multishot poll does not work (init's probe).
	wakeBad bool

	// Completion I/O (uring_comp_linux.go); bufs is nil without it.
	bufs      *bufRing
	conns     []*[compBlock]compConn // the compConns, by slot (conn)
	slots     uint32                 // slots handed out so far
	freeSlots []uint32
	compGen   uint32
	freeBufs  [][]byte   // send buffers for reuse
	freeBig   [][]byte   // larger send buffers for reuse
	exts      []*compExt // the compExts, by index (compConn.xi); exts[0] is noExt
	freeXi    []uint32   // indices of exts free for reuse (shed)
	live      int        // connections in completion mode
	// noMultishot is set when the kernel refused a multishot receive:
	// receives are single-shot from then on.
	noMultishot bool
	// noAcceptMultishot is set when the kernel refused a multishot
	// accept: listeners get readiness and accept(2).
	noAcceptMultishot bool
}

// ringMode is how completion work reaches the loop (Threads in
// uringPoller's doc).
type ringMode uint8

const (
	ringShared  ringMode = iota // no setup flag: signalled to the submitting thread
	ringUnbound                 // created disabled with a bound mode's flags; not entered yet
	ringDefer                   // SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG, bound
	ringCoop                    // COOP_TASKRUN|TASKRUN_FLAG, bound
)

// The setup flags of the bound modes, best first.
const (
	deferSetup = iouSetupSingleIssuer | iouSetupDeferTaskrun | iouSetupTaskrunFlag
	coopSetup  = iouSetupCoopTaskrun | iouSetupTaskrunFlag
)

func (m ringMode) String() string {
	return [...]string{"shared", "unbound", "defer-taskrun", "coop-taskrun"}[m]
}

// openRing creates the poller's ring: disabled, with the best bound mode's
// flags the kernel accepts (EINVAL: it lacks one), else shared.
func openRing() (*ring, error) {
	for _, setup := range []uint32{deferSetup, coopSetup} {
		r, err := newRing(uringSQEntries, uringCQEntries, setup|iouSetupRDisabled)
		if !errors.Is(err, unix.EINVAL) {
			return r, err
		}
	}
	return newRing(uringSQEntries, uringCQEntries, 0)
}

// enter is io_uring_enter on the poller's ring; the first call binds the
// ring or shares it (Threads in the type's doc).
func (p *uringPoller) enter(toSubmit, minComplete, flags uint32, ts *unix.Timespec, raw bool) (int, unix.Errno) {
	if p.mode == ringUnbound {
		if err := p.bind(); err != nil {
			var errno unix.Errno
			if !errors.As(err, &errno) {
				errno = unix.EINVAL
			}
			return 0, errno
		}
	}
	return p.r.enter(toSubmit, minComplete, flags, &p.arg, ts, raw)
}

// enterError is the error of an io_uring_enter that failed with errno.
func (p *uringPoller) enterError(errno unix.Errno) error {
	err := os.NewSyscallError("io_uring_enter", errno)
	if errno == unix.EEXIST && p.mode == ringDefer {
		return fmt.Errorf("loop: io_uring loop driven from an OS thread other than the one its ring is bound to "+
			"(its goroutine was locked to a thread when the loop first waited: keep it locked until Close): %w", err)
	}
	return err
}

// rawLoops counts the process's loops that may wait raw (rawOK). A raw
// wait keeps its P, so at most GOMAXPROCS-1 loops may: one P always stays
// for the rest of the program (offload workers, timers, the GC's workers),
// which would otherwise wait for sysmon's 10 ms preemption whenever every
// loop is blocked raw (a Group with one loop per P).
var rawLoops atomic.Int32

// takeRawSlot reports whether one more loop may wait raw, and counts it if
// so.
func takeRawSlot() bool {
	limit := int32(runtime.GOMAXPROCS(0)) - 1
	for {
		n := rawLoops.Load()
		if n >= limit {
			return false
		}
		if rawLoops.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// bind ends the unbound mode: it enables the ring on this thread if the
// goroutine is locked to it, and otherwise replaces the ring by a shared
// one.
func (p *uringPoller) bind() error {
	if lockedOSThread() {
		if err := p.r.enable(); err != nil {
			return err
		}
		p.mode = ringDefer
		if p.r.setup&iouSetupDeferTaskrun == 0 {
			p.mode = ringCoop
		}
		p.rawOK = !asyncPreemptOff() && takeRawSlot()
		return nil
	}
	// The disabled ring was never entered: every entry handed out is
	// still queued, and no request or buffer is the kernel's.
	old, enters := p.r, p.r.enters
	queued := make([]sqe, 0, old.sq.local-atomic.LoadUint32(old.sq.khead))
	for i := atomic.LoadUint32(old.sq.khead); i != old.sq.local; i++ {
		queued = append(queued, old.sq.sqes[i&old.sq.mask])
	}
	r, err := newRing(uringSQEntries, uringCQEntries, 0)
	if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) {
		// No descriptor to spare (the process is at its limit, as a
		// server that accepted until EMFILE before its first wait):
		// closing the old ring frees one. Should another thread take
		// it first, the loop fails: every enter then fails with EBADF.
		old.close()
		p.r, p.mode, old = deadRing(enters), ringShared, nil
		r, err = newRing(uringSQEntries, uringCQEntries, 0)
	}
	if err != nil {
		return err
	}
	for _, q := range queued {
		e := r.sq.next()
		if e == nil {
			r.close()
			return fmt.Errorf("loop: io_uring ring of %d entries cannot take %d queued ones", len(r.sq.sqes), len(queued))
		}
		*e = q
	}
	if b := p.bufs; b != nil {
		reg := bufRingReg{ringAddr: uint64(uintptr(unsafe.Pointer(&b.mem[0]))), ringEntries: uint32(b.n), bgid: compBufGroup}
		if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), iouRegisterPbufRing,
			uintptr(unsafe.Pointer(&reg)), 1, 0, 0); errno != 0 {
			r.close()
			return os.NewSyscallError("io_uring_register(PBUF_RING)", errno)
		}
	}
	if old != nil {
		// The new ring takes the old one's descriptor number (dup3
		// closes the old ring), so the descriptors the loop's user sees
		// do not move.
		old.unmap()
		if unix.Dup3(r.fd, old.fd, unix.O_CLOEXEC) == nil {
			unix.Close(r.fd)
			r.fd = old.fd
		} else {
			unix.Close(old.fd)
		}
	}
	r.enters = enters
	p.r, p.mode = r, ringShared
	return nil
}

// asyncPreemptOff reports whether GODEBUG turns asynchronous preemption
// off: the runtime then stops the world without signalling the threads,
// and a raw wait would hold up the GC until the loop wakes.
func asyncPreemptOff() bool {
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if kv == "asyncpreemptoff=1" {
			return true
		}
	}
	return false
}

// deadRing stands in for a ring that was closed and could not be replaced:
// it hands out one entry, completes nothing, and every io_uring_enter on it
// fails with EBADF.
func deadRing(enters uint64) *ring {
	k := new([3]uint32)
	return &ring{fd: -1, enters: enters,
		sq: sqRing{khead: &k[0], ktail: &k[1], flags: &k[2], sqes: make([]sqe, 1)},
		cq: cqRing{khead: &k[0], ktail: &k[0], cqes: make([]cqe, 1)}}
}

// User data: bits 0-31 an fd number, 32-60 a generation (never 0), bit 61
// marks completion I/O (uring_comp_linux.go: a different layout), bit 62
// the cancellation of that fd's poll or request, bit 63 the poller's own
// requests.
const (
	udWake   = 1<<63 | 1 // the eventfd's poll
	udCancel = 1 << 62   // | pollData: an ASYNC_CANCEL of that poll (success posts nothing)
	genLimit = 1 << 29   // bits 61-63 are flags
)

// The ring's sizes: the submission queue holds what one iteration queues
// (a receive and a send per busy connection in completion mode) without a
// mid-iteration io_uring_enter to make room in most loads; completions
// beyond the completion queue wait in the kernel (IORING_FEAT_NODROP).
const (
	uringSQEntries = 2048
	uringCQEntries = 8192
)

// pollData is the user_data of fd's poll of generation gen (0 < gen < genLimit).
func pollData(fd int, gen uint32) uint64 { return uint64(gen)<<32 | uint64(uint32(fd)) }

// pollEvents is what every fd's poll waits for: the epoller's set.
const pollEvents = unix.POLLIN | unix.POLLOUT | unix.POLLPRI | unix.POLLRDHUP

// uringUnavailable is newUringPoller's error when io_uring cannot serve as
// the poller; its text says why, for the fallback's log line.
type uringUnavailable struct {
	why string
	err error
}

func (e *uringUnavailable) Error() string {
	if e.err != nil {
		return e.why + ": " + e.err.Error()
	}
	return e.why
}

func (e *uringUnavailable) Unwrap() error { return e.err }

// newUringPoller probes io_uring and returns a poller on it, or an error
// (a *uringUnavailable when the kernel lacks or refuses what it needs).
//
// Needed: io_uring_setup permitted (not disabled by kernel.io_uring_disabled,
// not refused by seccomp or a policy), IORING_FEAT_NODROP, EXT_ARG and
// CQE_SKIP (Linux 5.17), the POLL_ADD and ASYNC_CANCEL opcodes, and
// multishot poll (Linux 5.13), which the probe checks by a round trip on the
// wake eventfd. A little-endian CPU too: the poll mask's layout in the SQE
// differs on big-endian ones, which this code does not handle.
func newUringPoller() (*uringPoller, error) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, &uringUnavailable{why: "big-endian CPU not supported"}
	}
	r, err := openRing()
	if err != nil {
		return nil, setupRefused(err)
	}
	p := &uringPoller{r: r, efd: -1}
	if r.setup != 0 {
		p.mode = ringUnbound
	}
	p.reapFn = p.complete
	if err := p.init(); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// setupRefused explains io_uring_setup's failure.
func setupRefused(err error) error {
	switch {
	case errors.Is(err, unix.ENOSYS):
		return &uringUnavailable{why: "io_uring_setup: ENOSYS (kernel without io_uring, or a seccomp filter)", err: err}
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		if b, rerr := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); rerr == nil {
			if v := strings.TrimSpace(string(b)); v != "0" {
				return &uringUnavailable{why: "disabled by kernel.io_uring_disabled=" + v, err: err}
			}
		}
		return &uringUnavailable{why: "io_uring_setup refused (seccomp or security policy)", err: err}
	}
	return &uringUnavailable{why: "io_uring_setup failed", err: err}
}

func (p *uringPoller) init() error {
	const need = iouFeatNoDrop | iouFeatExtArg | iouFeatCQESkip
	if f := p.r.features; f&need != need {
		return &uringUnavailable{why: fmt.Sprintf("kernel lacks io_uring features %#x (NODROP, EXT_ARG, CQE_SKIP: Linux 5.17)", need&^f)}
	}
	ok, err := p.r.supports(iouOpPollAdd, iouOpAsyncCancel)
	if err != nil {
		return &uringUnavailable{why: "io_uring opcode probe failed", err: err}
	}
	if !ok {
		return &uringUnavailable{why: "kernel lacks IORING_OP_POLL_ADD or ASYNC_CANCEL"}
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	p.efd = efd
	p.armWake()
	if p.mode == ringUnbound {
		// The kernel has COOP_TASKRUN (Linux 5.19), so multishot poll
		// too; and the ring must not be entered before the loop waits.
		p.initComp()
		return nil
	}
	// The round trip: a pending wake must come back as a multishot poll
	// completion that stays armed (F_MORE).
	if err := p.wake(); err != nil {
		return err
	}
	deadline := time.Now().Add(time.Second)
	for p.waking.Load() {
		if time.Now().After(deadline) {
			return &uringUnavailable{why: "multishot poll probe got no completion"}
		}
		if _, err := p.wait(100*time.Millisecond, func(fd int, ev Events) {}); err != nil {
			return &uringUnavailable{why: "multishot poll probe failed", err: err}
		}
	}
	if p.wakeBad {
		return &uringUnavailable{why: "kernel lacks multishot IORING_OP_POLL_ADD (Linux 5.13)"}
	}
	p.initComp()
	return nil
}

// sqe returns a free SQE, submitting what is queued to make room.
func (p *uringPoller) sqe() (*sqe, error) {
	for {
		if e := p.r.sq.next(); e != nil {
			return e, nil
		}
		if err := p.submit(); err != nil {
			return nil, err
		}
	}
}

// submit hands every queued SQE to the kernel without waiting.
func (p *uringPoller) submit() error {
	p.compPublish()
	for {
		n := p.r.sq.publish()
		if n == 0 {
			return nil
		}
		_, errno := p.enter(n, 0, 0, nil, false)
		switch errno {
		case 0, unix.EINTR:
		case unix.EAGAIN, unix.EBUSY:
			// Out of kernel memory for requests, or completions backed up:
			// reap to make room, then try again.
			p.r.cq.reap(len(p.r.cq.cqes), p.reapFn)
		default:
			return p.enterError(errno)
		}
	}
}

func (p *uringPoller) pollAdd(fd int, ud uint64) error {
	e, err := p.sqe()
	if err != nil {
		return err
	}
	e.opcode, e.fd, e.len, e.opFlags, e.userData = iouOpPollAdd, int32(fd), iouPollAddMulti, pollEvents, ud
	return nil
}

func (p *uringPoller) armWake() error { return p.pollAdd(p.efd, udWake) }

// add queues fd's poll; the next wait submits it, and the kernel reports
// the fd's current state then, so an fd ready already is reported at once
// (as epoll does for an edge-triggered registration). Like epoll_ctl it
// refuses at once what it cannot watch: a bad fd (EBADF), a regular file
// or a directory (EPERM), which a poll would report ready for ever.
func (p *uringPoller) add(fd int) error {
	if err := unix.Fstat(fd, &p.st); err != nil {
		return os.NewSyscallError("fstat", err)
	}
	if m := p.st.Mode & unix.S_IFMT; m == unix.S_IFREG || m == unix.S_IFDIR {
		return os.NewSyscallError("io_uring poll", unix.EPERM)
	}
	for fd >= len(p.regs) {
		p.regs = append(p.regs, 0)
	}
	if p.regs[fd] != 0 {
		return os.NewSyscallError("io_uring poll", unix.EEXIST)
	}
	p.gen = p.gen%(genLimit-1) + 1
	if err := p.pollAdd(fd, pollData(fd, p.gen)); err != nil {
		return err
	}
	p.regs[fd] = p.gen
	return nil
}

// del cancels fd's poll and submits the cancellation at once (see File
// references in the type's doc).
func (p *uringPoller) del(fd int) error {
	if fd < 0 || fd >= len(p.regs) || p.regs[fd] == 0 {
		return os.NewSyscallError("io_uring poll remove", unix.ENOENT)
	}
	ud := pollData(fd, p.regs[fd])
	p.regs[fd] = 0
	if err := p.cancel(ud); err != nil {
		return err
	}
	return p.submit()
}

// cancel queues the cancellation of the request with user data ud. It is
// IORING_OP_ASYNC_CANCEL, not POLL_REMOVE: a removal fails with EALREADY
// while a wake-up of the poll is under way, and the multishot poll then
// stays armed, whereas a cancellation marks it and its owner ends it.
func (p *uringPoller) cancel(ud uint64) error {
	e, err := p.sqe()
	if err != nil {
		return err
	}
	e.opcode, e.flags, e.fd, e.addr, e.userData = iouOpAsyncCancel, iouSQECQESkipSuccess, -1, ud, udCancel|ud
	return nil
}

func (p *uringPoller) wait(timeout time.Duration, fn func(fd int, ev Events)) (int, error) {
	p.fn, p.n = fn, 0
	defer func() { p.fn = nil }()
	for _, h := range p.held {
		if h.c != nil && h.c.gen() == h.gen && !h.c.has(cfClosed) || h.c == nil && h.fd < len(p.regs) && p.regs[h.fd] == h.gen {
			p.n++
			fn(h.fd, h.ev)
		}
	}
	if len(p.held) > 0 {
		p.held = p.held[:0]
		timeout = 0 // events were delivered: the loop has work
	}
	p.compPublish()
	toSubmit := p.r.sq.publish()
	if p.r.cq.ready() > 0 {
		timeout = 0 // completions are waiting: take them without sleeping
	}
	var errno unix.Errno
	switch {
	case timeout == 0:
		// TASKRUN: completion work waits for this thread to enter (a
		// bound ring's); CQ_OVERFLOW: completions wait for room.
		if toSubmit > 0 || atomic.LoadUint32(p.r.sq.flags)&(iouSQCQOverflow|iouSQTaskrun) != 0 {
			_, errno = p.enter(toSubmit, 0, iouEnterGetEvents, nil, false)
		}
	default:
		errno = p.block(toSubmit, timeout)
	}
	switch errno {
	case 0, unix.ETIME, unix.EINTR, unix.EAGAIN, unix.EBUSY:
		// EINTR: the loop recomputes the timeout; EAGAIN/EBUSY: nothing
		// submitted for now, the completions below make room.
	default:
		return 0, p.enterError(errno)
	}
	reaped := false
	for p.r.cq.reap(len(p.r.cq.cqes), p.reapFn) > 0 {
		reaped = true
		if atomic.LoadUint32(p.r.sq.flags)&iouSQCQOverflow != 0 {
			// Completions the ring had no room for wait in the kernel:
			// flush them into the space just freed.
			if _, errno := p.enter(0, 0, iouEnterGetEvents, nil, false); errno != 0 && errno != unix.EINTR && errno != unix.EBUSY {
				return p.n, p.enterError(errno)
			}
		}
	}
	p.rawWait = reaped && p.rawOK
	return p.n, nil
}

// block is wait's io_uring_enter that waits for a completion, for at most
// timeout if it is positive.
//
// Raw waits. A system call the Go scheduler is told about (entersyscall)
// that blocks for more than 20 µs has its P taken by sysmon, which then
// keeps polling every 20 µs: on a busy loop that blocks briefly thousands
// of times a second, the sysmon thread's wake-ups are a visible share of
// the server's CPU (docs/benchmarks.md). A bound ring's loop owns its
// thread (a locked goroutine) and so waits raw, keeping its P, while it is
// busy (rawWait: its last wait returned completions), if the runtime has
// another P for everyone else (at most GOMAXPROCS-1 loops of the process
// wait raw: rawLoops) and
// preempts by signal (not GODEBUG=asyncpreemptoff=1 in the environment; a
// //go:debug directive setting it is not seen). The runtime still
// gets the goroutine back when it needs it: a preemption (sysmon, after
// 10 ms on the P) or the GC's stop signals the thread, the wait returns
// EINTR, and block waits again, as a system call the scheduler sees, for
// what is left of the timeout; the next busy wait is raw again.
func (p *uringPoller) block(toSubmit uint32, timeout time.Duration) unix.Errno {
	raw := p.rawWait
	var start time.Time
	if raw && timeout > 0 {
		start = time.Now()
	}
	for {
		var ts *unix.Timespec
		if timeout > 0 {
			p.ts = unix.NsecToTimespec(int64(timeout))
			ts = &p.ts
		}
		_, errno := p.enter(toSubmit, 1, iouEnterGetEvents, ts, raw)
		if errno != unix.EINTR || !raw {
			return errno
		}
		// The runtime interrupted the raw wait; the next call lets it
		// preempt the goroutine if it asked to.
		raw, p.rawWait = false, false
		toSubmit = p.r.sq.publish()
		if timeout > 0 {
			if timeout -= time.Since(start); timeout <= 0 {
				return unix.ETIME
			}
		}
		if p.r.cq.ready() > 0 {
			return 0
		}
	}
}

// complete handles one completion (reap's callback).
func (p *uringPoller) complete(c *cqe) {
	more := c.flags&iouCQEFMore != 0
	switch c.userData {
	case udWake:
		if c.res < 0 || !more {
			p.wakeBad = true
		}
		unix.Read(p.efd, p.drained[:])
		// Clear the flag before the loop drains submissions: a Submit
		// after this point sees false and writes again.
		p.waking.Store(false)
		if !more {
			p.armWake()
		}
		return
	}
	if c.userData&(udCancel|udComp) == udComp {
		p.completeComp(c)
		return
	}
	if c.userData&udCancel != 0 {
		// A cancellation failed: ENOENT, the poll ended already; EALREADY,
		// it is completing (not expected of a poll): ask again.
		// A receive in completion mode (udComp) is not asked again: it
		// is completing, and its user data may name its successor soon.
		if c.res == -int32(unix.EALREADY) && c.userData&udComp == 0 {
			p.cancel(c.userData &^ udCancel)
		}
		return
	}
	fd, gen := int(uint32(c.userData)), uint32(c.userData>>32)
	if fd >= len(p.regs) || p.regs[fd] != gen {
		return // a poll removed since: the fd is not ours any more
	}
	if !more && (c.res >= 0 || c.res == -int32(unix.ECANCELED)) {
		// The poll ended; arm a new one, which reports the current state.
		// If no SQE can be had (the ring fails), report an error edge so
		// the fd's waiters look at the fd themselves.
		if p.pollAdd(fd, c.userData) != nil {
			c.res = int32(unix.POLLERR | unix.POLLHUP)
		}
	}
	ev := Events(c.res)
	if c.res < 0 {
		if c.res == -int32(unix.ECANCELED) {
			return // ended by the kernel, re-armed above
		}
		// The poll failed and is not re-armed (it would fail again): the
		// waiters look at the fd themselves and get its error.
		ev = EventErr | EventHup
	}
	if ev == 0 {
		return
	}
	if p.fn == nil {
		// Reaped outside wait (submit makes room when the kernel is out of
		// it): keep the event for the next wait.
		p.held = append(p.held, heldEvent{fd: fd, gen: gen, ev: ev})
		return
	}
	p.n++
	p.fn(fd, ev)
}

// A heldEvent is a completion reaped outside wait, delivered by the next
// wait if its poll is still the fd's.
type heldEvent struct {
	fd  int
	gen uint32
	ev  Events
	c   *compConn // for an fd in completion mode: delivered unless c is closed by then
}

func (p *uringPoller) wake() error {
	if !p.waking.CompareAndSwap(false, true) {
		return nil // a wake is already pending
	}
	for {
		_, err := unix.Write(p.efd, one[:])
		switch err {
		case nil, unix.EAGAIN: // EAGAIN: counter saturated, a wake is pending anyway
			return nil
		case unix.EINTR:
			continue
		default:
			return os.NewSyscallError("write", err)
		}
	}
}

func (p *uringPoller) close() error {
	if p.rawOK {
		p.rawOK = false
		rawLoops.Add(-1)
	}
	if p.bufs != nil {
		// Completions not reaped yet may hold accepted descriptors: queue
		// them, for closeComp to close.
		p.r.cq.reap(len(p.r.cq.cqes), p.reapFn)
	}
	err := p.r.close()
	p.closeComp()
	if p.efd >= 0 {
		if cerr := unix.Close(p.efd); cerr != nil && err == nil {
			err = os.NewSyscallError("close", cerr)
		}
	}
	return err
}

// groupBackend is a Group's default backend (GroupConfig.Backend): its
// loops run on locked threads, where the ring binds to its loop.
const groupBackend = BackendUring

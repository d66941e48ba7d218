//go:build linux && !cogen_netpoll

package loop

import (
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A ring is one io_uring instance: the three regions io_uring_setup(2)
// shares with the kernel, mapped into this process, and the bookkeeping
// that hands submission entries out and takes completions in.
//
// Layout (offsets come from io_uring_params; nothing is assumed but the
// structures' sizes, fixed by the kernel ABI):
//
//	SQ ring (mmap IORING_OFF_SQ_RING)   head  tail  ring_mask  ring_entries  flags  dropped  array[entries]
//	CQ ring (mmap IORING_OFF_CQ_RING)   head  tail  ring_mask  ring_entries  overflow  cqes[cq_entries]
//	SQEs    (mmap IORING_OFF_SQES)      sqe[entries], 64 bytes each
//
// With IORING_FEAT_SINGLE_MMAP the SQ and CQ rings are one mapping.
//
// Ownership. Every index is a free-running uint32 (wrapping is harmless:
// only differences are used); an index i names slot i&mask.
//
//   - SQ head is the kernel's: it advances past the entries it has
//     consumed. SQ tail is ours: entries in [head, tail) are the kernel's
//     to read; the slot at tail and beyond are ours to fill. We publish
//     filled entries by storing the tail (atomic store: a release that
//     orders the entry's writes before it), and read the head with an
//     atomic load. The array maps slot i to SQE i once, at setup; so SQE
//     tail&mask is the next free one while tail-head < entries.
//   - CQ tail is the kernel's, CQ head ours: entries in [head, tail) are
//     ours to read (atomic load of the tail first: an acquire), and storing
//     the head hands their slots back.
//
// Only the loop goroutine touches a ring. sq.local counts the entries
// handed out by next; publish makes them the kernel's.
type ring struct {
	fd       int
	features uint32
	sq       sqRing
	cq       cqRing
	sqMem    []byte // SQ ring, and the CQ ring too with FEAT_SINGLE_MMAP
	cqMem    []byte // nil with FEAT_SINGLE_MMAP
	sqeMem   []byte
	enters   uint64 // io_uring_enter calls made
	setup    uint32 // the IORING_SETUP_* flags it was created with
}

// sqe is struct io_uring_sqe (64 bytes), with the unions this package uses
// named for their use.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32 // poll32_events, rw_flags, msg_flags, ...
	userData    uint64
	bufIndex    uint16
	personality uint16
	fileIndex   uint32
	addr3       uint64
	_           uint64
}

// cqe is struct io_uring_cqe (16 bytes; no IORING_SETUP_CQE32).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// sqRing is the submission queue's bookkeeping.
type sqRing struct {
	khead *uint32 // kernel-owned head
	ktail *uint32 // our tail, as published to the kernel
	flags *uint32 // IORING_SQ_* bits, kernel-written
	mask  uint32
	local uint32 // our tail, published or not
	sqes  []sqe  // len == entries == mask+1
}

// cqRing is the completion queue's bookkeeping.
type cqRing struct {
	khead *uint32 // our head, as published to the kernel
	ktail *uint32 // kernel-owned tail
	mask  uint32
	cqes  []cqe // len == entries == mask+1
}

// next returns a zeroed SQE to fill, or nil when all entries are handed
// out and not yet consumed by the kernel (flush, then retry).
func (s *sqRing) next() *sqe {
	if s.local-atomic.LoadUint32(s.khead) >= uint32(len(s.sqes)) {
		return nil
	}
	e := &s.sqes[s.local&s.mask]
	*e = sqe{}
	s.local++
	return e
}

// publish makes every entry handed out the kernel's and returns how many
// the kernel has not consumed yet (the to_submit of the next enter).
func (s *sqRing) publish() uint32 {
	atomic.StoreUint32(s.ktail, s.local)
	return s.local - atomic.LoadUint32(s.khead)
}

// reap calls fn for each completion in order, up to max of them, and hands
// their slots back; it returns how many it took. fn must not keep the
// pointer.
func (c *cqRing) reap(max int, fn func(*cqe)) int {
	head := *c.khead // only we write it
	tail := atomic.LoadUint32(c.ktail)
	n := 0
	for head != tail && n < max {
		fn(&c.cqes[head&c.mask])
		head++
		n++
	}
	atomic.StoreUint32(c.khead, head)
	return n
}

// ready is how many completions wait to be reaped.
func (c *cqRing) ready() uint32 { return atomic.LoadUint32(c.ktail) - *c.khead }

// io_uring ABI constants (include/uapi/linux/io_uring.h).
const (
	iouSetupCQSize       = 1 << 3
	iouSetupClamp        = 1 << 4
	iouSetupRDisabled    = 1 << 6  // created disabled: IORING_REGISTER_ENABLE_RINGS starts it
	iouSetupCoopTaskrun  = 1 << 8  // Linux 5.19: completion work waits for the next kernel entry
	iouSetupTaskrunFlag  = 1 << 9  // Linux 5.19: IORING_SQ_TASKRUN tells that such work waits
	iouSetupSingleIssuer = 1 << 12 // Linux 6.0: one thread submits
	iouSetupDeferTaskrun = 1 << 13 // Linux 6.1: completion work runs only in io_uring_enter(GETEVENTS)

	iouFeatSingleMmap = 1 << 0
	iouFeatNoDrop     = 1 << 1
	iouFeatExtArg     = 1 << 8
	iouFeatCQESkip    = 1 << 11

	iouEnterGetEvents = 1 << 0
	iouEnterExtArg    = 1 << 3

	iouSQCQOverflow = 1 << 1 // sq flags: completions wait in the kernel's overflow list
	iouSQTaskrun    = 1 << 2 // sq flags: completion work waits for an io_uring_enter (TASKRUN_FLAG)

	iouOpPollAdd     = 6
	iouOpPollRemove  = 7
	iouOpAsyncCancel = 14

	iouSQECQESkipSuccess = 1 << 6

	iouCQEFMore = 1 << 1

	iouPollAddMulti = 1 << 0 // sqe.len of IORING_OP_POLL_ADD

	iouOffSQRing = 0
	iouOffCQRing = 0x8000000
	iouOffSQEs   = 0x10000000

	iouRegisterProbe       = 8
	iouRegisterEnableRings = 12
	iouOpSupported         = 1
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries    uint32
	cqEntries    uint32
	flags        uint32
	sqThreadCPU  uint32
	sqThreadIdle uint32
	features     uint32
	wqFD         uint32
	resv         [3]uint32
	sqOff        struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// getEventsArg is struct io_uring_getevents_arg (IORING_ENTER_EXT_ARG).
type getEventsArg struct {
	sigmask     uint64
	sigmaskSize uint32
	minWaitUsec uint32
	ts          uint64 // *unix.Timespec
}

// Compile-time checks of the ABI sizes.
var (
	_ [64 - unsafe.Sizeof(sqe{})]byte
	_ [unsafe.Sizeof(sqe{}) - 64]byte
	_ [16 - unsafe.Sizeof(cqe{})]byte
	_ [unsafe.Sizeof(cqe{}) - 16]byte
	_ [120 - unsafe.Sizeof(uringParams{})]byte
	_ [unsafe.Sizeof(uringParams{}) - 120]byte
	_ [24 - unsafe.Sizeof(getEventsArg{})]byte
	_ [unsafe.Sizeof(getEventsArg{}) - 24]byte
)

// newRing creates an io_uring with entries SQEs and cqEntries CQEs (both
// rounded up to powers of two, clamped to the kernel's maximum) and the
// IORING_SETUP_* flags setup, and maps it. The error wraps the system
// call's errno (EINVAL when the kernel does not know a flag).
func newRing(entries, cqEntries, setup uint32) (*ring, error) {
	if setup&uringRefuse != 0 {
		return nil, os.NewSyscallError("io_uring_setup", unix.EINVAL)
	}
	p := uringParams{flags: iouSetupCQSize | iouSetupClamp | setup, cqEntries: cqEntries}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, os.NewSyscallError("io_uring_setup", errno)
	}
	r := &ring{fd: int(fd), features: p.features, setup: setup}
	if err := r.mmap(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// lockedOSThread reports whether the calling goroutine is locked to its OS
// thread (runtime.LockOSThread); the runtime exports it for linkname.
//
//go:linkname lockedOSThread runtime.lockedOSThread
func lockedOSThread() bool

// uringRefuse is setup flags newRing fails with EINVAL, as a kernel that
// lacks them does; tests set it to exercise the fallbacks.
var uringRefuse uint32

// enable starts a ring created with IORING_SETUP_R_DISABLED
// (IORING_REGISTER_ENABLE_RINGS); with IORING_SETUP_SINGLE_ISSUER the
// calling thread becomes the only one that may enter it.
func (r *ring) enable() error {
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), iouRegisterEnableRings, 0, 0, 0, 0); errno != 0 {
		return os.NewSyscallError("io_uring_register(ENABLE_RINGS)", errno)
	}
	return nil
}

func (r *ring) mmap(p *uringParams) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	single := p.features&iouFeatSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	const prot, flags = unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_POPULATE
	if r.sqMem, err = unix.Mmap(r.fd, iouOffSQRing, sqSize, prot, flags); err != nil {
		return os.NewSyscallError("mmap io_uring SQ ring", err)
	}
	cqMem := r.sqMem
	if !single {
		if r.cqMem, err = unix.Mmap(r.fd, iouOffCQRing, cqSize, prot, flags); err != nil {
			return os.NewSyscallError("mmap io_uring CQ ring", err)
		}
		cqMem = r.cqMem
	}
	sqeSize := int(p.sqEntries) * int(unsafe.Sizeof(sqe{}))
	if r.sqeMem, err = unix.Mmap(r.fd, iouOffSQEs, sqeSize, prot, flags); err != nil {
		return os.NewSyscallError("mmap io_uring SQEs", err)
	}
	u32 := func(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	r.sq = sqRing{
		khead: u32(r.sqMem, p.sqOff.head),
		ktail: u32(r.sqMem, p.sqOff.tail),
		flags: u32(r.sqMem, p.sqOff.flags),
		mask:  *u32(r.sqMem, p.sqOff.ringMask),
		sqes:  unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries),
	}
	r.sq.local = atomic.LoadUint32(r.sq.ktail)
	array := unsafe.Slice(u32(r.sqMem, p.sqOff.array), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.cq = cqRing{
		khead: u32(cqMem, p.cqOff.head),
		ktail: u32(cqMem, p.cqOff.tail),
		mask:  *u32(cqMem, p.cqOff.ringMask),
		cqes:  unsafe.Slice((*cqe)(unsafe.Pointer(&cqMem[p.cqOff.cqes])), p.cqEntries),
	}
	if uint32(len(r.sq.sqes)) != r.sq.mask+1 || uint32(len(r.cq.cqes)) != r.cq.mask+1 {
		return fmt.Errorf("loop: io_uring ring sizes %d/%d do not match masks %#x/%#x",
			len(r.sq.sqes), len(r.cq.cqes), r.sq.mask, r.cq.mask)
	}
	return nil
}

// enter is io_uring_enter(2): it submits toSubmit entries and, with
// iouEnterGetEvents, waits for minComplete completions, for at most *ts if
// ts is not nil (IORING_ENTER_EXT_ARG). arg is caller-owned scratch, kept
// off the stack so the call's frame stays small.
//
// A call that cannot block (minComplete 0: it submits, runs completion
// work and returns) is made without telling the Go scheduler (RawSyscall,
// as raw_linux.go's reads and writes), and so is a blocking one with raw
// set: see uringPoller.wait for when that is sound.
func (r *ring) enter(toSubmit, minComplete, flags uint32, arg *getEventsArg, ts *unix.Timespec, raw bool) (int, unix.Errno) {
	var argp unsafe.Pointer
	var argSize uintptr
	if ts != nil {
		*arg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(ts)))}
		argp, argSize = unsafe.Pointer(arg), unsafe.Sizeof(*arg)
		flags |= iouEnterExtArg
	}
	r.enters++
	var n uintptr
	var errno unix.Errno
	if raw || minComplete == 0 {
		n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete),
			uintptr(flags), uintptr(argp), argSize)
	} else {
		n, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete),
			uintptr(flags), uintptr(argp), argSize)
	}
	return int(n), errno
}

// supports reports whether the kernel implements every opcode in ops
// (IORING_REGISTER_PROBE, Linux 5.6).
func (r *ring) supports(ops ...uint8) (bool, error) {
	var probe struct {
		lastOp, opsLen uint8
		_              uint16
		_              [3]uint32
		ops            [256]struct {
			op, _ uint8
			flags uint16
			_     uint32
		}
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), iouRegisterProbe,
		uintptr(unsafe.Pointer(&probe)), uintptr(len(probe.ops)), 0, 0)
	if errno != 0 {
		return false, os.NewSyscallError("io_uring_register(PROBE)", errno)
	}
	for _, op := range ops {
		if op > probe.lastOp || probe.ops[op].flags&iouOpSupported == 0 {
			return false, nil
		}
	}
	return true, nil
}

// close unmaps the rings and closes the ring's descriptor; the kernel then
// cancels every request still in flight.
func (r *ring) close() error {
	r.unmap()
	if r.fd < 0 {
		return nil // a deadRing
	}
	if err := unix.Close(r.fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// unmap unmaps the rings; the ring lives on until its descriptor is closed.
func (r *ring) unmap() {
	for _, m := range [][]byte{r.sqeMem, r.cqMem, r.sqMem} {
		if m != nil {
			unix.Munmap(m)
		}
	}
	r.sqeMem, r.cqMem, r.sqMem = nil, nil, nil
	r.sq, r.cq = sqRing{}, cqRing{}
}

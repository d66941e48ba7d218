//go:build linux && !cogen_netpoll

package loop

import (
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Completion I/O on the io_uring poller (see compConn in comp.go).
//
// Receive. Each fd in completion mode has at most one IORING_OP_RECV in
// flight, with IOSQE_BUFFER_SELECT: the kernel picks a buffer from the
// provided-buffer ring (bufRing, IORING_REGISTER_PBUF_RING) when data
// arrives, so an idle connection holds no buffer, and the buffers are
// shared by all the loop's connections. The receive is single-shot and is
// started again once the reader has consumed the buffer: a connection
// holds at most one buffer, which bounds what one slow reader can take
// from the others. When the ring is dry the receive fails with ENOBUFS;
// the fd then falls back to readiness (cfRaw: a one-shot POLL_ADD, then
// read(2) into the caller's buffer until EAGAIN, when it tries the ring
// again), so no data waits for a buffer that another connection holds.
//
// Send. A write copies into the fd's send queue (compExt.out, then pend)
// and one IORING_OP_SEND per fd is in flight; its bytes stay where they
// are, referenced from the conn, until its completion. A short send is
// resubmitted for the rest; what was written meanwhile goes next, in order.
//
// User data of these requests: udComp | kind<<58 | gen<<32 | slot. The
// slot indexes conns and is not reused until every request of its conn
// has posted its last completion, so a completion never reaches another
// connection, whatever fd number that one has; gen is a check on top.
//
// Close. detach cancels the receive or poll in flight (by user data, so
// the request is found whatever happened to the fd number) and submits the
// cancellation at once: a receive holds a reference to the socket, which
// the peer would otherwise see open. Sends are not canceled: what a write
// accepted is sent, as the kernel sends what a write(2) left in the socket
// buffer after close(2); FD.Close leaves the fd to the poller, which closes
// it when the last send completes (or when the loop closes).
const (
	udComp   = 1 << 61
	compRecv = 0
	compSend = 1
	compPoll = 2
	compAcc  = 3 // a listener's multishot accept

	iouOpAccept        = 13
	iouAcceptMultishot = 1 << 0 // sqe.ioprio of IORING_OP_ACCEPT (Linux 5.19)
	iouOpSend          = 26
	iouOpRecv          = 27

	iouSQEBufferSelect = 1 << 5
	iouRecvMultishot   = 1 << 1 // sqe.ioprio of IORING_OP_RECV (Linux 6.0)
	iouCQEFBuffer      = 1 << 0
	iouCQEBufferShift  = 16

	iouRegisterPbufRing = 22

	compBufSize  = 2048
	compBufGroup = 0

	// compFreeMax bounds the send buffers of compFreeSize bytes kept for
	// reuse; compFreeBigMax the larger ones (a send of more than
	// compFreeSize bytes grows its buffer), of at most compFreeBigSize.
	compFreeMax     = 4096
	compFreeSize    = 512
	compFreeBigMax  = 64
	compFreeBigSize = 16 << 10
)

// bufRingReg is struct io_uring_buf_reg.
type bufRingReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	_           [3]uint64
}

// bufEntry is struct io_uring_buf; the ring's tail is the resv field of
// entry 0 (struct io_uring_buf_ring).
type bufEntry struct {
	addr uint64
	len  uint32
	bid  uint16
	resv uint16
}

// compBufCount is the number of provided buffers, of compBufSize bytes
// each, in one anonymous mapping that pages in as buffers are first used: a
// power of two, at most 32768. Tests lower it to run the ring dry.
var compBufCount = 16384

var (
	_ [40 - unsafe.Sizeof(bufRingReg{})]byte
	_ [unsafe.Sizeof(bufRingReg{}) - 40]byte
	_ [16 - unsafe.Sizeof(bufEntry{})]byte
	_ [unsafe.Sizeof(bufEntry{}) - 16]byte
)

// A bufRing is the provided-buffer ring: entries the kernel takes buffers
// from (its head is the kernel's), and the buffers. We publish buffers by
// storing the tail, once per loop iteration (compPublish, before each
// io_uring_enter: the kernel takes buffers in its receives' completion
// work, which a bound ring runs only inside the enter), not once per
// buffer given back: pub is the tail the kernel sees; out counts the buffers the kernel has handed to us
// (completions with IORING_CQE_F_BUFFER) and we have not given back, so
// the ring holds made-out and never overflows. Buffers are handed out
// made at a time, doubling when a quarter of them is left (grow): a
// loop that never has many receives completed at once touches only the
// first few pages of the mapping (a ring cycles through all the buffers
// it has, so handing all n out at once would page in all of them).
type bufRing struct {
	n    int // ring entries: the most buffers
	made int // buffers handed to the ring so far (bids 0..made-1); grows to n
	ring []bufEntry
	mem  []byte // ring, mapped
	bufs []byte // buffer memory, mapped
	tail uint16
	pub  uint16 // the tail last published
	out  int
}

func newBufRing(ringFD int) (*bufRing, error) {
	const prot, flags = unix.PROT_READ | unix.PROT_WRITE, unix.MAP_PRIVATE | unix.MAP_ANONYMOUS
	mem, err := unix.Mmap(-1, 0, compBufCount*int(unsafe.Sizeof(bufEntry{})), prot, flags)
	if err != nil {
		return nil, os.NewSyscallError("mmap buffer ring", err)
	}
	bufs, err := unix.Mmap(-1, 0, compBufCount*compBufSize, prot, flags)
	if err != nil {
		unix.Munmap(mem)
		return nil, os.NewSyscallError("mmap buffers", err)
	}
	b := &bufRing{n: compBufCount, mem: mem, bufs: bufs, ring: unsafe.Slice((*bufEntry)(unsafe.Pointer(&mem[0])), compBufCount)}
	reg := bufRingReg{ringAddr: uint64(uintptr(unsafe.Pointer(&mem[0]))), ringEntries: uint32(b.n), bgid: compBufGroup}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(ringFD), iouRegisterPbufRing,
		uintptr(unsafe.Pointer(&reg)), 1, 0, 0)
	if errno != 0 {
		b.unmap()
		return nil, os.NewSyscallError("io_uring_register(PBUF_RING)", errno)
	}
	b.grow(min(compBufFirst, b.n))
	return b, nil
}

// compBufFirst is how many buffers the ring starts with.
const compBufFirst = 64

// grow hands buffers made..made+k-1 to the ring, and reports whether
// there were any.
func (b *bufRing) grow(k int) bool {
	k = min(k, b.n-b.made)
	for i := range k {
		b.fill(uint16(b.made + i))
		b.out++ // fill counts a buffer coming back
	}
	b.made += k
	b.publish()
	return k > 0
}

// low reports whether the ring is short of buffers, and grows it if it
// can, up to limit buffers; it is false while buffers are left.
func (b *bufRing) low(limit int) bool {
	if b.made-b.out > b.made/4 {
		return false
	}
	if b.made < limit {
		b.grow(min(b.made, limit-b.made))
	}
	return b.out >= b.made
}

// compBufPerConn and compBufFloor bound the ring's growth: at most
// compBufPerConn buffers per connection in completion mode, and never
// fewer than compBufFloor, so that a few connections whose readers lag
// cannot page in the whole mapping (what a lagging reader's socket holds
// may all land in the ring before its receive is stopped).
const (
	compBufPerConn = 2
	compBufFloor   = 1024
)

// bufLimit is the most buffers the ring may have now.
func (p *uringPoller) bufLimit() int {
	return max(compBufFloor, compBufPerConn*p.live)
}

// fill puts buffer bid at the tail without publishing it.
func (b *bufRing) fill(bid uint16) {
	e := &b.ring[int(b.tail)&(b.n-1)]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.bufs[int(bid)*compBufSize])))
	e.len = compBufSize
	e.bid = bid
	b.tail++
	b.out--
}

// publish stores the tail if it moved since the last store. It is the upper half of the 32-bit word whose
// lower half is entry 0's bid, which only we write: one atomic store of
// the word orders the entries' writes before the tail (Go has no 16-bit
// atomic store).
func (b *bufRing) publish() {
	if b.pub == b.tail {
		return
	}
	w := (*uint32)(unsafe.Pointer(&b.ring[0].bid))
	atomic.StoreUint32(w, uint32(b.ring[0].bid)|uint32(b.tail)<<16)
	b.pub = b.tail
}

// put gives buffer bid back to the kernel, from the next compPublish on.
func (b *bufRing) put(bid uint16) { b.fill(bid) }

// compPublish publishes the buffers given back since the last call: the
// poller calls it before every io_uring_enter that submits or waits, so
// a buffer given back is the kernel's by the next receive the loop lets
// the kernel complete.
func (p *uringPoller) compPublish() {
	if p.bufs != nil {
		p.bufs.publish()
	}
}

// data is buffer bid's first n bytes.
func (b *bufRing) data(bid uint16, n int) []byte {
	off := int(bid) * compBufSize
	return b.bufs[off : off+n : off+compBufSize]
}

func (b *bufRing) unmap() {
	unix.Munmap(b.bufs)
	unix.Munmap(b.mem)
}

// completion returns p's completion I/O, or nil when the kernel lacks it.
func (p *uringPoller) completion() compPoller {
	if p.bufs == nil {
		return nil
	}
	return p
}

// initComp sets up completion I/O if the kernel has what it needs (RECV,
// SEND, provided-buffer rings: Linux 5.19); without it the poller serves
// readiness only.
func (p *uringPoller) initComp() {
	if ok, err := p.r.supports(iouOpRecv, iouOpSend); err != nil || !ok {
		return
	}
	b, err := newBufRing(p.r.fd)
	if err != nil {
		return
	}
	p.bufs, p.exts = b, []*compExt{&noExt}
}

func compData(c *compConn, kind uint64) uint64 {
	return udComp | kind<<58 | uint64(c.gen())<<32 | uint64(c.slot)
}

// compUDGen is the mask of the user data's generation field (bits 32-57),
// which holds every generation.
const compUDGen = 1<<26 - 1

var _ [compUDGen - compGenMax]byte

// compBlock is how many compConns one block of the poller's table holds:
// a block is one 1 KiB allocation.
const compBlock = 64

// conn is the compConn in slot, nil past the table.
func (p *uringPoller) conn(slot uint32) *compConn {
	if slot >= p.slots {
		return nil
	}
	return &p.conns[slot/compBlock][slot%compBlock]
}

func (p *uringPoller) attach(fd int) (*compConn, error) {
	if typ, err := sockType(fd); err != nil || typ != unix.SOCK_STREAM {
		return nil, errNotComp
	}
	c := p.newConn(fd)
	p.recv(c)
	return c, nil
}

func (p *uringPoller) attachAccept(fd int) (*compConn, error) {
	if typ, err := sockType(fd); err != nil || typ != unix.SOCK_STREAM {
		return nil, errNotComp
	}
	if on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || on == 0 {
		return nil, errNotComp
	}
	c := p.newConn(fd)
	c.set(cfAcceptor)
	if p.noAcceptMultishot {
		c.set(cfRaw)
		p.compPollAdd(c)
	} else {
		p.acceptArm(c)
	}
	return c, nil
}

// acceptArm submits c's multishot accept.
func (p *uringPoller) acceptArm(c *compConn) {
	e, err := p.sqe()
	if err != nil {
		c.set(cfRaw) // accept(2) reports what is wrong
		return
	}
	c.clr(cfRaw)
	e.opcode, e.ioprio, e.fd, e.userData = iouOpAccept, iouAcceptMultishot, c.fd, compData(c, compAcc)
	e.opFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC
	c.set(cfRecving)
}

func (p *uringPoller) acceptRaw(c *compConn) {
	if !p.noAcceptMultishot && !c.has(cfRecving) {
		p.acceptArm(c)
		return
	}
	if !c.has(cfPolling) {
		p.compPollAdd(c)
	}
}

// newConn takes a slot for fd.
func (p *uringPoller) newConn(fd int) *compConn {
	var slot uint32
	if n := len(p.freeSlots); n > 0 {
		slot = p.freeSlots[n-1]
		p.freeSlots = p.freeSlots[:n-1]
	} else {
		slot = p.slots
		if slot%compBlock == 0 {
			p.conns = append(p.conns, new([compBlock]compConn))
		}
		p.slots++
	}
	p.compGen = p.compGen%compGenMax + 1 // never 0: a free slot's
	c := p.conn(slot)
	*c = compConn{fd: int32(fd), slot: slot, st: p.compGen << compFlagBits}
	p.live++
	return c
}

// recv starts c's receive into a provided buffer, or, when none is left,
// waits for readiness (raw mode).
func (p *uringPoller) recv(c *compConn) {
	if p.bufs.low(p.bufLimit()) {
		c.set(cfRaw)
		p.compPollAdd(c)
		return
	}
	c.clr(cfRaw | cfStopping)
	e, err := p.sqe()
	if err != nil {
		c.set(cfRdone)
		p.ext(c).rerr = err
		return
	}
	e.opcode, e.flags, e.fd, e.bufIndex, e.userData = iouOpRecv, iouSQEBufferSelect, c.fd, compBufGroup, compData(c, compRecv)
	if !p.noMultishot {
		e.ioprio = iouRecvMultishot
	}
	c.set(cfRecving)
}

func (p *uringPoller) compPollAdd(c *compConn) {
	e, err := p.sqe()
	if err != nil {
		c.set(cfRdone)
		p.ext(c).rerr = err
		return
	}
	e.opcode, e.fd, e.opFlags, e.userData = iouOpPollAdd, c.fd, unix.POLLIN|unix.POLLRDHUP, compData(c, compPoll)
	c.set(cfPolling)
}

func (p *uringPoller) release(c *compConn) {
	x := p.x(c)
	if x == &noExt {
		return
	}
	if x.rbid >= 0 {
		p.bufs.put(uint16(x.rbid))
		x.rbid, x.rdata = -1, nil
	}
	if len(x.more) > 0 {
		x.rbid, x.rdata = x.more[0].bid, x.more[0].data
		n := copy(x.more, x.more[1:])
		x.more[n] = compChunk{}
		x.more = x.more[:n]
	}
	p.shed(c)
}

// The compExts in use are in exts, by index (compConn.xi); exts[0] is
// noExt, and freeXi lists the indices free for reuse, of which the first
// compExtPoolMax keep their compExt for the next connection (the pool).
// exts grows to the most connections that held one at once.

// compExtPoolMax bounds the compExts kept for reuse.
const compExtPoolMax = 1024

func (p *uringPoller) x(c *compConn) *compExt { return p.exts[c.xi] }

func (p *uringPoller) ext(c *compConn) *compExt {
	if c.xi != 0 {
		return p.exts[c.xi]
	}
	if n := len(p.freeXi); n > 0 {
		c.xi = p.freeXi[n-1]
		p.freeXi = p.freeXi[:n-1]
		if p.exts[c.xi] == nil {
			p.exts[c.xi] = &compExt{rbid: -1}
		}
	} else {
		c.xi = uint32(len(p.exts))
		p.exts = append(p.exts, &compExt{rbid: -1})
	}
	return p.exts[c.xi]
}

// shed gives c's compExt back to the pool if it holds nothing.
func (p *uringPoller) shed(c *compConn) {
	if c.xi == 0 {
		return
	}
	x := p.exts[c.xi]
	if !x.idle() {
		return
	}
	if len(p.freeXi) < compExtPoolMax {
		*x = compExt{more: x.more[:0], pend: x.pend, rbid: -1}
	} else {
		p.exts[c.xi] = nil
	}
	p.freeXi = append(p.freeXi, c.xi)
	c.xi = 0
}

// queue appends a received chunk to c's.
func (p *uringPoller) queue(c *compConn, bid int32, n int) {
	data := p.bufs.data(uint16(bid), n)
	x := p.ext(c)
	if x.rbid < 0 {
		x.rbid, x.rdata = int16(bid), data
		return
	}
	x.more = append(x.more, compChunk{int16(bid), data})
}

func (p *uringPoller) send(c *compConn) {
	e, err := p.sqe()
	if err != nil {
		p.ext(c).werr = err
		c.clr(cfSending)
		return
	}
	x := p.x(c)
	rest := x.out[x.outOff:]
	e.opcode, e.fd, e.addr, e.len = iouOpSend, c.fd, uint64(uintptr(unsafe.Pointer(&rest[0]))), uint32(len(rest))
	e.opFlags, e.userData = unix.MSG_NOSIGNAL, compData(c, compSend)
	c.set(cfSending)
}

func (p *uringPoller) enterCalls() uint64 { return p.r.enters }

// buf returns an empty send buffer for about size bytes: a recycled one
// (of compFreeSize bytes, or larger if size is and one is kept) or a new
// one. A buffer is recycled only once no send of it is in flight
// (dropSends, after its completion), so none is handed out twice.
func (p *uringPoller) buf(size int) []byte {
	if n := len(p.freeBig); size > compFreeSize && n > 0 {
		b := p.freeBig[n-1]
		p.freeBig[n-1] = nil
		p.freeBig = p.freeBig[:n-1]
		return b
	}
	if n := len(p.freeBufs); n > 0 {
		b := p.freeBufs[n-1]
		p.freeBufs = p.freeBufs[:n-1]
		return b
	}
	return make([]byte, 0, compFreeSize)
}

// dropSends recycles c's send buffers.
func (p *uringPoller) dropSends(c *compConn) {
	if x := p.x(c); x != &noExt {
		p.recycle(x.out)
		p.recycle(x.pend)
		x.out, x.pend, x.outOff = nil, nil, 0
		p.shed(c)
	}
}

func (p *uringPoller) recycle(b []byte) {
	switch c := cap(b); {
	case c == compFreeSize && len(p.freeBufs) < compFreeMax:
		p.freeBufs = append(p.freeBufs, b[:0])
	case c > compFreeSize && c <= compFreeBigSize && len(p.freeBig) < compFreeBigMax:
		p.freeBig = append(p.freeBig, b[:0])
	}
}

func (p *uringPoller) detach(c *compConn, closing bool) bool {
	c.set(cfClosed)
	p.live--
	// Input left unread: close(2) resets such a connection, discarding
	// what it had yet to send, so the sends are canceled, not waited for.
	unread := p.x(c).rbid >= 0 || c.has(cfStopping) && !c.has(cfRdone)
	abort := closing && c.has(cfSending) && unread
	if abort {
		p.abort(c)
	}
	if closing && unread {
		// The kernel would reset the connection: the input is gone from
		// its queue into ours, so say so with a zero linger.
		resetOnClose(int(c.fd))
	}
	for p.x(c).rbid >= 0 {
		p.release(c)
	}
	if c.has(cfRecving) {
		kind := uint64(compRecv)
		if c.has(cfAcceptor) {
			kind = compAcc
		}
		p.cancel(compData(c, kind))
	}
	if x := p.x(c); len(x.accepted) > 0 {
		for _, nfd := range x.accepted {
			unix.Close(int(nfd))
		}
		x.accepted = x.accepted[:0]
		p.shed(c)
	}
	if c.has(cfPolling) {
		p.cancel(compData(c, compPoll))
	}
	deferred := closing && c.has(cfSending) && !abort
	if deferred {
		c.set(cfCloseFD)
	}
	p.settle(c)
	if c.any(cfRecving|cfPolling) || abort {
		p.submit() // a request holds the socket open: see Close above
	}
	return deferred
}

// resetOnClose makes the close of fd reset the connection (SO_LINGER 0),
// as close(2) does for a socket with input unread.
func resetOnClose(fd int) {
	unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
}

// abort cancels c's sends: a close that does not wait for them (unread
// input), or one that waited compLinger in vain (then the connection is
// reset: its peer reads nothing, so a FIN would wait behind the data).
func (p *uringPoller) abort(c *compConn) {
	if c.has(cfSending) && !c.has(cfAborted) {
		c.set(cfAborted)
		if c.has(cfCloseFD) {
			resetOnClose(int(c.fd))
		}
		p.cancel(compData(c, compSend))
		p.submit()
	}
}

func (p *uringPoller) flush() { p.submit() }

// settle frees a closed conn's slot once nothing of it is in flight,
// closing its fd if FD.Close left that to the poller.
func (p *uringPoller) settle(c *compConn) {
	if !c.has(cfClosed) || c.any(cfRecving|cfPolling|cfSending) {
		return
	}
	if c.has(cfCloseFD) {
		c.clr(cfCloseFD)
		unix.Close(int(c.fd))
	}
	p.dropSends(c)
	if c.gen() != 0 {
		// Free the slot: c is zeroed (gen 0 matches no request) and
		// closed, for whoever still holds it (heldEvent, a linger timer:
		// they check the generation they knew). Its compExt, empty by
		// now, goes back to the pool.
		p.shedAll(c)
		slot := c.slot
		*c = compConn{slot: slot, st: cfClosed}
		p.freeSlots = append(p.freeSlots, slot)
	}
}

// shedAll gives back c's compExt whatever it still holds (errors, the
// end of the stream): c is settled and nobody reads them any more.
func (p *uringPoller) shedAll(c *compConn) {
	if c.xi == 0 {
		return
	}
	x := p.exts[c.xi]
	x.rerr, x.werr = nil, nil
	p.shed(c)
	if c.xi != 0 {
		panic("loop: settled compConn holds data")
	}
}

// completeComp handles the completion of a completion-I/O request.
func (p *uringPoller) completeComp(cq *cqe) {
	slot, gen, kind := uint32(cq.userData), uint32(cq.userData>>32&compUDGen), cq.userData>>58&3
	bid := int32(-1)
	if cq.flags&iouCQEFBuffer != 0 {
		bid = int32(cq.flags >> iouCQEBufferShift)
		p.bufs.out++
		p.bufs.low(p.bufLimit()) // grow before the ring runs dry
	}
	c := p.conn(slot)
	if c == nil || c.gen() != gen {
		// Not expected: slots outlive their requests.
		if bid >= 0 {
			p.bufs.put(uint16(bid))
		}
		if kind == compAcc && cq.res >= 0 {
			unix.Close(int(cq.res))
		}
		return
	}
	switch kind {
	case compAcc:
		p.completeAccept(c, cq)
	case compRecv:
		if cq.flags&iouCQEFMore == 0 {
			c.clr(cfRecving | cfStopping) // the receive has ended
		}
		if c.has(cfClosed) {
			if bid >= 0 {
				p.bufs.put(uint16(bid))
			}
			p.settle(c)
			return
		}
		switch res := cq.res; {
		case res > 0 && bid >= 0:
			p.queue(c, bid, int(res))
			if c.has(cfRecving) && !c.has(cfStopping) && len(p.x(c).more)+1 >= compMaxChunks {
				c.set(cfStopping) // the reader lags: stop taking buffers
				p.cancel(compData(c, compRecv))
			}
		case res == -int32(unix.ECANCELED):
			// Stopped for holding too many chunks (or by a cancellation
			// that outlived the receive it was meant for): start again
			// if the reader has consumed them meanwhile.
			if p.x(c).rbid < 0 && !c.has(cfRecving) {
				p.recv(c)
			}
			return
		case res == -int32(unix.ENOBUFS):
			p.recv(c) // grows the ring, or falls back to readiness
			return
		case res == -int32(unix.EINVAL) && !p.noMultishot:
			p.noMultishot = true // a kernel without multishot receive (Linux 6.0)
			p.recv(c)
			return
		case res == -int32(unix.EINTR) || res == -int32(unix.EAGAIN):
			p.recv(c)
			return
		default:
			if bid >= 0 {
				p.bufs.put(uint16(bid))
			}
			c.set(cfRdone)
			if res < 0 {
				p.ext(c).rerr = os.NewSyscallError("recv", unix.Errno(-res))
			}
		}
		if !c.any(cfRecving|cfRdone|cfStopping) && p.x(c).rbid < 0 {
			p.recv(c) // a multishot receive the kernel ended (a full completion queue)
		}
		p.compNotify(c, EventIn)
	case compPoll:
		c.clr(cfPolling)
		if c.has(cfClosed) {
			p.settle(c)
			return
		}
		p.compNotify(c, EventIn)
	case compSend:
		x := p.x(c)
		if cq.res < 0 || cq.res == 0 && int(x.outOff) < len(x.out) {
			c.clr(cfSending)
			x = p.ext(c)
			if cq.res < 0 {
				x.werr = os.NewSyscallError("send", unix.Errno(-cq.res))
			} else {
				x.werr = os.NewSyscallError("send", unix.EPIPE)
			}
			x.pend = x.pend[:0]
			if c.has(cfClosed) {
				p.settle(c)
				return
			}
			p.compNotify(c, EventOut|EventErr)
			return
		}
		x.outOff += cq.res
		switch {
		case c.has(cfAborted) || c.has(cfClosed) && !c.has(cfCloseFD):
			// Canceled, or the fd is no longer ours to send on.
			c.clr(cfSending)
			p.dropSends(c)
			p.settle(c)
			return
		case int(x.outOff) < len(x.out):
			p.send(c) // the rest of a short send
			return
		case len(x.pend) > 0 && (!c.has(cfClosed) || c.has(cfCloseFD)):
			x.out, x.pend, x.outOff = x.pend, x.out[:0], 0
			p.send(c)
		default:
			c.clr(cfSending)
			x.outOff = 0
			p.dropSends(c)
			if c.has(cfShutWR) && (!c.has(cfClosed) || c.has(cfCloseFD)) {
				c.clr(cfShutWR)
				unix.Shutdown(int(c.fd), unix.SHUT_WR)
			}
			if c.has(cfClosed) {
				p.settle(c)
				return
			}
		}
		if !c.has(cfClosed) {
			p.compNotify(c, EventOut)
		}
	}
}

// completeAccept handles a completion of c's multishot accept: a
// connection for the queue (closed at once if c is), or its end.
func (p *uringPoller) completeAccept(c *compConn, cq *cqe) {
	if cq.flags&iouCQEFMore == 0 {
		c.clr(cfRecving)
	}
	if cq.res >= 0 {
		if c.has(cfClosed) {
			unix.Close(int(cq.res))
		} else {
			x := p.ext(c)
			x.accepted = append(x.accepted, cq.res)
		}
	} else if cq.res == -int32(unix.EINVAL) && !c.has(cfRecving) {
		p.noAcceptMultishot = true // a kernel without multishot accept
	}
	if c.has(cfClosed) {
		p.settle(c)
		return
	}
	if !c.has(cfRecving) && cq.res != -int32(unix.ECANCELED) {
		// Ended (an error, or a full completion queue): the next
		// TryAccept calls accept(2), which reports the error or takes
		// what is there, and arms the accept again (acceptRaw).
		c.set(cfRaw)
	}
	p.compNotify(c, EventIn)
}

// compNotify reports ev on c's fd to the loop (or keeps it for the next
// wait when reaped outside one).
func (p *uringPoller) compNotify(c *compConn, ev Events) {
	if p.fn == nil {
		p.held = append(p.held, heldEvent{fd: int(c.fd), gen: c.gen(), ev: ev, c: c})
		return
	}
	p.n++
	p.fn(int(c.fd), ev)
}

// closeComp closes the fds FD.Close left to the poller; the ring's close
// has ended their sends.
func (p *uringPoller) closeComp() {
	for slot := range p.slots {
		c := p.conn(slot)
		if c.gen() != 0 && c.has(cfCloseFD) {
			c.clr(cfCloseFD)
			unix.Close(int(c.fd))
		}
		if x := p.x(c); c.gen() != 0 && len(x.accepted) > 0 {
			for _, nfd := range x.accepted {
				unix.Close(int(nfd))
			}
			x.accepted = x.accepted[:0]
		}
	}
	p.conns, p.freeSlots, p.slots = nil, nil, 0
	if p.bufs != nil {
		p.bufs.unmap()
		p.bufs = nil
	}
}

// An idle connection in completion mode holds its compConn, in the
// poller's table, and nothing else (its compExt is shed): keep it at 16
// bytes (TestCompConnSize).
var _ [16 - unsafe.Sizeof(compConn{})]byte

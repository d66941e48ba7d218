//lint:file-ignore U1000 the io_uring backend (uring_comp_linux.go) uses these fields; builds without it (the cogen_netpoll tag, other platforms) keep the type for the loop core

package loop

import (
	"errors"
	"time"
)

// Completion mode. An fd registered with [Loop.RegisterCompletion] on a
// backend that has completion I/O (io_uring) is not read and written with
// read(2) and write(2) after readiness: the loop keeps a receive in flight
// that fills a buffer of its own (from a ring of buffers it shares with the
// kernel), and sends from a copy of what was written. TryRead and
// TryReadStream copy from the received buffer; TryWrite copies into the
// send queue and returns, and the send is submitted with the iteration's
// other requests, in the same io_uring_enter that waits for completions.
// On other backends RegisterCompletion is Register.
//
// compConn is that state, kept by the loop core (comp_unix.go) and the
// backend (its compPoller) together; only the loop goroutine touches it.
//
// Invariants:
//   - rdata is non-empty only while rbid names the provided buffer that
//     holds it, and more holds the chunks received after it, in order;
//     a buffer goes back to the ring (release) when its bytes are consumed
//     or the fd is unregistered, never while rdata still points into it.
//   - at most one receive (cfRecving: multishot, so it stays in flight
//     across completions) and one send (cfSending) are in flight; a send's
//     buffer (out) is not touched until its completion, so pend collects
//     what is written meanwhile, sent in order after it.
//   - a connection holds at most about compMaxChunks buffers: past that
//     its receive is canceled (cfStopping), and started again once the
//     reader has consumed them.
//   - cfClosed is set once, by detach; completions for a closed conn only
//     settle its bookkeeping (a late buffer is released), never reach an FD.
//   - an idle connection (nothing received, nothing to send, no error)
//     holds no compExt (xi 0, which reads as noExt): its whole state is
//     these 16 bytes, in the poller's table (keep it so: compConn is
//     that table's element for every connection in completion mode).
type compConn struct {
	xi   uint32 // c's compExt: its index in the poller's table; 0 for none (noExt)
	fd   int32
	slot uint32 // the backend's handle, with gen
	st   uint32 // gen<<compFlagBits | the cf flags
}

// The flags of compConn.st.
const (
	cfRecving  = 1 << iota // a receive (or a listener's accept) is in flight
	cfStopping             // the receive is being canceled: too many chunks held
	cfPolling              // a readiness poll is in flight (raw mode)
	cfRaw                  // the buffer ring ran dry: reads are read(2) until EAGAIN
	cfSending              // a send is in flight
	cfClosed               // detached from its FD
	cfRdone                // the stream ended: reads return rerr (or 0) from now on
	cfAcceptor             // a listener's (RegisterAccept): its request is a multishot accept
	cfCloseFD              // close fd when the last send completes (FD.Close with sends in flight)
	cfShutWR               // shutdown(SHUT_WR) when the last send completes (ShutdownWrite)
	cfAborted              // the sends are canceled (a close that does not wait, or compLinger)

	compFlagBits = 12
	// compGenMax is the largest generation: gen takes the bits of st
	// above the flags. Generations come from one counter per poller, so
	// one recurs after about a million connections; who holds a compConn
	// past its FD (a linger timer, a held event) checks cfClosed as well.
	compGenMax = 1<<(32-compFlagBits) - 1
)

// Every flag fits below compFlagBits.
var _ [1<<compFlagBits - cfAborted<<1]byte

// has reports whether every flag of f is set on c.
func (c *compConn) has(f uint32) bool { return c.st&f == f }

// any reports whether some flag of f is set on c.
func (c *compConn) any(f uint32) bool { return c.st&f != 0 }

func (c *compConn) set(f uint32) { c.st |= f }
func (c *compConn) clr(f uint32) { c.st &^= f }

// gen is c's generation: never 0 while the slot is c's.
func (c *compConn) gen() uint32 { return c.st >> compFlagBits }

// compExt is the part of a compConn that an idle connection does not
// need: received bytes, sends, errors. A connection takes one from its
// poller's table when it has something to keep (compPoller.ext) and gives
// it back once everything is empty again (shed), so that an idle
// connection holds only its compConn. Every write to it goes through ext;
// a read through noExt (compPoller.x) sees empty fields.
type compExt struct {
	rdata    []byte      // unread bytes of the received chunk
	out      []byte      // the in-flight send's bytes; out[outOff:] not yet sent
	more     []compChunk // chunks received after rdata's
	pend     []byte      // written while out was in flight
	rerr     error       // with cfRdone: the error that ended the stream (nil: end of file)
	werr     error       // a send's error, returned by the next write
	accepted []int32     // a listener's (cfAcceptor): connections accepted, not yet taken
	outOff   int32
	rbid     int16 // the provided buffer holding rdata; -1 for none
}

// noExt is every compConn's compExt while it has nothing to keep.
var noExt = compExt{rbid: -1}

// idle reports whether x holds nothing (shed may give it back).
func (x *compExt) idle() bool {
	return x.rbid < 0 && len(x.rdata) == 0 && x.out == nil && len(x.more) == 0 && len(x.pend) == 0 &&
		x.rerr == nil && x.werr == nil && len(x.accepted) == 0
}

// A compChunk is a received chunk waiting behind rdata.
type compChunk struct {
	bid  int16
	data []byte
}

// buffered is how many received bytes x holds.
func (x *compExt) buffered() int {
	n := len(x.rdata)
	for _, k := range x.more {
		n += len(k.data)
	}
	return n
}

// compMaxChunks is how many received chunks a connection may hold before
// its receive is stopped.
const compMaxChunks = 4

// compLinger bounds how long FD.Close's deferred close waits for the sends
// in flight (a peer that reads nothing would hold the descriptor for
// ever): then they are canceled and the descriptor closed.
var compLinger = 5 * time.Second

// compLingerFor arms c's linger timer after a deferred close.
func (l *Loop) compLingerFor(c *compConn) {
	t := new(Timer)
	gen := c.gen() // c's slot may serve another connection by then
	l.Reset(t, compLinger, func() {
		if c.gen() == gen && c.has(cfClosed) {
			l.comp.abort(c)
		}
	})
}

// compSendLimit is how many bytes may wait to be sent (pend) before a
// write waits for a send to complete.
const compSendLimit = 64 << 10

// A compPoller is a poller with completion I/O; its methods run on the
// loop goroutine and queue requests that the next wait submits.
//
//   - attach takes fd into completion mode, starts its receive and
//     returns its compConn, which lives in the poller's table: its slot
//     serves another connection once c is closed and nothing of it is in
//     flight, so whoever keeps c past its FD checks the gen it knew;
//   - recv starts a receive into a provided buffer (or, when the ring is
//     dry, a readiness poll: cfRaw);
//   - release gives c.rbid back to the ring and moves the next chunk of
//     more, if any, into rdata;
//   - send submits out[outOff:];
//   - detach ends c (cfClosed): it cancels the receive or poll in flight and
//     releases the buffer held; with closing set and a send in flight, it
//     keeps the fd open until the sends complete and closes it then, and
//     reports deferred, unless c holds input nobody read: then, as
//     close(2) would reset the connection, it cancels the sends;
//   - abort cancels c's sends (compLinger);
//   - ext returns c's own compExt, taking one from the pool if c has none;
//     x returns c's compExt for reading: noExt if c has none.
type compPoller interface {
	ext(c *compConn) *compExt
	x(c *compConn) *compExt
	attach(fd int) (*compConn, error)
	// attachAccept is attach for a listening socket: a multishot accept
	// queues the connections in accepted; acceptRaw (cfRaw) falls back
	// to readiness after accept(2) found none, and arms the accept again
	// when the kernel has it.
	attachAccept(fd int) (*compConn, error)
	acceptRaw(c *compConn)
	recv(c *compConn)
	release(c *compConn)
	send(c *compConn)
	detach(c *compConn, closing bool) (deferred bool)
	abort(c *compConn)
	buf(size int) []byte // an empty send buffer for about size bytes, for out or pend
	recycle(b []byte)    // keeps b, a send buffer no send uses any more, for buf
	flush()              // submit what is queued, without waiting
}

// errNotComp is attach's refusal of an fd it cannot serve (not a stream
// socket): the fd is registered for readiness instead.
var errNotComp = errors.New("loop: fd not eligible for completion I/O")

// compTake moves up to len(p) received bytes of c into p, across chunks;
// each consumed buffer goes back to the ring, and once none is held and
// the receive has ended, the next one starts.
func (l *Loop) compTake(c *compConn, p []byte) int {
	n := 0
	for x := l.comp.x(c); n < len(p) && len(x.rdata) > 0; x = l.comp.x(c) {
		m := copy(p[n:], x.rdata)
		x.rdata = x.rdata[m:]
		n += m
		if len(x.rdata) == 0 {
			l.comp.release(c)
		}
	}
	if !c.any(cfRdone|cfRecving|cfPolling) && len(l.comp.x(c).rdata) == 0 {
		l.comp.recv(c)
	}
	return n
}

// compFlush submits the requests the iteration queued, so that they do not
// wait for the next one (Run and RunOnce call it before returning).
func (l *Loop) compFlush() {
	if l.comp != nil && !l.closed {
		l.comp.flush()
	}
}

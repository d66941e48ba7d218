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
//   - at most one receive (recving: multishot, so it stays in flight
//     across completions) and one send (sending) are in flight; a send's
//     buffer (out) is not touched until its completion, so pend collects
//     what is written meanwhile, sent in order after it.
//   - a connection holds at most about compMaxChunks buffers: past that
//     its receive is canceled (stopping), and started again once the
//     reader has consumed them.
//   - closed is set once, by detach; completions for a closed conn only
//     settle its bookkeeping (a late buffer is released), never reach an FD.
type compConn struct {
	*compExt // the transient state; noExt, shared and empty, while idle

	fd       int32
	slot     uint32 // the backend's handle, with gen
	gen      uint32 // never 0 while the slot is c's
	rbid     int16  // the provided buffer holding rdata; -1 for none
	rdone    bool   // the stream ended: reads return rerr (or 0) from now on
	recving  bool   // a receive is in flight
	stopping bool   // the receive is being canceled: too many chunks held
	polling  bool   // a readiness poll is in flight (raw mode)
	raw      bool   // the buffer ring ran dry: reads are read(2) until EAGAIN
	sending  bool
	closed   bool // detached from its FD
	closeFD  bool // close fd when the last send completes (FD.Close with sends in flight)
	shutWR   bool // shutdown(SHUT_WR) when the last send completes (ShutdownWrite)
	aborted  bool // the sends are canceled (a close that does not wait, or compLinger)
}

// compExt is the part of a compConn that an idle connection does not
// need: received bytes, sends, errors. A connection takes one from its
// poller's pool when it has something to keep (compPoller.ext) and gives
// it back once everything is empty again (shed), so that an idle
// connection holds only its 32-byte compConn. Every write to it goes
// through ext; a read through noExt sees empty fields.
type compExt struct {
	rdata    []byte      // unread bytes of the received chunk
	out      []byte      // the in-flight send's bytes; out[outOff:] not yet sent
	more     []compChunk // chunks received after rdata's
	pend     []byte      // written while out was in flight
	rerr     error       // with rdone: the error that ended the stream (nil: end of file)
	werr     error       // a send's error, returned by the next write
	accepted []int32     // a listener's (compAcceptor): connections accepted, not yet taken
	outOff   int32
}

// compAcceptor is the rbid of a listener's compConn (RegisterAccept): its
// request in flight is a multishot accept, not a receive.
const compAcceptor = -2

// noExt is every compConn's compExt while it has nothing to keep.
var noExt compExt

// idle reports whether x holds nothing (shed may give it back).
func (x *compExt) idle() bool {
	return len(x.rdata) == 0 && x.out == nil && len(x.more) == 0 && len(x.pend) == 0 &&
		x.rerr == nil && x.werr == nil && len(x.accepted) == 0
}

// A compChunk is a received chunk waiting behind rdata.
type compChunk struct {
	bid  int16
	data []byte
}

// buffered is how many received bytes c holds.
func (c *compConn) buffered() int {
	n := len(c.rdata)
	for _, k := range c.more {
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
	gen := c.gen // c's slot may serve another connection by then
	l.Reset(t, compLinger, func() {
		if c.gen == gen {
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
//     dry, a readiness poll: c.raw);
//   - release gives c.rbid back to the ring and moves the next chunk of
//     more, if any, into rdata;
//   - send submits out[outOff:];
//   - detach ends c (closed): it cancels the receive or poll in flight and
//     releases the buffer held; with closing set and a send in flight, it
//     keeps the fd open until the sends complete and closes it then, and
//     reports deferred, unless c holds input nobody read: then, as
//     close(2) would reset the connection, it cancels the sends;
//   - abort cancels c's sends (compLinger);
//   - ext returns c's own compExt, taking one from the pool if c has none.
type compPoller interface {
	ext(c *compConn) *compExt
	attach(fd int) (*compConn, error)
	// attachAccept is attach for a listening socket: a multishot accept
	// queues the connections in accepted; acceptRaw (c.raw) falls back
	// to readiness after accept(2) found none, and arms the accept again
	// when the kernel has it.
	attachAccept(fd int) (*compConn, error)
	acceptRaw(c *compConn)
	recv(c *compConn)
	release(c *compConn)
	send(c *compConn)
	detach(c *compConn, closing bool) (deferred bool)
	abort(c *compConn)
	buf() []byte // an empty send buffer, for out or pend
	flush()      // submit what is queued, without waiting
}

// errNotComp is attach's refusal of an fd it cannot serve (not a stream
// socket): the fd is registered for readiness instead.
var errNotComp = errors.New("loop: fd not eligible for completion I/O")

// compTake moves up to len(p) received bytes of c into p, across chunks;
// each consumed buffer goes back to the ring, and once none is held and
// the receive has ended, the next one starts.
func (l *Loop) compTake(c *compConn, p []byte) int {
	n := 0
	for n < len(p) && len(c.rdata) > 0 {
		m := copy(p[n:], c.rdata)
		c.rdata = c.rdata[m:]
		n += m
		if len(c.rdata) == 0 {
			l.comp.release(c)
		}
	}
	if len(c.rdata) == 0 && !c.rdone && !c.recving && !c.polling {
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

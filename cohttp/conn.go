//go:build unix

package cohttp

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// A conn is one connection of a Server: its buffers and the state of the
// request being read. step advances it as far as the bytes at hand allow;
// the coroutine (or task) around it only reads, writes and closes.
type conn struct {
	s          *Server
	fd         int
	buf        []byte // read buffer: buf[start:end] is not consumed yet
	start, end int
	scan       int    // the search for the head's end resumes at start+scan
	checked    int    // the lines of an unfinished head checked so far end at start+checked
	lines      int    // and are this many
	out        []byte // responses not written yet
	scratch    []byte // folded header values
	h          head
	phase      uint8
	lastPOST   bool
	deadline   time.Duration // of the current read phase on the loop's clock; <0: none
	stamp      time.Duration // the loop's clock at the end of the step's last response, if stamped (see now)
	stamped    bool
	reqEnd     time.Duration // the ReadTimeout deadline of the request being read; <0: none
	reserved   int           // bytes of the server's body budget this connection holds
	need       int64         // the budget its whole body needs, while it holds part of it (Server.needs)
	whole      bool          // its buffer holds its whole body (counted in Server.wholeHeld)
	eof        bool          // the client closed its side
	failed     bool          // a read failed (timeout, reset): close without answering
	timedOut   bool          // the failure was the read deadline's
	bodyStart  int
	bodyEnd    int
	consumed   int // where the request being answered ends in buf
	dc         dechunker
	req        Request
	w          ResponseWriter
	recoverer  func(next func()) // see recoverCall
	task       *stackless.Task   // the connection's task once a WaitHandler has run on it, for the guard
	// waitKey is the guard's key of the connection's WaitHandler: the
	// address of c (stackful) or of task (stackless), as a traceback prints
	// the receiver of runWaiting or Task.Run. unsafe.Pointer is needed to
	// read an address as a number, and safe: the key is only compared with
	// numbers parsed from tracebacks, never turned back into a pointer, and
	// the guard's map holds c itself, so the object stays alive (and Go's
	// heap objects do not move).
	waitKey uintptr
}

// Phases of a connection.
const (
	phNew     = iota // before the first byte of the first request: the read-header time runs from the accept
	phIdle           // after a response: waiting for 4 bytes within the idle timeout, as net/http
	phHead           // reading a head within the read-header timeout
	phBody           // reading a body within the read timeout
	phHandler        // a WaitHandler has the request: serveConn returned for it to run
)

// Actions step asks of the coroutine.
const (
	actRead    = iota // write out (if not empty), then read into buf[end:] until the deadline
	actClose          // write out (if not empty) and close
	actLinger         // write out, half-close, read and discard for up to 500 ms, close
	actWrite          // write out, then step again: pipelined answers piled up
	actBudget         // write out, then wait for the body budget (Server.bodyFreed) until the deadline
	actHandOff        // write out, then return: the connection's WaitHandler is to run (phHandler)
)

// maxPending bounds the answers step piles up before they are written: a
// client pipelining a buffer full of small requests, and not reading,
// costs the server this much and its buffer, not an answer per request.
const maxPending = 64 << 10

const initialBuffer = 4 << 10

func newConn(s *Server, fd int) *conn {
	c := &conn{s: s, fd: fd, buf: make([]byte, initialBuffer)}
	c.req.c = c
	c.startRequest()
	return c
}

// startRequest starts the clocks of a request: the read-header timeout
// and the read timeout, which bounds head and body together (one clock
// read for both).
func (c *conn) startRequest() {
	now, lim := c.now(), &c.s.lim
	c.reqEnd, c.deadline = -1, -1
	if lim.ReadTimeout >= 0 {
		c.reqEnd = now + lim.ReadTimeout
	}
	if lim.ReadHeaderTimeout >= 0 {
		c.deadline = now + lim.ReadHeaderTimeout
	}
	c.deadline = earliest(c.deadline, c.reqEnd)
}

// earliest returns the earlier of two deadlines (<0: none).
func earliest(a, b time.Duration) time.Duration {
	if a < 0 || b >= 0 && b < a {
		return b
	}
	return a
}

// after returns the deadline d from now on the loop's clock (<0: none).
func (c *conn) after(d time.Duration) time.Duration {
	if d < 0 {
		return -1
	}
	return c.now() + d
}

// now returns the loop's clock as of the end of the last response of this
// step, if there was one (stamped), else reads it: in a step, the idle
// deadline, the next pipelined request's clocks and the Date header share
// one reading, taken after the handler ran. step clears stamped as it
// begins, so no reading outlives a wait.
func (c *conn) now() time.Duration {
	if !c.stamped {
		return c.s.l.Now()
	}
	return c.stamp
}

// timeout returns what is left of the current deadline (<0: none).
func (c *conn) timeout() time.Duration {
	if c.deadline < 0 {
		return -1
	}
	return max(c.deadline-c.s.l.Now(), 0)
}

// idle reports whether the connection waits for a request that has not
// begun: closing it loses nothing.
func (c *conn) idle() bool {
	return (c.phase == phNew || c.phase == phIdle) && c.end == c.start
}

// got records the outcome of a read of n bytes into buf[end:].
func (c *conn) got(n int, err error) {
	switch {
	case err != nil:
		c.failed = true
		c.timedOut = errors.Is(err, loop.ErrTimeout)
	case n == 0:
		c.eof = true
	default:
		c.end += n
	}
}

func (c *conn) bytes(s span) []byte {
	if s.scratch {
		return c.scratch[s.off : s.off+s.n]
	}
	return c.buf[s.off : s.off+s.n]
}

// fail answers e and ends the connection.
func (c *conn) fail(e *Error) uint8 {
	c.out = e.AppendResponse(c.out)
	if e == errTooLarge || e == errBodyTooLarge || e == errRequestTimeout { // the client may still be sending
		return actLinger
	}
	return actClose
}

// step advances the connection over the bytes at hand: requests complete
// in the buffer are answered (into out), until more bytes are needed
// (actRead) or the connection is to end.
func (c *conn) step() uint8 {
	lim := &c.s.lim
	c.s.guard.busy()
	c.stamped = false
	for {
		switch c.phase {
		case phNew, phIdle:
			need := 1
			if c.phase == phIdle {
				need = 4
			}
			if c.end-c.start >= need {
				if c.phase == phIdle {
					c.startRequest()
				}
				c.phase = phHead
				if c.lastPOST { // RFC 7230 section 3: tolerance for old buggy clients
					for i := 0; i < 4 && c.start < c.end && (c.buf[c.start] == '\r' || c.buf[c.start] == '\n'); i++ {
						c.start++
					}
				}
				continue
			}
			if c.eof || c.failed || c.s.draining && c.end == c.start {
				return actClose // as net/http, even with 1 to 3 bytes of a request
			}
			return actRead
		case phHead:
			n, next := headEnd(c.buf[c.start:c.end], c.scan)
			c.scan = next
			if n == 0 && !prefixOK(c.buf[c.start:c.end], &c.checked, &c.lines) {
				return c.fail(errBadRequest) // net/http fails on a bad line at once
			}
			if n == 0 || n > lim.headLimit() {
				switch {
				case c.end-c.start >= lim.headLimit():
					return c.fail(errTooLarge)
				case c.failed || c.eof && c.end == c.start:
					return actClose
				case c.eof:
					return c.fail(errBadRequest) // the head was cut short
				}
				return actRead
			}
			if e := parseHead(c.buf[c.start:c.start+n], c.start, &c.h, &c.scratch); e != nil {
				return c.fail(e)
			}
			if c.h.expect == expectOther {
				return c.fail(errExpectationBad)
			}
			c.bodyStart, c.bodyEnd = c.start+n, c.start+n
			if lim.MaxBodyBytes >= 0 && c.h.length > lim.MaxBodyBytes {
				return c.fail(errBodyTooLarge)
			}
			if c.h.length < 0 {
				c.dc = dechunker{r: c.bodyStart, w: c.bodyStart}
			}
			if c.h.expect == expectContinue && c.h.minor >= 1 && c.h.length != 0 {
				c.out = append(c.out, "HTTP/1.1 100 Continue\r\n\r\n"...)
			}
			c.phase, c.deadline = phBody, c.reqEnd
		case phBody:
			var consumed int
			if c.h.length >= 0 {
				end := c.bodyStart + int(c.h.length)
				if c.end < end {
					if c.eof || c.failed {
						return c.fail(c.readError())
					}
					return c.bodyRoom(end)
				}
				c.bodyEnd, consumed = end, end
			} else {
				done, ok := c.dc.decode(c.buf, c.end)
				switch {
				case !ok:
					return c.fail(errBadRequest)
				case lim.MaxBodyBytes >= 0 && int64(c.dc.w-c.bodyStart) > lim.MaxBodyBytes:
					return c.fail(errBodyTooLarge)
				case !done && (c.eof || c.failed):
					return c.fail(c.readError())
				case !done:
					return c.chunkRoom()
				}
				c.bodyEnd, consumed = c.dc.w, c.dc.r
			}
			c.consumed = consumed
			if c.handle() {
				c.phase = phHandler
				return actHandOff
			}
			fallthrough
		case phHandler:
			closing := c.respond()
			c.phase = phIdle // not phHandler: the connection's WaitHandler has run
			c.lastPOST = string(c.bytes(c.h.method)) == http.MethodPost
			c.start, c.scan, c.checked, c.lines = c.consumed, 0, 0, 0
			if closing {
				return actClose
			}
			c.deadline = c.after(lim.IdleTimeout)
			if len(c.out) >= maxPending {
				return actWrite
			}
		}
	}
}

// room makes space to read into between requests and in a head: buf[end:]
// is not empty afterwards. The unconsumed bytes move to the front, and a
// buffer grown by a large request shrinks back, giving back its part of
// the body budget. (In a body, step has made the room: bodyRoom,
// chunkRoom.)
func (c *conn) room() {
	if c.phase == phBody {
		return
	}
	if c.start > 0 && (c.end == len(c.buf) || c.start == c.end) || c.reserved > 0 {
		n := c.end - c.start
		old := c.buf
		if len(c.buf) > 16*initialBuffer && n < initialBuffer || c.reserved > 0 {
			c.buf = make([]byte, max(initialBuffer, n)) // a large request is over
			c.release()
		}
		copy(c.buf, old[c.start:c.end])
		c.start, c.end = 0, n
	}
	if c.end == len(c.buf) {
		c.grow(min(2*len(c.buf), c.s.lim.headLimit()+initialBuffer))
	}
}

// bodyRoom makes room for a body that ends at end in the buffer: once
// the buffer is full, it grows, within the body budget (growBody).
// It returns the action: read, wait for the budget, or refuse a body the
// whole budget cannot hold.
func (c *conn) bodyRoom(end int) uint8 {
	if b := c.s.lim.BodyBudget; b >= 0 && int64(end-initialBuffer) > b {
		return c.fail(errBodyTooLarge)
	}
	if c.end < len(c.buf) {
		return actRead
	}
	return c.growBody(min(end, 2*len(c.buf)), end)
}

// chunkRoom makes room for the rest of a chunked body: it closes the gap
// between the decoded and the raw bytes, then doubles the buffer within
// the body budget (growBody) once it is full.
func (c *conn) chunkRoom() uint8 {
	if c.end == len(c.buf) && c.dc.r > c.dc.w {
		n := copy(c.buf[c.dc.w:], c.buf[c.dc.r:c.end])
		c.end, c.dc.r = c.dc.w+n, c.dc.w
	}
	if c.end < len(c.buf) {
		return actRead
	}
	if b := c.s.lim.BodyBudget; b >= 0 && int64(len(c.buf)) > b {
		return c.fail(errBodyTooLarge)
	}
	return c.growBody(2*len(c.buf), 0)
}

// growBody grows the full buffer of a body to size bytes, what it has
// received doubled, taking the new buffer's size beyond the first 4 KiB
// from the server's body budget (Server.take); the old buffer is garbage,
// and stays charged to the budget until the collector has freed it.
// full is the size the whole body needs (0: unknown, a chunked body):
// the finisher (Server.take) grows to it at once. It returns actRead, or
// actBudget if the budget cannot give it now.
func (c *conn) growBody(size, full int) uint8 {
	s := c.s
	if s.lim.BodyBudget < 0 {
		c.grow(size)
		return actRead
	}
	size, ok := s.take(c, size, full)
	if !ok {
		return actBudget
	}
	c.grow(size)
	return actRead
}

// release gives the connection's part of the body budget back: its
// large buffer is garbage now, charged to the budget until collected.
func (c *conn) release() {
	s := c.s
	if c.reserved == 0 && s.finisher != c {
		return
	}
	s.drop(c)
	if s.finisher == c {
		s.finisher = nil
	}
	s.bodyFreed.Broadcast()
}

// readError is the answer to a body that stopped coming: 408 if the read
// timeout ended it, else 400 (the client closed or reset the connection).
func (c *conn) readError() *Error {
	if c.timedOut {
		return errRequestTimeout
	}
	return errBadRequest
}

func (c *conn) grow(n int) {
	if n > len(c.buf) {
		b := make([]byte, n)
		copy(b, c.buf[:c.end])
		c.buf = b
	}
}

// handle calls the handler for the request read. It reports whether the
// handler handed the request to a WaitHandler, which the connection's
// coroutine or task is then to run before respond.
func (c *conn) handle() (handOff bool) {
	w := &c.w
	w.reset()
	if string(c.bytes(c.h.uri)) == "*" && string(c.bytes(c.h.method)) == http.MethodOptions {
		// net/http's answer to OPTIONS *: empty; a body beyond 4 KiB closes.
		w.closing = c.bodyEnd-c.bodyStart > 4<<10
		return false
	}
	w.panicked = !c.callHandler()
	return !w.panicked && w.waiting != nil
}

// respond appends the response the handlers made to out (a 500 if one of
// them panicked). It reports whether the connection is to close after it.
func (c *conn) respond() (closing bool) {
	w := &c.w
	h := &c.h
	if w.panicked {
		w.reset()
		w.status, w.closing = http.StatusInternalServerError, true
	}
	closing = h.close || w.closing || c.s.draining
	out := append(c.out, "HTTP/1.1 "...)
	out = strconv.AppendInt(out, int64(w.status), 10)
	out = append(out, ' ')
	out = append(out, http.StatusText(w.status)...)
	out = append(out, "\r\n"...)
	out = append(out, w.header...)
	if bodyAllowed(w.status) {
		if !w.ctype && len(w.body) > 0 {
			out = append(append(append(out, "Content-Type: "...), http.DetectContentType(w.body)...), "\r\n"...)
		}
		out = append(out, "Content-Length: "...)
		out = strconv.AppendInt(out, int64(len(w.body)), 10)
		out = append(out, "\r\n"...)
	}
	c.stamp, c.stamped = c.s.l.Now(), true
	out = c.s.appendDate(append(out, "Date: "...), c.stamp)
	switch {
	case closing:
		out = append(out, "\r\nConnection: close"...)
	case h.keepAlive10:
		out = append(out, "\r\nConnection: keep-alive"...)
	}
	out = append(out, "\r\n\r\n"...)
	if bodyAllowed(w.status) && string(c.bytes(h.method)) != http.MethodHead {
		out = append(out, w.body...)
	}
	c.out = out
	return closing
}

// callHandler runs the handler, reporting false if it panicked. The guard
// watches the call unless it is off.
func (c *conn) callHandler() (ok bool) {
	g := &c.s.guard
	on := c.s.lim.SlowHandler >= 0
	defer func() {
		if on {
			g.exit()
		}
		if p := recover(); p != nil {
			ok = false
		}
	}()
	if on {
		g.enter(c.s, c)
	}
	c.s.handler(&c.w, &c.req)
	return true
}

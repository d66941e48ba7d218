//go:build unix

package cohttp

//go:generate go tool cogen

import (
	"errors"
	"time"
	"unsafe"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// serveConn serves HTTP/1.1 on c until the connection is to end: step
// answers what the buffer holds, and this loop only writes the answers
// (one write per batch, before any read that would wait, within the write
// timeout), reads with the phase's deadline, waits for the body budget,
// and returns when the connection is to end or a WaitHandler is to run
// (c.phase is then phHandler).
//
//co:stackless
func serveConn(co *stackful.Co, c *conn) error {
	for {
		act := c.step()
		if len(c.out) > 0 {
			if _, err := co.WriteTimeout(c.fd, c.out, c.s.lim.WriteTimeout); err != nil {
				return err
			}
			c.out = c.out[:0]
		}
		switch act {
		case actClose:
			return nil
		case actWrite:
			continue
		case actHandOff:
			return nil // the caller runs the WaitHandler, then serveConn again
		case actBudget:
			// The body budget is spent: wait, not reading, for another body
			// to end, within the request's deadline.
			if !co.Wait(&c.s.bodyFreed, c.timeout()) || c.s.cut {
				c.failed, c.timedOut = true, !c.s.cut
			}
			continue
		case actLinger:
			// As net/http: half-close, then read and discard for up to
			// 500 ms, so that the close does not reset the connection
			// before the client has read the answer.
			c.s.l.ShutdownWrite(c.fd) // after what the loop still sends (completion mode)
			until := c.s.l.Now() + lingerTime
			for {
				n, err := co.ReadTimeout(c.fd, c.buf, max(until-c.s.l.Now(), 0))
				if err != nil || n == 0 {
					return nil
				}
			}
		}
		c.room()
		n, err := co.ReadTimeout(c.fd, c.buf[c.end:], c.timeout())
		c.got(n, err)
	}
}

// connMain runs one connection on a stackful coroutine: serveConn, the
// WaitHandlers it returns for, then the close and the server's accounting.
// Its stackless twin is connTask, written by hand: the handler is a value
// chosen per request, which a marked function cannot call.
func connMain(co *stackful.Co, c *conn) error {
	var err error
	for {
		err = serveConn(co, c)
		if err != nil || c.phase != phHandler {
			break
		}
		c.runWaiting(co)
	}
	co.Close(c.fd)
	c.s.ended(c)
	return err
}

// runWaiting runs the connection's WaitHandler on co, turning a panic into
// a 500 as for a plain handler (the unwinding of a closing env goes on).
func (c *conn) runWaiting(co *stackful.Co) {
	on := c.s.lim.SlowHandler >= 0
	if on {
		c.waitKey = uintptr(unsafe.Pointer(c)) // see conn.waitKey
		c.s.guard.enterWaiting(c.s, c)
	}
	defer func() {
		if on {
			c.s.guard.exitWaiting(c)
		}
		if p := recover(); p != nil {
			if stackful.Unwinding(p) {
				panic(p)
			}
			c.w.panicked = true
		}
	}()
	c.w.waiting.stackful(co, &c.w, &c.req)
}

// acceptLoop accepts connections on the server's listening socket and
// starts each one, with at most MaxConns at once: at the bound it waits for
// one to end, the new ones waiting in the kernel's backlog. Temporary
// errors (out of descriptors or memory) are logged on the ErrorLog and back
// off from 5 ms, doubling up to 1 s. It returns the error that ends it, the listener's close included.
//
//co:stackless
func acceptLoop(co *stackful.Co, s *Server) error {
	var delay time.Duration
	for {
		for s.lim.MaxConns > 0 && s.live >= s.lim.MaxConns && !s.draining {
			co.Wait(&s.freed, -1)
		}
		if s.draining {
			return nil
		}
		fd, _, err := co.Accept(s.lfd)
		if err != nil {
			if temporary(err) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.logger().Printf("cohttp: accept error: %v; retrying in %v", err, delay)
				co.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		s.guard.busy()
		s.start(fd)
	}
}

func temporary(err error) bool {
	return errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) || errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.ENOMEM)
}

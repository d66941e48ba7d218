//go:build unix

package cohttp

import (
	"errors"
	"fmt"
	"os"
	"runtime/metrics"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// A Server serves HTTP/1.1 with a [Handler] on one listening socket and one
// loop, in either model: [ServeStackful] runs the accept loop and every
// connection as stackful coroutines of an env, [ServeStackless] as
// stackless tasks, from the same source (server.go, rewritten by cogen).
// Its methods are called on the loop's goroutine.
type Server struct {
	handler     Handler
	lim         Limits
	lfd         int
	l           *loop.Loop
	conns       map[*conn]struct{}
	live        int
	freed       loop.Cond // signalled when a connection ends
	draining    bool
	start       func(fd int)                 // runs a connection in the model
	run         func(stop func() bool) error // runs the loop in the model
	acceptEnded bool
	acceptErr   error
	tasks       map[*conn]*stackless.Task
	guard       guard      // of the handler calls (guard.go)
	bodyLeft    int64      // of the body budget (Limits.BodyBudget; budget.go)
	bodyPeak    int64      // the most of the budget in use at once
	bodyFreed   loop.Cond  // signalled when budget may have come back
	bodyReserve int64      // the most one body can need: MaxBodyBytes and a head, at most the budget
	finisher    *conn      // the body that may take the reserve (nil: none)
	garbage     [2]dropped // budget charged for dropped buffers until collected, oldest first (budget.go)
	collecting  bool       // a collection started by needCollection runs
	needs       [64]int32  // bodies holding part of their buffer, by bits.Len64 of what they need whole
	wholeHeld   int64      // the budget held by bodies whose buffer holds all of them
	gcSample    []metrics.Sample
	cut         bool          // Shutdown's limit has passed: connections waiting for the budget end
	date        []byte        // the Date header's value (appendDate)
	dateEnd     time.Duration // when date's second ends, on the loop's clock
}

func newServer(l *loop.Loop, lfd int, h Handler, lim Limits) *Server {
	s := &Server{handler: h, lim: lim.Normalize(), lfd: lfd, l: l, conns: map[*conn]struct{}{}}
	s.bodyLeft = s.lim.BodyBudget
	s.bodyReserve = s.lim.BodyBudget
	if s.lim.MaxBodyBytes >= 0 {
		s.bodyReserve = min(s.lim.BodyBudget, s.lim.MaxBodyBytes+int64(s.lim.headLimit()))
	}
	return s
}

func (s *Server) track(fd int) *conn {
	c := newConn(s, fd)
	s.conns[c] = struct{}{}
	s.live++
	return c
}

// ended is called by a connection's coroutine or task as it ends.
func (s *Server) ended(c *conn) {
	c.release()
	delete(s.conns, c)
	delete(s.tasks, c)
	s.live--
	s.freed.Signal()
	s.settle()
}

// endAccept records the end of the accept loop.
func (s *Server) endAccept(err error) {
	s.acceptErr, s.acceptEnded = err, true
	s.settle()
}

// settle ends the server's guard once the server is over: no accept loop,
// no connection.
func (s *Server) settle() {
	if s.acceptEnded && s.live == 0 {
		s.guard.end()
	}
}

// BodyBuffered returns how much of the body budget (Limits.BodyBudget) is
// in use now (the buffers connections hold beyond their first 4 KiB, and
// the ones they dropped that the collector has not freed yet), and the
// most that has been at once. Once Shutdown has returned with every
// connection ended, now is 0: Shutdown waits for a collection if garbage
// holds budget.
func (s *Server) BodyBuffered() (now, peak int64) {
	if s.lim.BodyBudget < 0 {
		return 0, s.bodyPeak
	}
	s.collect()
	return s.lim.BodyBudget - s.bodyLeft, s.bodyPeak
}

// Live returns the number of connections being served.
func (s *Server) Live() int { return s.live }

// Drain begins a graceful shutdown: the listener closes, idle connections
// close, and the responses from now on close theirs. It does not wait;
// [Server.Shutdown] does. A loop group's OnShutdown can call it.
func (s *Server) Drain() {
	if s.draining {
		return
	}
	s.draining = true
	s.freed.Broadcast()
	closeFD(s.l, s.lfd)
	for c := range s.conns {
		if c.idle() {
			unix.Shutdown(c.fd, unix.SHUT_RD) // its read ends at once: the connection closes
		}
	}
}

// Shutdown drains the server, runs the loop until every connection has
// ended or limit has passed, and then ends the rest (their reads and writes
// fail) and runs the loop until they are gone; then, if the bodies' dropped
// buffers still hold body budget, it runs the loop until a collection
// started on a goroutine has freed them (see BodyBuffered). Call it on the loop's
// goroutine while the loop is not running (for a stackful server, on the
// env's main coroutine).
func (s *Server) Shutdown(limit time.Duration) error {
	s.Drain()
	var expired bool
	var guard loop.Timer
	s.l.Reset(&guard, limit, func() { expired = true })
	err := s.run(func() bool { return expired || s.live == 0 && s.acceptEnded })
	s.l.CancelTimer(&guard)
	if s.live > 0 {
		s.cut = true
		s.bodyFreed.Broadcast()
		for c := range s.conns {
			unix.Shutdown(c.fd, unix.SHUT_RDWR)
		}
		for t := range s.tasks {
			s.tasks[t].Cancel()
		}
		expired = false
		s.l.Reset(&guard, time.Second, func() { expired = true })
		err = errors.Join(err, s.run(func() bool { return expired || s.live == 0 }))
		s.l.CancelTimer(&guard)
		if s.live > 0 {
			err = errors.Join(err, fmt.Errorf("cohttp: %d connections still open after shutdown", s.live))
		}
	}
	if s.live == 0 {
		err = errors.Join(err, s.collectAll())
	}
	s.guard.end()
	if s.acceptErr != nil && !errors.Is(s.acceptErr, loop.ErrFDClosed) && !errors.Is(s.acceptErr, unix.EBADF) {
		err = errors.Join(err, s.acceptErr)
	}
	return err
}

// closeFD closes fd through the loop if it is registered, so that its
// waiters wake with an error.
func closeFD(l *loop.Loop, fd int) error {
	if f := l.Lookup(fd); f != nil {
		return f.Close()
	}
	if err := unix.Close(fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

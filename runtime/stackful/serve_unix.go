//go:build linux || darwin || freebsd

package stackful

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Server is the accept coroutine of [Env.ServeTCP] and the connections'
// coroutines it started. Its methods must be called on the env's loop
// goroutine.
type Server struct {
	env      *Env
	lfd      int
	addr     *net.TCPAddr
	acceptor *Co
	conns    []*Co // the connections' coroutines; dead ones are dropped as it grows
	closed   bool  // the listener has been closed
	err      error // the accept loop's lasting error
	done     bool  // Shutdown has been called
}

// ServeTCP is [Group.ServeTCP] on one env: it listens on address
// ([loop.ListenTCP], without SO_REUSEPORT) and runs a coroutine that
// accepts connections and runs handler(co, fd) in a new coroutine for each
// one, with TCP_NODELAY set. The handler owns fd and must close it
// ([Co.Close]). The accept coroutine starts at once and runs until its
// first wait; the rest runs when the env's loop does ([Env.Run]). Call it
// on the env's loop goroutine (its main coroutine or one of its
// coroutines). Temporary accept errors back off as in Group.ServeTCP; any
// other ends the accept coroutine, and Shutdown returns it.
//
// On a loop with completion I/O (io_uring) the listener is served by one
// multishot accept ([loop.Loop.RegisterAccept]); the connections stay on
// readiness, since the handler may read fd with code the loop does not
// see: [Env.ServeTCPCompletion] is the variant that puts them in
// completion mode too.
//
// Its stackless twin is stackless.ServeTCP.
func (e *Env) ServeTCP(network, address string, handler func(co *Co, fd int)) (*Server, error) {
	return e.serve("ServeTCP", network, address, handler, false)
}

// ServeTCPCompletion is [Env.ServeTCP] for a handler that reads, writes,
// half-closes and closes fd only through the loop: co's waiting methods
// (Read, ReadTimeout, Write, WriteTimeout, Poll, Close), the loop's
// ShutdownWrite (co.Env().Loop().ShutdownWrite(fd)), or package hook's
// calls on it - never with a system call of its own (unix.Read,
// unix.Write, unix.Shutdown, a net.Conn made from fd) and never handing fd
// to other code. On a loop with completion I/O (io_uring:
// [loop.Loop.Completion]) each connection is then registered with
// [loop.Loop.RegisterCompletion]: the loop receives into buffers of its
// own before the handler reads and sends from a copy of what it writes,
// with no read(2) or write(2) per request. What that changes for the
// handler is RegisterCompletion's contract: bytes the loop received are
// visible only through the loop (loop.FD.Buffered), a Write returns once
// the loop holds the bytes (a send's error is reported by a later Write),
// Close sends what was written before closing the descriptor, and
// unix.Shutdown would cut off what the loop still has to send (the loop's
// ShutdownWrite orders the half-close after it). On other backends it is
// ServeTCP.
//
// Its stackless twin is stackless.ServeTCP, whose handlers have this
// contract always.
func (e *Env) ServeTCPCompletion(network, address string, handler func(co *Co, fd int)) (*Server, error) {
	return e.serve("ServeTCPCompletion", network, address, handler, true)
}

func (e *Env) serve(name, network, address string, handler func(co *Co, fd int), comp bool) (*Server, error) {
	if handler == nil {
		panic("stackful: " + name + " with a nil handler")
	}
	lfd, addr, err := loop.ListenTCP(network, address, false)
	if err != nil {
		return nil, fmt.Errorf("stackful: %s: %w", name, err)
	}
	s := &Server{env: e, lfd: lfd, addr: addr}
	s.acceptor = e.Create(func(co *Co) {
		if err := acceptLoop(co, lfd, &s.closed, handler, s.track, comp); err != nil && !errors.Is(err, net.ErrClosed) {
			s.err = fmt.Errorf("stackful: %s: %w", name, err)
		}
	}, nil)
	s.acceptor.Resume()
	return s, nil
}

// track remembers a connection's coroutine, dropping dead ones whenever
// the list would grow.
func (s *Server) track(co *Co) {
	if len(s.conns) == cap(s.conns) {
		s.prune()
	}
	s.conns = append(s.conns, co)
}

// prune drops the dead coroutines from conns and returns how many are left.
func (s *Server) prune() int {
	live := s.conns[:0]
	for _, c := range s.conns {
		if c.Status() != Dead {
			live = append(live, c)
		}
	}
	clear(s.conns[len(live):])
	s.conns = live
	return len(live)
}

// Addr returns the address the server listens on.
func (s *Server) Addr() *net.TCPAddr { return s.addr }

// Shutdown closes the listener, then runs the env's loop until every
// connection's coroutine has returned, for at most limit. Then the waits
// of the coroutines still running are canceled ([loop.ErrCanceled]), so
// that they close their fds on their own error paths, and the loop runs
// once more; a coroutine that keeps running after that is left to
// [Env.Close], and Shutdown reports it. It also returns the accept loop's
// lasting error, if any. Call it on the env's main coroutine while the
// loop is not running; a second call does nothing.
func (s *Server) Shutdown(limit time.Duration) error {
	if s.done {
		return nil
	}
	s.done = true
	e := s.env
	s.closed = true
	err := e.loop.CloseFD(s.lfd)
	if s.acceptor.w.Armed() {
		s.acceptor.w.Cancel() // sleeping off an accept error
	}
	// The loop runs stop once per iteration: prune is O(live connections).
	finished := func() bool { return s.acceptor.Status() == Dead && s.prune() == 0 }
	expired := false
	var guard loop.Timer
	e.loop.Reset(&guard, limit, func() { expired = true })
	if rerr := e.Run(func() bool { return expired || finished() }); rerr != nil {
		err = errors.Join(err, rerr)
	}
	e.loop.CancelTimer(&guard)
	if !finished() {
		for _, co := range s.conns {
			if co.w.Armed() {
				co.w.Cancel()
			}
		}
		if rerr := e.loop.RunOnce(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if n := s.prune(); n > 0 {
			err = errors.Join(err, fmt.Errorf("%d connections still running after %v and a cancel", n, limit))
		}
	}
	if err != nil {
		err = fmt.Errorf("stackful: Shutdown: %w", err)
	}
	return errors.Join(err, s.err)
}

//go:build linux || darwin || freebsd

package stackless

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Server is the accept task of [ServeTCP] and the connections' tasks it
// spawned. Its methods must be called on the loop's goroutine.
type Server struct {
	l      *loop.Loop
	lfd    int
	addr   *net.TCPAddr
	accept *Task
	frame  *acceptFrame
	conns  []*Task // the connections' tasks; finished ones are dropped as it grows
	err    error   // the accept loop's lasting error
	done   bool    // Shutdown has been called
}

// ServeTCP is [Group.ServeTCP] on one loop: it listens on address
// ([loop.ListenTCP], without SO_REUSEPORT) and spawns on l a task that
// accepts connections and spawns newHandler(fd) as a task for each one,
// with TCP_NODELAY set (for example a generated frame's constructor). The
// handler owns fd and must close it ([Task.Close]). Nothing runs until l
// does. Call it on l's goroutine. Temporary accept errors back off as in
// Group.ServeTCP; any other ends the accept task, and Shutdown returns it.
// Connections are in completion mode on io_uring, as with Group.ServeTCP,
// and one multishot accept serves the listener (loop.RegisterAccept).
//
// It is stackful.Env.ServeTCP's twin: the same call, with a frame
// constructor where the stackful one takes a coroutine function.
func ServeTCP(l *loop.Loop, network, address string, newHandler func(fd int) Frame) (*Server, error) {
	if newHandler == nil {
		panic("stackless: ServeTCP with a nil newHandler")
	}
	lfd, addr, err := loop.ListenTCP(network, address, false)
	if err != nil {
		return nil, fmt.Errorf("stackless: ServeTCP: %w", err)
	}
	s := &Server{l: l, lfd: lfd, addr: addr}
	s.frame = &acceptFrame{lfd: lfd, newHandler: newHandler,
		spawn: func(fr Frame) { s.track(Spawn(l, fr)) },
		fail:  func(err error) { s.err = fmt.Errorf("stackless: ServeTCP: %w", err) },
	}
	s.accept = Spawn(l, s.frame)
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() *net.TCPAddr { return s.addr }

// track remembers a connection's task, dropping finished ones whenever the
// list would grow.
func (s *Server) track(t *Task) {
	if len(s.conns) == cap(s.conns) {
		live := s.conns[:0]
		for _, c := range s.conns {
			if !c.Done() {
				live = append(live, c)
			}
		}
		clear(s.conns[len(live):])
		s.conns = live
	}
	s.conns = append(s.conns, t)
}

// Shutdown closes the listener, then runs the loop until every
// connection's task has finished; tasks still running after limit are
// canceled ([Task.Cancel]), which makes their handlers close their
// connections on their error paths. Cancel is sticky, unlike the stackful
// model's: every later wait of a canceled task returns [ErrCanceled] at
// once, so a canceled task cannot block again, and Shutdown returns unless
// a handler loops forever ignoring that error, which holds the loop itself
// (as a goroutine spinning forever would hold its thread). It re-panics a handler's panic, and
// returns the accept loop's lasting error, if any. Call it on the loop's
// goroutine while the loop is not running; a second call does nothing.
func (s *Server) Shutdown(limit time.Duration) error {
	if s.done {
		return nil
	}
	s.done = true
	s.frame.closed = true
	closeFD(s.l, s.lfd)
	s.accept.Cancel()
	tasks := append([]*Task{s.accept}, s.conns...)
	var guard loop.Timer
	s.l.Reset(&guard, limit, func() {
		for _, t := range tasks {
			t.Cancel()
		}
	})
	defer s.l.CancelTimer(&guard)
	var err error
	if rerr := Run(s.l, tasks...); rerr != nil {
		err = fmt.Errorf("stackless: Shutdown: %w", rerr)
	}
	s.conns = nil
	return errors.Join(err, s.err)
}

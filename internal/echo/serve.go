package echo

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// A StacklessServer runs one stackless task per connection accepted on a
// listening socket, all on one loop.
type StacklessServer struct {
	l      *loop.Loop
	lfd    int
	accept *stackless.Task
	conns  []*stackless.Task
}

// ServeStackless accepts connections on the non-blocking listening socket
// lfd and runs newHandler(fd) as a task for each one (for example
// NewHandEchoFrame). Nothing runs until l does. Call it on l's goroutine.
func ServeStackless(l *loop.Loop, lfd int, newHandler func(fd int) stackless.Frame) *StacklessServer {
	s := &StacklessServer{l: l, lfd: lfd}
	s.accept = stackless.Spawn(l, &acceptFrame{lfd: lfd, srv: s, newHandler: newHandler})
	return s
}

// acceptFrame is, in the shape cogen generates,
//
//	func acceptLoop(co *stackless.Task, lfd int) error {
//		for {
//			fd, _, err := co.Accept(lfd)
//			if err != nil {
//				return err
//			}
//			noDelay(fd)
//			spawn(newHandler(fd))
//		}
//	}
type acceptFrame struct {
	stackless.Base
	lfd        int
	srv        *StacklessServer
	newHandler func(fd int) stackless.Frame
	r          error
}

func (f *acceptFrame) Step(co *stackless.Task) stackless.Status {
	for {
		fd, _, err := co.Accept(f.lfd)
		if co.Blocked() {
			return stackless.Suspend
		}
		if err != nil {
			f.r = err
			return stackless.Done
		}
		noDelay(fd)
		f.srv.track(stackless.Spawn(co.Loop(), f.newHandler(fd)))
	}
}

// track remembers a connection's task, dropping finished ones whenever the
// list would grow.
func (s *StacklessServer) track(t *stackless.Task) {
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

// Shutdown closes the listener, then runs the loop until every connection's
// task has finished; tasks still running after limit are canceled, which
// makes their handlers close their connections. It re-panics a handler's
// panic. Call it on the loop's goroutine while the loop is not running.
func (s *StacklessServer) Shutdown(limit time.Duration) error {
	err := s.l.CloseFD(s.lfd)
	tasks := append([]*stackless.Task{s.accept}, s.conns...)
	var guard loop.Timer
	s.l.Reset(&guard, limit, func() {
		for _, t := range tasks {
			t.Cancel()
		}
	})
	defer s.l.CancelTimer(&guard)
	if rerr := stackless.Run(s.l, tasks...); rerr != nil && err == nil {
		err = rerr
	}
	s.conns = nil
	return err
}

// A StackfulServer runs one stackful coroutine per connection accepted on a
// listening socket, all in one env.
type StackfulServer struct {
	env *stackful.Env
	lfd int
	err error
}

// ServeStackful accepts connections on the non-blocking listening socket lfd
// and runs handler(co, fd) in a coroutine for each one (for example Echo).
// The accept coroutine starts at once and runs until its first wait; the
// rest runs when the env's loop does. Call it on the env's main coroutine.
func ServeStackful(env *stackful.Env, lfd int, handler func(co *stackful.Co, fd int) error) *StackfulServer {
	s := &StackfulServer{env: env, lfd: lfd}
	acceptor := env.Create(func(co *stackful.Co) {
		for {
			fd, _, err := co.Accept(lfd)
			if err != nil {
				s.err = err
				return
			}
			noDelay(fd)
			conn := env.Create(func(co *stackful.Co) { handler(co, fd) }, nil)
			conn.Resume()
		}
	}, nil)
	acceptor.Resume()
	return s
}

// Shutdown closes the listener, then runs the loop until every coroutine has
// finished, for at most limit. Call it on the env's main coroutine while the
// loop is not running.
func (s *StackfulServer) Shutdown(limit time.Duration) error {
	err := s.env.Loop().CloseFD(s.lfd)
	expired := false
	var guard loop.Timer
	s.env.Loop().Reset(&guard, limit, func() { expired = true })
	defer s.env.Loop().CancelTimer(&guard)
	if rerr := s.env.Run(func() bool { return expired || s.env.Live() == 0 }); rerr != nil && err == nil {
		err = rerr
	}
	if s.env.Live() != 0 && err == nil {
		err = fmt.Errorf("handler: %d connections still open after %v", s.env.Live(), limit)
	}
	if s.err != nil && !errors.Is(s.err, loop.ErrFDClosed) && err == nil {
		err = s.err
	}
	return err
}

// noDelay turns off Nagle's algorithm on an accepted connection, as Go's net
// package does on every TCP connection, so that all servers compared send
// small replies the same way.
func noDelay(fd int) { setNoDelay(fd) }

// A GoroutineServer is the baseline the coroutine servers are compared
// with: Go's net package, one goroutine per connection running the same
// handler logic as Echo (read up to MsgSize bytes, write them back, until
// end of file or an error).
type GoroutineServer struct {
	ln net.Listener
	wg sync.WaitGroup
}

// ServeGoroutines accepts connections on ln, one goroutine each, until
// Shutdown.
func ServeGoroutines(ln net.Listener) *GoroutineServer {
	s := &GoroutineServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				var buf [MsgSize]byte
				for {
					n, err := c.Read(buf[:])
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return s
}

// Shutdown closes the listener and waits, for at most limit, until every
// connection's goroutine has returned.
func (s *GoroutineServer) Shutdown(limit time.Duration) error {
	err := s.ln.Close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		return fmt.Errorf("handler: connections still open after %v", limit)
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

package echo

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

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
// On io_uring the connections are in the loop's completion mode, as
// stackful.Env.ServeTCPCompletion's are: handler must read, write,
// half-close and close fd through the loop only.
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
			if l := env.Loop(); l.Completion() {
				l.RegisterCompletion(fd)
			}
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

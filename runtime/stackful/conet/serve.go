package conet

import (
	"errors"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Serve accepts connections on ln in the coroutine co and runs
// handler(hc, c) in a new coroutine hc of co's env for each one, with attr
// as its stack attributes (nil: the default). Hooks are enabled on co and
// on every handler coroutine, so the handler can use c, and any hooked
// call, in blocking style. The handler owns c and should close it.
//
// Per-connection timeouts are the conn's deadlines: a handler calls
// c.SetReadDeadline (or SetDeadline) before a read that must not wait
// forever, for example time.Now().Add(idle) before waiting for a client's
// next request; the read then fails with os.ErrDeadlineExceeded. Deadlines
// wait on the env's timing wheel, not on Go timers.
//
// Temporary accept errors (EMFILE and ENFILE when out of descriptors,
// ENOBUFS, ENOMEM) make Serve back off instead of spinning: it sleeps on
// the loop for 5 ms, doubling up to 1 s while they persist, as net/http
// does; a pending connection the kernel could not hand over stays queued
// and is accepted once descriptors are free. Serve returns the first other
// error, net.ErrClosed (wrapped) once ln is closed.
func Serve(co *stackful.Co, ln net.Listener, handler func(hc *stackful.Co, c net.Conn), attr *stackful.Attr) error {
	return ServeConns(co, ln, 0, handler, attr)
}

// ServeConns is [Serve] running at most maxConns handlers at once
// (maxConns <= 0: no bound). At the bound it stops accepting until a
// handler returns: new connections wait in the kernel's listen backlog
// (and beyond it, in the clients' SYN retries) instead of costing the
// server memory and descriptors.
func ServeConns(co *stackful.Co, ln net.Listener, maxConns int, handler func(hc *stackful.Co, c net.Conn), attr *stackful.Attr) error {
	return serve(co, ln, maxConns, handler, attr, false)
}

// ServeCompletion is [ServeConns] for handlers that use their conn only
// in hooked coroutines of co's env (the handler's own, or others it
// starts on the env) and never through SyscallConn's Read and Write. On a
// loop with completion I/O (io_uring) each conn of this package's
// listeners is then served in the loop's completion mode
// (loop.Loop.RegisterCompletion): the loop receives into buffers of its
// own and sends from a queue, without a read(2) or write(2) per request.
// Such a conn keeps the net.Conn contract within the env (deadlines,
// Close from any goroutine, CloseWrite after what was written), holds a
// second descriptor (the one the loop serves), and fails with
// [ErrCompletion] where its bytes cannot be reached: Read, Write or
// CloseWrite from a plain goroutine or another env (no migration and no
// fallback through Go's poller), SyscallConn's Read and Write (Control
// works). Close from outside the env releases the socket when the env's
// loop next runs, after what was written has been sent. Elsewhere it is
// ServeConns.
func ServeCompletion(co *stackful.Co, ln net.Listener, maxConns int, handler func(hc *stackful.Co, c net.Conn), attr *stackful.Attr) error {
	return serve(co, ln, maxConns, handler, attr, true)
}

func serve(co *stackful.Co, ln net.Listener, maxConns int, handler func(hc *stackful.Co, c net.Conn), attr *stackful.Attr, comp bool) error {
	co.EnableHook()
	env := co.Env()
	var delay time.Duration
	live := 0
	var freed loop.Cond // signalled when a handler returns at the bound
	for {
		for maxConns > 0 && live >= maxConns {
			co.Wait(&freed, -1)
		}
		c, err := ln.Accept()
		if err != nil {
			var ne interface{ Temporary() bool }
			if errors.As(err, &ne) && ne.Temporary() && !errors.Is(err, net.ErrClosed) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				co.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		live++
		hc := env.Create(func(hc *stackful.Co) {
			defer func() {
				live--
				freed.Signal()
			}()
			hc.EnableHook()
			if comp {
				enterCompletion(c, env.Loop())
			}
			handler(hc, c)
		}, attr)
		hc.Resume()
	}
}

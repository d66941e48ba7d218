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
			handler(hc, c)
		}, attr)
		hc.Resume()
	}
}

package conet

import (
	"errors"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Serve accepts connections on ln in the coroutine co and runs
// handler(hc, c) in a new coroutine hc of co's env for each one, with attr
// as its stack attributes (nil: the default). Hooks are enabled on co and
// on every handler coroutine, so the handler can use c, and any hooked
// call, in blocking style. The handler owns c and should close it.
//
// Temporary accept errors (EMFILE and ENFILE when out of descriptors,
// ENOBUFS, ENOMEM) make Serve back off instead of spinning: it sleeps on
// the loop for 5 ms, doubling up to 1 s while they persist, as net/http
// does; a pending connection the kernel could not hand over stays queued
// and is accepted once descriptors are free. Serve returns the first other
// error, net.ErrClosed (wrapped) once ln is closed.
func Serve(co *stackful.Co, ln net.Listener, handler func(hc *stackful.Co, c net.Conn), attr *stackful.Attr) error {
	co.EnableHook()
	env := co.Env()
	var delay time.Duration
	for {
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
		hc := env.Create(func(hc *stackful.Co) {
			hc.EnableHook()
			handler(hc, c)
		}, attr)
		hc.Resume()
	}
}

//go:build unix

package bench

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/internal/hello"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"golang.org/x/sys/unix"
)

// StartHTTP starts the hello server of a coroutine model of HTTPModels on
// 127.0.0.1 with the limits lim, on a loop of its own goroutine (locked to
// its thread), and returns its address and its stop: close the listener,
// end the loop, close every connection (cohttp's servers: shut down with a
// second's grace).
func StartHTTP(model string, lim cohttp.Limits) (addr string, stop func() error, err error) {
	lim = lim.Normalize()
	type started struct {
		addr string
		l    *loop.Loop
		err  error
	}
	ready := make(chan started, 1)
	done := make(chan error, 1)
	var quit atomic.Bool
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		env, err := stackful.NewEnv()
		if err != nil {
			ready <- started{err: err}
			return
		}
		var closeListener func() error
		switch model {
		case "stackful/conet":
			ln, lerr := conet.Listen("tcp4", "127.0.0.1:0")
			if err = lerr; err != nil {
				break
			}
			closeListener = ln.Close
			env.Create(func(co *stackful.Co) {
				conet.ServeConns(co, ln, lim.MaxConns, func(_ *stackful.Co, c net.Conn) {
					defer c.Close()
					hello.ServeLimits(c, c, lim)
				}, nil)
			}, nil).Resume()
			addr = ln.Addr().String()
		case "stackful/co":
			var lfd int
			lfd, addr, err = echoload.ListenFD()
			if err != nil {
				break
			}
			closeListener = func() error { return closeFD(env.Loop(), lfd) }
			env.Create(func(co *stackful.Co) { acceptConns(co, lfd, lim.MaxConns, lim) }, nil).Resume()
		case "stackful/cohttp":
			var lfd int
			lfd, addr, err = echoload.ListenFD()
			if err != nil {
				break
			}
			s := cohttp.ServeStackful(env, lfd, hello.Handler, lim)
			closeListener = func() error { return s.Shutdown(time.Second) }
		case "stackless/cohttp":
			var lfd int
			lfd, addr, err = echoload.ListenFD()
			if err != nil {
				break
			}
			s := cohttp.ServeStackless(env.Loop(), lfd, hello.Handler, lim)
			closeListener = func() error { return s.Shutdown(time.Second) }
		default:
			err = fmt.Errorf("bench: no HTTP server %q to start", model)
		}
		if err != nil {
			ready <- started{err: errors.Join(err, env.Close())}
			return
		}
		ready <- started{addr: addr, l: env.Loop()}
		rerr := env.Run(quit.Load)
		done <- errors.Join(rerr, closeListener(), env.Close())
	}()
	s := <-ready
	if s.err != nil {
		return "", nil, s.err
	}
	return s.addr, func() error {
		quit.Store(true)
		s.l.Submit(func() {})
		return <-done
	}, nil
}

// acceptConns accepts connections on lfd and serves each with
// StackfulHelloLimits in a coroutine of its own, at most maxConns at once
// (at the bound accepting pauses), until accepting fails.
func acceptConns(co *stackful.Co, lfd, maxConns int, lim cohttp.Limits) {
	live := 0
	var freed loop.Cond
	for {
		for maxConns > 0 && live >= maxConns {
			co.Wait(&freed, -1)
		}
		fd, _, err := co.Accept(lfd)
		if err != nil {
			return
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		live++
		co.Env().Create(func(co *stackful.Co) {
			defer func() { live--; freed.Signal() }()
			StackfulHelloLimits(co, fd, lim)
		}, nil).Resume()
	}
}

// closeFD closes fd through the loop if it is registered, so that its
// waiters wake with an error.
func closeFD(l *loop.Loop, fd int) error {
	if f := l.Lookup(fd); f != nil {
		return f.Close()
	}
	return unix.Close(fd)
}

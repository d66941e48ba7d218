//go:build linux || darwin || freebsd

package stackless

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// ServeTCP listens on address with one SO_REUSEPORT listener per loop
// ([loop.ListenTCP]; port 0 picks one port for all), and on each loop runs
// a task that accepts connections and spawns newHandler(fd) as a task for
// each one, with TCP_NODELAY set (for example a generated frame's
// constructor). The handler owns fd and must close it ([Task.Close]). It
// returns the address listened on. On a loop with completion I/O
// (io_uring: [loop.Loop.Completion]) each connection is registered with
// [loop.Loop.RegisterCompletion]: the handler reads and writes it through
// the task's operations only, and half-closes it with
// [loop.Loop.ShutdownWrite]; each listener is registered with
// [loop.Loop.RegisterAccept], one multishot accept serving all accepts.
//
// Shutdown closes the listeners (an OnShutdown func per loop), which ends
// the accept tasks; the connections' tasks are the loops' in-flight work.
// Temporary accept errors (out of descriptors or memory) make an accept
// task back off from 5 ms, doubling up to 1 s; any other error fails the
// group.
//
// It is stackful.Group.ServeTCP's twin: the same call, with a frame
// constructor where the stackful one takes a coroutine function.
func (g *Group) ServeTCP(network, address string, newHandler func(fd int) Frame) (*net.TCPAddr, error) {
	return g.serve(network, address, newHandler)
}

// Serve is ServeTCP.
//
// Deprecated: use [Group.ServeTCP], the name both models share. Serve will
// be removed in the release after next.
func (g *Group) Serve(network, address string, newHandler func(fd int) Frame) (*net.TCPAddr, error) {
	return g.serve(network, address, newHandler)
}

func (g *Group) serve(network, address string, newHandler func(fd int) Frame) (*net.TCPAddr, error) {
	lfds, addr, err := g.Group.ListenTCPEach(network, address)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*net.TCPAddr, error) {
		for _, fd := range lfds {
			unix.Close(fd)
		}
		return nil, err
	}
	frames := make([]*acceptFrame, len(lfds))
	for i, lfd := range lfds {
		f := &acceptFrame{lfd: lfd, newHandler: newHandler,
			spawn: func(fr Frame) { g.spawn(i, fr) },
			fail:  func(err error) { g.Fail(fmt.Errorf("stackless: Serve on loop %d: %w", i, err)) },
		}
		frames[i] = f
		// The accept task may not have run its first step yet: closed
		// keeps it from accepting on the closed descriptor's number.
		if err := g.OnShutdown(i, func() { f.closed = true; closeFD(g.Loop(i), lfd) }); err != nil {
			return fail(err)
		}
	}
	for i, f := range frames {
		g.Spawn(i, f)
	}
	return addr, nil
}

// closeFD closes fd through l if it is registered, waking its waiters.
func closeFD(l *loop.Loop, fd int) {
	if f := l.Lookup(fd); f != nil {
		f.Close()
		return
	}
	unix.Close(fd)
}

// acceptFrame is, in the shape cogen generates,
//
//	func acceptLoop(co *Task, lfd int) {
//		var delay time.Duration
//		for {
//			fd, _, err := co.Accept(lfd)
//			if temporary(err) {
//				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
//				co.Sleep(delay)
//				continue
//			}
//			if err != nil {
//				fail unless err is net.ErrClosed
//				return
//			}
//			delay = 0
//			noDelay(fd)
//			spawn(newHandler(fd))
//		}
//	}
type acceptFrame struct {
	Base
	lfd        int
	newHandler func(fd int) Frame
	spawn      func(Frame) // starts a connection's task
	fail       func(error) // reports a lasting accept error
	delay      time.Duration
	closed     bool // the listener has been closed
	registered bool // RegisterAccept was tried
}

func (f *acceptFrame) Step(t *Task) Status {
	for {
		if f.PC == 1 {
			t.Sleep(f.delay)
			if t.Blocked() {
				return Suspend
			}
			f.PC = 0
			if t.Canceled() {
				return Done
			}
		}
		if f.closed {
			return Done
		}
		if l := t.w.Loop(); !f.registered && l.Completion() {
			// Only this task accepts on lfd: one multishot accept serves
			// them all (loop.RegisterAccept).
			f.registered = true
			if l.Lookup(f.lfd) == nil {
				l.RegisterAccept(f.lfd)
			}
		}
		fd, _, err := t.Accept(f.lfd)
		if t.Blocked() {
			return Suspend
		}
		if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) || errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.ENOMEM) {
			f.delay = min(max(2*f.delay, 5*time.Millisecond), time.Second)
			f.PC = 1
			continue
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, ErrCanceled) {
				f.fail(err)
			}
			return Done
		}
		f.delay = 0
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		if l := t.w.Loop(); l.Completion() {
			// The handler reads and writes fd through the task: let the
			// loop receive and send for it (loop.RegisterCompletion).
			l.RegisterCompletion(fd)
		}
		f.spawn(f.newHandler(fd))
	}
}

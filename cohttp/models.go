//go:build unix

package cohttp

import (
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// ServeStackful serves h on the non-blocking listening socket lfd with the
// limits lim, each connection in a stackful coroutine of env. The accept
// coroutine starts at once and runs until its first wait; the rest runs
// when the env's loop does. Call it on the env's main coroutine.
// On io_uring the connections are in the loop's completion mode, as
// ServeStackless's are: the coroutines read and write them only through
// the loop (stackful.Env.ServeTCPCompletion's contract).
func ServeStackful(env *stackful.Env, lfd int, h Handler, lim Limits) *Server {
	s := newServer(env.Loop(), lfd, h, lim)
	s.run = env.Run
	s.start = func(fd int) {
		registerCompletion(env.Loop(), fd)
		c := s.track(fd)
		env.Create(func(co *stackful.Co) { connMain(co, c) }, nil).Resume()
	}
	env.Create(func(co *stackful.Co) {
		s.endAccept(acceptLoop(co, s))
	}, nil).Resume()
	return s
}

// ServeStackless is ServeStackful with stackless tasks on l: the frames
// cogen generated from the same source. Nothing runs until l does.
// On io_uring the connections are in the loop's completion mode
// (loop.RegisterCompletion): no read or write system call per request.
func ServeStackless(l *loop.Loop, lfd int, h Handler, lim Limits) *Server {
	s := newServer(l, lfd, h, lim)
	s.tasks = map[*conn]*stackless.Task{}
	s.run = l.Run
	s.start = func(fd int) {
		registerCompletion(l, fd)
		c := s.track(fd)
		s.tasks[c] = stackless.Spawn(l, newConnTask(c))
	}
	accept := &acceptTaskFrame{acceptLoopFrame: *newAcceptLoopFrame(s), s: s, end: s.endAccept}
	stackless.Spawn(l, accept)
	return s
}

// acceptTaskFrame reports the end of the stackless accept loop to end.
type acceptTaskFrame struct {
	acceptLoopFrame
	s   *Server
	end func(error)
}

func (f *acceptTaskFrame) Step(t *stackless.Task) stackless.Status {
	st := f.acceptLoopFrame.Step(t)
	if st == stackless.Done {
		f.end(f.acceptLoopFrame.Result())
	}
	return st
}

// registerCompletion puts a stackless connection in the loop's completion
// mode when the loop has one (io_uring): the task reads and writes it only
// through the loop, and ShutdownWrite orders the half-close after the
// sends (loop.RegisterCompletion).
func registerCompletion(l *loop.Loop, fd int) {
	if l.Completion() {
		l.RegisterCompletion(fd)
	}
}

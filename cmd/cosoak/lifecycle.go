//go:build linux

package main

import (
	"errors"
	"os"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// lifecycleEvery is how often an env and a loop are built, filled with
// suspended work and closed.
const lifecycleEvery = 50 * time.Millisecond

// lifecycles closes envs and loops while their coroutines and tasks are
// suspended on descriptors, timers, conds and Yield, until the deadline,
// and checks every one of them unwinds.
func (s *soak) lifecycles() {
	rng := s.rng(3)
	for time.Now().Before(s.deadline) {
		s.closeEnvWithPendingWork(4 + rng.IntN(16))
		s.closeLoopWithPendingTasks(4 + rng.IntN(16))
		time.Sleep(lifecycleEvery)
	}
}

// socketpair returns a connected pair of non-blocking stream sockets.
func socketpair() ([2]int, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fds, os.NewSyscallError("socketpair", err)
	}
	return fds, nil
}

func (s *soak) closeEnvWithPendingWork(n int) {
	env, err := stackful.NewEnv()
	if err != nil {
		s.fail("lifecycle: %v", err)
		return
	}
	l := env.Loop()
	var cond loop.Cond
	unwound := 0
	var pairs [][2]int
	var cos []*stackful.Co
	for i := range n {
		var body func(co *stackful.Co)
		switch i % 4 {
		case 0:
			p, err := socketpair()
			if err != nil {
				s.fail("lifecycle: %v", err)
				continue
			}
			pairs = append(pairs, p)
			body = func(co *stackful.Co) {
				var buf [8]byte
				co.Read(p[0], buf[:])
				co.Read(p[0], buf[:]) // after Close this returns at once
			}
		case 1:
			body = func(co *stackful.Co) { co.Sleep(time.Hour) }
		case 2:
			body = func(co *stackful.Co) { co.Wait(&cond, -1) }
		case 3:
			body = func(co *stackful.Co) { co.Yield() }
		}
		co := env.Create(func(co *stackful.Co) {
			defer func() { unwound++ }()
			body(co)
		}, nil)
		co.Resume()
		cos = append(cos, co)
	}
	if err := l.RunOnce(); err != nil {
		s.fail("lifecycle: %v", err)
	}
	s.faults.Add(1)
	if err := env.Close(); err != nil {
		s.fail("lifecycle: env close: %v", err)
	}
	if env.Live() != 0 || unwound != len(cos) {
		s.fail("lifecycle: env closed with %d coroutines suspended: %d still live, %d unwound", len(cos), env.Live(), unwound)
	}
	for _, co := range cos {
		if co.Status() != stackful.Dead {
			s.fail("lifecycle: a coroutine of a closed env is %v", co.Status())
		}
	}
	for _, p := range pairs {
		unix.Close(p[0])
		unix.Close(p[1])
	}
}

func (s *soak) closeLoopWithPendingTasks(n int) {
	l, err := loop.New()
	if err != nil {
		s.fail("lifecycle: %v", err)
		return
	}
	var cond loop.Cond
	ts := newTimerStats(1)
	var pairs [][2]int
	var tasks []*stackless.Task
	var blockedFrames []*blockedFrame
	for i := range n {
		switch i % 2 {
		case 0:
			p, err := socketpair()
			if err != nil {
				s.fail("lifecycle: %v", err)
				continue
			}
			pairs = append(pairs, p)
			f := newBlockedFrame(p[0], &cond)
			blockedFrames = append(blockedFrames, f)
			tasks = append(tasks, stackless.Spawn(l, f))
		case 1:
			tasks = append(tasks, stackless.Spawn(l, newSleeperFrame(l, ts, 1, time.Hour)))
		}
	}
	if err := l.RunOnce(); err != nil {
		s.fail("lifecycle: %v", err)
	}
	for _, t := range tasks {
		if !t.Blocked() {
			s.fail("lifecycle: a task is not suspended before the loop closes")
		}
	}
	s.faults.Add(1)
	if err := l.Close(); err != nil {
		s.fail("lifecycle: loop close: %v", err)
	}
	for _, t := range tasks {
		if !t.Done() {
			s.fail("lifecycle: a task of a closed loop did not end")
		}
	}
	for _, f := range blockedFrames {
		// The read returns the loop's error; the wait after it would block
		// again, so the task is ended without returning (zero results).
		if _, err := f.Result(); err != nil && !errors.Is(err, loop.ErrClosed) {
			s.fail("lifecycle: a task reading when its loop closed got %v, want loop.ErrClosed", err)
		}
	}
	for _, p := range pairs {
		unix.Close(p[0])
		unix.Close(p[1])
	}
}

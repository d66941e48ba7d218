//go:build linux

package misuse

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// A misuse is one contract violation. fn runs on a fresh goroutine of its
// own; it either panics, or returns the error the misuse produced (nil
// means it silently succeeded, which fails the case).
type misuse struct {
	name string
	want string // the start of the panic's or error's message
	fn   func() error
}

func newEnv() *stackful.Env {
	e, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	return e
}

func newLoop() *loop.Loop {
	l, err := loop.New()
	if err != nil {
		panic(err)
	}
	return l
}

// idle is a waiter's runner that does nothing.
type idle struct{}

func (idle) Run() {}

// step is a stackless frame from a function.
type step struct {
	stackless.Base
	fn func(t *stackless.Task) stackless.Status
}

func (s *step) Step(t *stackless.Task) stackless.Status { return s.fn(t) }

func frame(fn func(t *stackless.Task) stackless.Status) *step { return &step{fn: fn} }

// runTask spawns fn on a fresh loop and runs it to the end.
func runTask(fn func(t *stackless.Task) stackless.Status) error {
	l := newLoop()
	defer l.Close()
	return stackless.Run(l, stackless.Spawn(l, frame(fn)))
}

func stackfulCases() []misuse {
	return []misuse{
		{"resume a dead coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			co := e.Create(func(*stackful.Co) {}, nil)
			co.Resume()
			co.Resume()
			return nil
		}},
		{"resume the running coroutine itself", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			e.Create(func(co *stackful.Co) { co.Resume() }, nil).Resume()
			return nil
		}},
		{"resume a released coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			co := e.Create(func(*stackful.Co) {}, nil)
			co.Release()
			co.Resume()
			return nil
		}},
		{"resume the main coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			e.Main().Resume()
			return nil
		}},
		{"resume a coroutine waiting on the loop", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			co := e.Create(func(co *stackful.Co) { co.Sleep(time.Hour) }, nil)
			co.Resume()
			co.Resume()
			return nil
		}},
		{"yield from the main coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			e.Main().Yield()
			return nil
		}},
		{"yield a coroutine from another goroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			co := e.Create(func(co *stackful.Co) { co.Yield() }, nil)
			co.Resume()
			got := make(chan any, 1)
			go func() {
				defer func() { got <- recover() }()
				co.Yield()
			}()
			if p := <-got; p != nil {
				panic(p)
			}
			return nil
		}},
		{"release a running coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			e.Create(func(co *stackful.Co) { co.Release() }, nil).Resume()
			return nil
		}},
		{"release a suspended coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			co := e.Create(func(co *stackful.Co) { co.Yield() }, nil)
			co.Resume()
			co.Release()
			return nil
		}},
		{"reset a suspended coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			co := e.Create(func(co *stackful.Co) { co.Yield() }, nil)
			co.Resume()
			co.Reset()
			return nil
		}},
		{"call stack deeper than MaxDepth", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			e.SetMaxDepth(4)
			var nest func(co *stackful.Co)
			nest = func(co *stackful.Co) { e.Create(nest, nil).Resume() }
			e.Create(nest, nil).Resume()
			return nil
		}},
		{"create on a closed env", "stackful: ", func() error {
			e := newEnv()
			e.Close()
			e.Create(func(*stackful.Co) {}, nil)
			return nil
		}},
		{"resume on a closed env", "stackful: ", func() error {
			e := newEnv()
			co := e.Create(func(*stackful.Co) {}, nil)
			e.Close()
			co.Resume()
			return nil
		}},
		{"close the env from a coroutine", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			e.Create(func(co *stackful.Co) { e.Close() }, nil).Resume()
			return nil
		}},
		{"wait on a coroutine that is not the current one", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			other := e.Create(func(co *stackful.Co) { co.Yield() }, nil)
			other.Resume()
			e.Create(func(co *stackful.Co) { other.Sleep(time.Millisecond) }, nil).Resume()
			return nil
		}},
		{"run a closed env", "loop: ", func() error {
			e := newEnv()
			e.Close()
			return e.Run(nil)
		}},
		{"a read on a descriptor closed under the waiter", "loop: ", func() error {
			e := newEnv()
			defer e.Close()
			fds, _ := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
			defer unix.Close(fds[1])
			var err error
			done := false
			co := e.Create(func(co *stackful.Co) {
				var buf [1]byte
				_, err = co.Read(fds[0], buf[:])
				done = true
			}, nil)
			co.Resume()
			e.Main().Close(fds[0])
			e.Run(func() bool { return done })
			return err
		}},
		{"a key used without NewKey", "stackful: ", func() error {
			e := newEnv()
			defer e.Close()
			var k stackful.Key[int]
			k.Get(e.Main())
			return nil
		}},
		{"a share stack used by two envs", "stackful: ", func() error {
			s := stackful.AllocShareStack(1, 0)
			e1, e2 := newEnv(), newEnv()
			defer e1.Close()
			defer e2.Close()
			e1.Create(func(*stackful.Co) {}, &stackful.Attr{ShareStack: s}).Resume()
			e2.Create(func(*stackful.Co) {}, &stackful.Attr{ShareStack: s}).Resume()
			return nil
		}},
	}
}

func stacklessCases() []misuse {
	var c loop.Cond
	return []misuse{
		{"a waiting operation outside the step", "stackless: ", func() error {
			l := newLoop()
			defer l.Close()
			t := stackless.Spawn(l, frame(func(*stackless.Task) stackless.Status { return stackless.Done }))
			t.Sleep(time.Millisecond)
			return nil
		}},
		{"two blocking operations in one step", "stackless: ", func() error {
			return runTask(func(t *stackless.Task) stackless.Status {
				t.Wait(&c, -1)
				t.Sleep(time.Millisecond)
				return stackless.Suspend
			})
		}},
		{"Suspend without a blocked operation", "stackless: ", func() error {
			return runTask(func(t *stackless.Task) stackless.Status { return stackless.Suspend })
		}},
		{"Done after an operation blocked", "stackless: ", func() error {
			return runTask(func(t *stackless.Task) stackless.Status {
				t.Gosched()
				return stackless.Done
			})
		}},
		{"Call after an operation blocked", "stackless: ", func() error {
			return runTask(func(t *stackless.Task) stackless.Status {
				t.Sleep(time.Hour)
				return t.Call(frame(func(*stackless.Task) stackless.Status { return stackless.Done }))
			})
		}},
		{"spawn a nil frame", "stackless: ", func() error {
			l := newLoop()
			defer l.Close()
			stackless.Spawn(l, nil)
			return nil
		}},
		{"await itself", "stackless: ", func() error {
			l := newLoop()
			defer l.Close()
			var self *stackless.Task
			self = stackless.Spawn(l, frame(func(t *stackless.Task) stackless.Status {
				t.Await(self)
				return stackless.Done
			}))
			return stackless.Run(l, self)
		}},
		{"await a task of another loop", "stackless: ", func() error {
			l1, l2 := newLoop(), newLoop()
			defer l1.Close()
			defer l2.Close()
			other := stackless.Spawn(l2, frame(func(*stackless.Task) stackless.Status { return stackless.Done }))
			return stackless.Run(l1, stackless.Spawn(l1, frame(func(t *stackless.Task) stackless.Status {
				t.Await(other)
				return stackless.Done
			})))
		}},
		{"run a task of another loop", "stackless: ", func() error {
			l1, l2 := newLoop(), newLoop()
			defer l1.Close()
			defer l2.Close()
			return stackless.Run(l1, stackless.Spawn(l2, frame(func(*stackless.Task) stackless.Status { return stackless.Done })))
		}},
		{"a task spawned on a closed loop", "loop: ", func() error {
			l := newLoop()
			l.Close()
			t := stackless.Spawn(l, frame(func(t *stackless.Task) stackless.Status { return stackless.Done }))
			err := stackless.Run(l, t)
			if err == nil && t.Done() {
				return errors.New("loop: (the task ran on a closed loop: a silent success)")
			}
			return err
		}},
		{"a read on a loop closed under the task", "loop: ", func() error {
			l := newLoop()
			fds, _ := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
			defer unix.Close(fds[0])
			defer unix.Close(fds[1])
			var err error
			t := stackless.Spawn(l, frame(func(t *stackless.Task) stackless.Status {
				var buf [1]byte
				_, err = t.Read(fds[0], buf[:])
				if t.Blocked() {
					return stackless.Suspend
				}
				return stackless.Done
			}))
			l.RunOnce()
			l.Close()
			if !t.Done() {
				return errors.New("loop: (the task is still running after Close)")
			}
			return err
		}},
	}
}

func cosyncCases() []misuse {
	type model struct {
		name string
		run  func(fn func(h cosync.Handle)) error // runs fn in a coroutine of a fresh loop
	}
	models := []model{
		{"stackful", func(fn func(h cosync.Handle)) error {
			e := newEnv()
			defer e.Close()
			e.Create(func(co *stackful.Co) { fn(co) }, nil).Resume()
			return nil
		}},
		{"stackless", func(fn func(h cosync.Handle)) error {
			ran := false
			return runTask(func(t *stackless.Task) stackless.Status {
				if !ran {
					ran = true
					fn(t)
				}
				if t.Blocked() {
					return stackless.Suspend
				}
				return stackless.Done
			})
		}},
	}
	var cases []misuse
	for _, m := range models {
		cases = append(cases,
			misuse{m.name + ": send on a closed channel", "cosync: ", func() error {
				return m.run(func(h cosync.Handle) {
					c := cosync.NewChan[int](1)
					c.Close()
					c.Send(h, 1)
				})
			}},
			misuse{m.name + ": close of a closed channel", "cosync: ", func() error {
				return m.run(func(h cosync.Handle) {
					c := cosync.NewChan[int](0)
					c.Close()
					c.Close()
				})
			}},
			misuse{m.name + ": close of a nil channel", "cosync: ", func() error {
				return m.run(func(h cosync.Handle) {
					var c *cosync.Chan[int]
					c.Close()
				})
			}},
			misuse{m.name + ": a nil channel blocks until its timeout", "loop: timed out", func() error { // cosync.ErrTimeout
				var err error
				m.run(func(h cosync.Handle) {
					var c *cosync.Chan[int]
					_, _, err = c.RecvTimeout(h, 0)
				})
				return err
			}},
			// A coroutine of one loop may use another loop's channel (the
			// bridge runs the operation there), but one Select cannot
			// wait on channels of two loops.
			misuse{m.name + ": a Select over channels of two loops", "cosync: ", func() error {
				other := newLoop()
				defer other.Close()
				c := cosync.NewChanOn[int](other, 1)
				return m.run(func(h cosync.Handle) {
					mine := cosync.NewChanOn[int](h.Waiter().Loop(), 1)
					cosync.Select(h, mine.SendCase(1), c.SendCase(1))
				})
			}},
			misuse{m.name + ": Bind to a second loop", "cosync: ", func() error {
				other := newLoop()
				defer other.Close()
				var mu cosync.Mutex
				mu.Bind(other)
				return m.run(func(h cosync.Handle) { mu.Bind(h.Waiter().Loop()) })
			}},
		)
	}
	return cases
}

func loopCases() []misuse {
	return []misuse{
		{"Run inside Run", "loop: ", func() error {
			l := newLoop()
			defer l.Close()
			l.Submit(func() { l.Run(nil) })
			return l.Run(nil)
		}},
		{"Submit after Close", "loop: ", func() error {
			l := newLoop()
			l.Close()
			return l.Submit(func() {})
		}},
		{"Run after Close", "loop: ", func() error {
			l := newLoop()
			l.Close()
			return l.Run(nil)
		}},
		{"register a descriptor twice", "loop: ", func() error {
			l := newLoop()
			defer l.Close()
			fds, _ := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
			defer unix.Close(fds[0])
			defer unix.Close(fds[1])
			if _, err := l.Register(fds[0]); err != nil {
				return err
			}
			_, err := l.Register(fds[0])
			return err
		}},
		{"a second reader on one descriptor", "loop: ", func() error {
			l := newLoop()
			defer l.Close()
			fds, _ := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
			defer unix.Close(fds[0])
			defer unix.Close(fds[1])
			f, err := l.Register(fds[0])
			if err != nil {
				return err
			}
			var a, b loop.Waiter
			a.Init(l, idle{})
			b.Init(l, idle{})
			if err := f.WaitRead(&a, -1); err != nil {
				return err
			}
			return f.WaitRead(&b, -1)
		}},
		{"a waiter armed twice", "loop: ", func() error {
			l := newLoop()
			defer l.Close()
			var w loop.Waiter
			w.Init(l, idle{})
			w.Park(-1)
			w.Park(-1)
			return nil
		}},
		{"a waiter used before Init", "loop: ", func() error {
			var w loop.Waiter
			w.Park(-1)
			return nil
		}},
	}
}

// TestMisuseMatrix runs every case of every model: each must panic or
// fail with its package's prefix, within a few seconds.
func TestMisuseMatrix(t *testing.T) {
	for _, group := range []struct {
		model string
		cases []misuse
	}{{"stackful", stackfulCases()}, {"stackless", stacklessCases()}, {"cosync", cosyncCases()}, {"loop", loopCases()}} {
		for _, m := range group.cases {
			t.Run(group.model+"/"+m.name, func(t *testing.T) {
				msg, how := outcome(m.fn)
				t.Logf("%s: %s", how, msg)
				switch {
				case how == "hang":
					t.Fatalf("hung: no panic or error within %v", hangLimit)
				case how == "success":
					t.Fatalf("silently succeeded")
				case !strings.HasPrefix(msg, m.want):
					t.Fatalf("%s %q, want a message starting with %q", how, msg, m.want)
				}
			})
		}
	}
}

const hangLimit = 10 * time.Second

// outcome runs fn on a goroutine of its own and says what it did: "panic"
// or "error" with the message, "success", or "hang".
func outcome(fn func() error) (msg, how string) {
	type result struct {
		msg, how string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{fmt.Sprint(p), "panic"}
			}
		}()
		if err := fn(); err != nil {
			done <- result{err.Error(), "error"}
			return
		}
		done <- result{"", "success"}
	}()
	select {
	case r := <-done:
		return r.msg, r.how
	case <-time.After(hangLimit):
		return "", "hang"
	}
}

//go:build linux

package stackless

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// TestMain fails the run if the tests leave descriptors open: sockets,
// pipes, epoll and eventfd instances (files, such as profiles, are not
// counted).
func TestMain(m *testing.M) {
	time.Sleep(time.Millisecond) // the runtime's own poller opens its fds on first use
	before := openFDs()
	code := m.Run()
	if after := openFDs(); code == 0 && len(after) > len(before) {
		fmt.Fprintf(os.Stderr, "stackless tests leaked file descriptors: before %v, after %v\n", before, after)
		code = 1
	}
	os.Exit(code)
}

// openFDs lists the open descriptors that are not regular files or
// devices.
func openFDs() []string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var fds []string
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || strings.HasPrefix(target, "/") {
			continue
		}
		fds = append(fds, e.Name()+"="+target)
	}
	return fds
}

// fn is a frame whose Step is a closure, so that a test writes a small
// state machine inline, in the shape generated code has: step receives the
// frame's PC.
type fn struct {
	Base
	step func(t *Task, pc *int) Status
}

func (f *fn) Step(t *Task) Status { return f.step(t, &f.PC) }

func newFn(step func(t *Task, pc *int) Status) *fn { return &fn{step: step} }

// newLoop returns a loop closed when the test ends.
func newLoop(t testing.TB) *loop.Loop {
	t.Helper()
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// run runs l until tasks finish, failing the test if that takes longer than
// limit: a guard timer on the loop closes it, which ends the wait.
func run(t testing.TB, l *loop.Loop, limit time.Duration, tasks ...*Task) {
	t.Helper()
	var guard loop.Timer
	expired := false
	l.Reset(&guard, limit, func() { expired = true; l.Close() })
	err := Run(l, tasks...)
	if !l.Closed() {
		l.CancelTimer(&guard)
	}
	if expired {
		t.Fatalf("tasks not finished after %v", limit)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// mustPanic runs f and returns the value it panicked with; it fails the test
// if f returns normally or the value does not mention want.
func mustPanic(t testing.TB, want string, f func()) any {
	t.Helper()
	var v any
	func() {
		defer func() { v = recover() }()
		f()
	}()
	if v == nil {
		t.Fatalf("no panic, want one mentioning %q", want)
	}
	if !strings.Contains(fmt.Sprint(v), want) {
		t.Fatalf("panic %q, want one mentioning %q", v, want)
	}
	return v
}

// pipe returns a non-blocking pipe. The test closes both ends.
func pipe(t testing.TB) (r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	return p[0], p[1]
}

// socketpair returns a connected non-blocking AF_UNIX stream pair. The test
// closes both ends.
func socketpair(t testing.TB) (a, b int) {
	t.Helper()
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p[0], p[1]
}

// isOpen reports whether fd is an open descriptor.
func isOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

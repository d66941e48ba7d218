//go:build linux

package hook

import (
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// TestNoLeaks opens and closes 1000 connections through the hooked calls,
// with a coroutine per connection on each side, and checks that no
// descriptor, table entry or goroutine is left behind.
func TestNoLeaks(t *testing.T) {
	const conns, parallel = 1000, 50
	fds0, entries0, g0 := openFDs(t), table.count(), runtime.NumGoroutine()
	func() {
		e := newEnv(t)
		lfd, sa := listen(t, 128)
		served, finished := 0, 0
		var firstErr error
		fail := func(err error) {
			if firstErr == nil {
				firstErr = err
			}
		}
		spawn(e, func(co *stackful.Co) {
			for {
				fd, _, err := Accept(lfd)
				if err != nil {
					return // closed at the end
				}
				spawn(e, func(co *stackful.Co) {
					defer Close(fd)
					buf := make([]byte, 64)
					for {
						n, err := Read(fd, buf)
						if err != nil || n == 0 {
							served++
							return
						}
						Write(fd, buf[:n])
					}
				})
			}
		})
		for i := range parallel {
			spawn(e, func(co *stackful.Co) {
				defer func() { finished++ }()
				for j := i; j < conns; j += parallel {
					fd, err := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
					if err != nil {
						fail(err)
						return
					}
					if err := Connect(fd, sa); err != nil {
						fail(err)
					}
					buf := []byte("ping")
					Write(fd, buf)
					if n, err := Read(fd, buf); n != 4 || err != nil {
						fail(err)
					}
					Close(fd)
				}
			})
		}
		runUntil(t, e, 60*time.Second, func() bool { return finished == parallel && served == conns })
		if firstErr != nil {
			t.Fatal(firstErr)
		}
		Close(lfd)
		runUntil(t, e, time.Second, func() bool { return e.Live() == 0 })
		e.Close()
	}()
	if n := openFDs(t); n != fds0 {
		t.Errorf("%d descriptors open, %d before", n, fds0)
	}
	if n := table.count(); n != entries0 {
		t.Errorf("%d hook table entries, %d before", n, entries0)
	}
	if n := settledGoroutines(g0); n > g0 {
		t.Errorf("%d goroutines, %d before", n, g0)
	}
}

//go:build linux

package conet

import (
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func newEnv(t testing.TB) *stackful.Env {
	t.Helper()
	e, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// spawn starts fn in a new coroutine with hooks enabled.
func spawn(e *stackful.Env, fn func(co *stackful.Co)) *stackful.Co {
	co := e.Create(func(co *stackful.Co) {
		co.EnableHook()
		fn(co)
	}, nil)
	co.Resume()
	return co
}

// runUntil runs e's loop until done reports true, failing the test after
// limit.
func runUntil(t testing.TB, e *stackful.Env, limit time.Duration, done func() bool) {
	t.Helper()
	expired := false
	var guard loop.Timer
	e.Loop().Reset(&guard, limit, func() { expired = true })
	if !done() {
		if err := e.Run(func() bool { return expired || done() }); err != nil {
			t.Fatal(err)
		}
	}
	e.Loop().Stop(&guard)
	if !done() {
		t.Fatalf("not done after %v", limit)
	}
}

type ticker struct {
	n          int
	stop, done bool
}

func startTicker(e *stackful.Env) *ticker {
	tk := new(ticker)
	spawn(e, func(co *stackful.Co) {
		for !tk.stop {
			co.Sleep(time.Millisecond)
			tk.n++
		}
		tk.done = true
	})
	return tk
}

func (tk *ticker) end(t testing.TB, e *stackful.Env) {
	tk.stop = true
	runUntil(t, e, time.Second, func() bool { return tk.done })
}

// listenTCP listens on 127.0.0.1 with this package, closed at the end.
func listenTCP(t testing.TB) *Listener {
	t.Helper()
	ln, err := Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.(*Listener)
}

// pair returns both ends of a TCP connection made in coroutines of e.
func pair(t testing.TB, e *stackful.Env) (client, server *Conn) {
	t.Helper()
	ln := listenTCP(t)
	var cerr, serr error
	n := 0
	spawn(e, func(co *stackful.Co) {
		server, serr = ln.AcceptConn()
		n++
	})
	spawn(e, func(co *stackful.Co) {
		var c net.Conn
		c, cerr = Dial("tcp", ln.Addr().String())
		if c != nil {
			client = c.(*Conn)
		}
		n++
	})
	runUntil(t, e, 5*time.Second, func() bool { return n == 2 })
	if cerr != nil || serr != nil {
		t.Fatalf("dial: %v, accept: %v", cerr, serr)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents)
}

func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

//go:build linux

package conet

import (
	"net"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// The shared helpers live in internal/cotest; these names keep the tests short.
var (
	newEnv            = cotest.NewEnv
	spawn             = cotest.Spawn
	runUntil          = cotest.RunUntil
	startTicker       = cotest.StartTicker
	openFDs           = cotest.OpenFDs
	settledGoroutines = cotest.SettledGoroutines
)

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

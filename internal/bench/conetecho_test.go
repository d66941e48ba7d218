//go:build linux

package bench

import (
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
)

// TestConetEcho measures a conet echo server (64-byte reads, one loop on
// a locked thread) under echoload's 100 connections for 3 s, with
// conet.ServeConns or, with COGEN_CONET_ECHO=completion,
// conet.ServeCompletion; the backend is COGEN_LOOP_BACKEND's. It runs only
// when COGEN_CONET_ECHO is set (docs/benchmarks.md, io_uring's completion
// section, alternates the three forms):
//
//	go test -c -o /tmp/b ./internal/bench
//	COGEN_CONET_ECHO=readiness COGEN_LOOP_BACKEND=epoll /tmp/b -test.run TestConetEcho -test.v
//	COGEN_CONET_ECHO=completion COGEN_LOOP_BACKEND=uring /tmp/b -test.run TestConetEcho -test.v
func TestConetEcho(t *testing.T) {
	mode := os.Getenv("COGEN_CONET_ECHO")
	if mode == "" {
		t.Skip("a measurement: set COGEN_CONET_ECHO=readiness or completion")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	env := stackful.NewEnvOn(l)
	defer env.Close()
	ln, err := conet.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	echo := func(hc *stackful.Co, c net.Conn) {
		defer c.Close()
		buf := make([]byte, 64)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
	}
	cotest.Spawn(env, func(co *stackful.Co) {
		if mode == "completion" {
			conet.ServeCompletion(co, ln, 0, echo, nil)
		} else {
			conet.ServeConns(co, ln, 0, echo, nil)
		}
	})
	cfg := echoload.Config{Conns: 100, Duration: 3 * time.Second, Timeout: 20 * time.Second, Addr: ln.Addr().String()}
	res, err := serveLoad(cfg, func(time.Duration) error { return ln.Close() }, func(ld *echoload.Load) error { return serveUntil(l, ld) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("conet echo, %s on %s: %s", mode, l.Backend(), res)
}

//go:build linux

package conet

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestServeGroup: one SO_REUSEPORT listener per env; connections are
// spread over the envs and served as net.Conns; at the shutdown deadline
// the open ones end through their handlers' error paths. No fd or
// goroutine is left.
func TestServeGroup(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), openFDs(t)
	const n, conns = 2, 32
	g, err := stackful.NewGroup(n)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	served := map[*stackful.Env]int{}
	addr, err := ServeGroup(g, "tcp4", "127.0.0.1:0", func(co *stackful.Co, c net.Conn) {
		defer c.Close()
		mu.Lock()
		served[co.Env()]++
		mu.Unlock()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cs []net.Conn
	for range conns {
		c, err := net.Dial("tcp4", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
		io.WriteString(c, "hello\n")
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || line != "hello\n" {
			t.Fatalf("echo: %q, %v", line, err)
		}
	}
	mu.Lock()
	if len(served) != n {
		t.Errorf("connections served by %d envs, want %d: %v", len(served), n, served)
	}
	mu.Unlock()
	if err := g.Shutdown(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("a connection open at the deadline: read %v, want EOF", err)
		}
		c.Close()
	}
	if got := settledGoroutines(gs); got > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", got, gs)
	}
	if got := openFDs(t); got != fds {
		t.Errorf("open fds: %d, want %d", got, fds)
	}
}

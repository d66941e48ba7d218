//go:build linux

package stackful_test

import (
	"errors"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestGroupGo: Go runs a coroutine on the env asked for, GoNext spreads
// them round-robin, and Shutdown waits for the live ones (here, sleepers)
// before closing every env, leaving no goroutine behind.
func TestGroupGo(t *testing.T) {
	gs := runtime.NumGoroutine()
	const n, per = 3, 10
	g, err := stackful.NewGroup(n)
	if err != nil {
		t.Fatal(err)
	}
	ran := make([][]int, n) // ran[i]: the env index each coroutine of env i saw
	for range n * per {
		i, err := g.GoNext(func(co *stackful.Co) {
			co.Sleep(20 * time.Millisecond)
			for j := range n {
				if co.Env() == g.Env(j) {
					ran[j] = append(ran[j], j)
				}
			}
		})
		if err != nil || i < 0 || i >= n {
			t.Fatalf("GoNext: %d, %v", i, err)
		}
	}
	if err := g.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for j := range n {
		if len(ran[j]) != per {
			t.Errorf("env %d ran %d coroutines to the end, want %d", j, len(ran[j]), per)
		}
		if !g.Env(j).Closed() {
			t.Errorf("env %d not closed", j)
		}
	}
	if err := g.Go(0, func(*stackful.Co) {}); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Go after Shutdown: %v", err)
	}
	if got := cotest.SettledGoroutines(gs); got > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", got, gs)
	}
}

// TestGroupShutdownDeadline: a coroutine still waiting at the deadline has
// its wait canceled, runs its error path, and its env then closes.
func TestGroupShutdownDeadline(t *testing.T) {
	gs := runtime.NumGoroutine()
	g, err := stackful.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]string, 2)
	for i := range 2 {
		g.Go(i, func(co *stackful.Co) {
			var c stackful.Cond
			if co.Wait(&c, -1) {
				results[i] = "signaled"
			} else {
				results[i] = "canceled"
			}
			co.Sleep(time.Millisecond) // canceled too: then unwound
			results[i] += ", not unwound"
		})
	}
	start := time.Now()
	if err := g.Shutdown(50 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if want := []string{"canceled", "canceled"}; !slices.Equal(results, want) {
		t.Errorf("coroutines: %q, want %q", results, want)
	}
	if got := cotest.SettledGoroutines(gs); got > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", got, gs)
	}
}

// TestGroupPanic: a coroutine's panic fails its loop and shuts the group
// down with the panic as the error.
func TestGroupPanic(t *testing.T) {
	g, err := stackful.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	g.Go(1, func(co *stackful.Co) {
		co.Sleep(time.Millisecond)
		panic("coroutine boom")
	})
	select {
	case <-g.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the group did not shut down")
	}
	if err := g.Wait(); err == nil || !strings.Contains(err.Error(), "coroutine boom") {
		t.Errorf("Wait: %v", err)
	}
}

// echoFD echoes fd until end of file or an error, then closes it.
func echoFD(co *stackful.Co, fd int) {
	var buf [64]byte
	for {
		n, err := co.Read(fd, buf[:])
		if err != nil || n == 0 {
			co.Close(fd)
			return
		}
		if _, err := co.Write(fd, buf[:n]); err != nil {
			co.Close(fd)
			return
		}
	}
}

// TestGroupServeTCP: one SO_REUSEPORT listener per env; connections are
// spread over the envs, in-flight ones finish, and at the deadline the
// idle ones are closed by their handlers. No fd or goroutine is left.
func TestGroupServeTCP(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), cotest.OpenFDs(t)
	const n, conns = 2, 32
	g, err := stackful.NewGroup(n)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	served := map[*stackful.Env]int{}
	addr, err := g.ServeTCP("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		mu.Lock()
		served[co.Env()]++
		mu.Unlock()
		echoFD(co, fd)
	})
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
		ping(t, c, "hi")
	}
	mu.Lock()
	if len(served) != n {
		t.Errorf("connections served by %d envs, want %d: %v", len(served), n, served)
	}
	mu.Unlock()
	// The connections stay open and idle: in flight until the deadline.
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
	if _, err := net.DialTimeout("tcp4", addr.String(), time.Second); err == nil {
		t.Error("dial after Shutdown succeeded")
	}
	if got := cotest.SettledGoroutines(gs); got > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", got, gs)
	}
	if got := cotest.OpenFDs(t); got != fds {
		t.Errorf("open fds: %d, want %d", got, fds)
	}
}

// TestGroupServeTCPInFlight: a request being served when Shutdown starts
// is answered before the env closes.
func TestGroupServeTCPInFlight(t *testing.T) {
	g, err := stackful.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	addr, err := g.ServeTCP("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		var buf [8]byte
		n, err := co.Read(fd, buf[:])
		if err != nil {
			return
		}
		close(started)
		co.Sleep(100 * time.Millisecond) // slow work, in flight at Shutdown
		co.Write(fd, buf[:n])
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp4", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("req"))
	<-started
	shut := make(chan error, 1)
	go func() { shut <- g.Shutdown(5 * time.Second) }()
	buf := make([]byte, 8)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "req" {
		t.Errorf("in-flight reply: %q, %v", buf[:n], err)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
}

func ping(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != msg {
		t.Fatalf("echo of %q: %q, %v", msg, buf, err)
	}
}

// TestGroupServeTCPShutdownAtOnce: a shutdown right after ServeTCP closes
// the listeners cleanly.
func TestGroupServeTCPShutdownAtOnce(t *testing.T) {
	for range 20 {
		g, err := stackful.NewGroup(2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.ServeTCP("tcp4", "127.0.0.1:0", echoFD); err != nil {
			t.Fatal(err)
		}
		if err := g.Shutdown(time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

//go:build linux

package stackless

import (
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// settle waits up to a second for the goroutine count to drop to want.
func settle(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// TestGroupSpawn: SpawnNext spreads tasks round-robin over the loops, and
// Shutdown waits for them (here, sleepers) before closing the loops.
func TestGroupSpawn(t *testing.T) {
	gs := runtime.NumGoroutine()
	const n, per = 3, 10
	g, err := NewGroup(n)
	if err != nil {
		t.Fatal(err)
	}
	finished := make([]int, n) // finished[j] is touched only by loop j
	for range n * per {
		if _, err := g.SpawnNext(newFn(func(t *Task, pc *int) Status {
			if *pc == 0 {
				t.Sleep(20 * time.Millisecond)
				if t.Blocked() {
					return Suspend
				}
				*pc = 1
			}
			for j := range n {
				if t.Loop() == g.Loop(j) {
					finished[j]++
				}
			}
			return Done
		})); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if want := []int{per, per, per}; !slices.Equal(finished, want) {
		t.Errorf("tasks finished per loop %v, want %v", finished, want)
	}
	if err := g.Spawn(0, newFn(func(*Task, *int) Status { return Done })); err == nil {
		t.Error("Spawn after Shutdown succeeded")
	}
	if got := settle(gs); got > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", got, gs)
	}
}

// TestGroupShutdownCancels: a task still waiting at the deadline is
// canceled and unwinds on its own path before its loop closes.
func TestGroupShutdownCancels(t *testing.T) {
	g, err := NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]string, 2)
	conds := make([]loop.Cond, 2)
	for i := range 2 {
		g.Spawn(i, newFn(func(t *Task, pc *int) Status {
			ok := t.Wait(&conds[i], -1)
			if t.Blocked() {
				return Suspend
			}
			results[i] = map[bool]string{true: "signaled", false: "wait ended"}[ok]
			if t.Canceled() {
				results[i] += ", canceled"
			}
			return Done
		}))
	}
	start := time.Now()
	if err := g.Shutdown(50 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if want := []string{"wait ended, canceled", "wait ended, canceled"}; !slices.Equal(results, want) {
		t.Errorf("tasks: %q, want %q", results, want)
	}
}

// TestGroupTaskPanic: a task's panic becomes the group's error.
func TestGroupTaskPanic(t *testing.T) {
	g, err := NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	g.Spawn(1, newFn(func(*Task, *int) Status { panic("task boom") }))
	time.Sleep(10 * time.Millisecond)
	if err := g.Shutdown(time.Second); err == nil || !strings.Contains(err.Error(), "task boom") {
		t.Errorf("Shutdown: %v, want the task's panic", err)
	}
}

// groupEcho echoes its connection until end of file or an error, then
// closes it; it counts itself in served by loop.
type groupEcho struct {
	Base
	fd    int
	buf   [64]byte
	n     int
	count func(l *loop.Loop)
}

func (f *groupEcho) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			f.count(t.Loop())
			f.PC = 1
		case 1:
			n, err := t.Read(f.fd, f.buf[:])
			if t.Blocked() {
				return Suspend
			}
			if err != nil || n == 0 {
				t.Close(f.fd)
				return Done
			}
			f.n, f.PC = n, 2
		case 2:
			_, err := t.Write(f.fd, f.buf[:f.n])
			if t.Blocked() {
				return Suspend
			}
			if err != nil {
				t.Close(f.fd)
				return Done
			}
			f.PC = 1
		}
	}
}

// TestGroupServe: one SO_REUSEPORT listener per loop; connections are
// spread over the loops, and at the shutdown deadline the idle ones are
// canceled and closed by their handlers.
func TestGroupServe(t *testing.T) {
	gs := runtime.NumGoroutine()
	const n, conns = 2, 32
	g, err := NewGroup(n)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	served := map[*loop.Loop]int{}
	count := func(l *loop.Loop) {
		mu.Lock()
		served[l]++
		mu.Unlock()
	}
	addr, err := g.ServeTCP("tcp4", "127.0.0.1:0", func(fd int) Frame { return &groupEcho{fd: fd, count: count} })
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
		c.Write([]byte("hi"))
		buf := make([]byte, 2)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hi" {
			t.Fatalf("echo: %q, %v", buf, err)
		}
	}
	mu.Lock()
	if len(served) != n {
		t.Errorf("connections served by %d loops, want %d: %v", len(served), n, served)
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
	if got := settle(gs); got > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", got, gs)
	}
}

// TestGroupServeShutdownAtOnce: a shutdown right after Serve, before the
// accept tasks have run, closes the listeners cleanly.
func TestGroupServeShutdownAtOnce(t *testing.T) {
	for range 20 {
		g, err := NewGroup(2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.ServeTCP("tcp4", "127.0.0.1:0", func(fd int) Frame { return &groupEcho{fd: fd, count: func(*loop.Loop) {}} }); err != nil {
			t.Fatal(err)
		}
		if err := g.Shutdown(time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

//go:build linux

package stackful

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The trap the watchdog is for: a coroutine waits on a sync.Mutex held by
// a suspended coroutine of its env. Without the watchdog the test would
// hang; the handler reports and then releases the mutex.
func TestStallBlockedOnMutex(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	e.SetStallTimeout(100 * time.Millisecond)
	var mu sync.Mutex
	stalls := make(chan Stall, 4)
	e.OnStall(func(s Stall) {
		stalls <- s
		if s.Blocked {
			mu.Unlock() // on the holder's behalf: lets the waiter go on
		}
	})
	holder := e.Create(func(co *Co) {
		mu.Lock()  //co:blocking the trap this test sets
		co.Yield() // suspended, holding mu
	}, nil)
	holder.Resume()
	got := false
	waiter := e.Create(func(co *Co) {
		mu.Lock() // blocks in Go's scheduler: the env is frozen
		got = true
		mu.Unlock()
	}, nil)
	start := time.Now()
	waiter.Resume() // returns once the handler has unlocked mu
	if !got || waiter.Status() != Dead {
		t.Fatalf("waiter: got %v, status %v", got, waiter.Status())
	}
	s := <-stalls
	if s.Co != waiter || !s.Blocked || s.State != "sync.Mutex.Lock" || s.Goroutine == 0 {
		t.Errorf("stall = %+v, want the waiter blocked in sync.Mutex.Lock", s)
	}
	if s.For < 100*time.Millisecond || time.Since(start) > 5*time.Second {
		t.Errorf("stall reported after %v (For %v), want between the timeout and a few seconds", time.Since(start), s.For)
	}
	if !strings.Contains(s.Stack, "TestStallBlockedOnMutex") || !strings.Contains(s.Stack, "sync.(*Mutex).Lock") {
		t.Errorf("stack does not show the waiter's frames:\n%s", s.Stack)
	}
	if !strings.Contains(s.String(), "blocked in sync.Mutex.Lock outside the event loop") {
		t.Errorf("report:\n%s", s)
	}
	select {
	case s := <-stalls:
		t.Errorf("second report %+v", s)
	default:
	}
	holder.Resume()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, base) // the watchdog ended with the env
}

// Without a handler the report goes to stderr, once, naming what the
// coroutine is blocked in; a channel receive is a stall like a mutex.
func TestStallReportOnStderr(t *testing.T) {
	var out lockedBuffer
	stallOutput = &out
	defer func() { stallOutput = os.Stderr }()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetStallTimeout(50 * time.Millisecond)
	ch := make(chan int)
	go func() {
		for !strings.Contains(out.String(), "stackful: stall:") {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // several more samples: no second report
		ch <- 1
	}()
	co := e.Create(func(co *Co) { <-ch }, nil) //co:blocking the stall to report
	co.Resume()
	report := out.String()
	if strings.Count(report, "stackful: stall:") != 1 ||
		!strings.Contains(report, "blocked in chan receive outside the event loop") ||
		!strings.Contains(report, "hook.Offload") || !strings.Contains(report, "TestStallReportOnStderr") {
		t.Errorf("report:\n%s", report)
	}
}

// A coroutine that computes is not printed; a handler sees it, with
// Blocked false.
func TestStallComputing(t *testing.T) {
	var out lockedBuffer
	stallOutput = &out
	defer func() { stallOutput = os.Stderr }()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetStallTimeout(50 * time.Millisecond)
	spin := func(co *Co) {
		for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); {
		}
	}
	e.Create(spin, nil).Resume()
	if out.Len() != 0 {
		t.Errorf("a computing coroutine was reported:\n%s", out.String())
	}
	var mu sync.Mutex
	var seen []Stall
	e.OnStall(func(s Stall) { mu.Lock(); seen = append(seen, s); mu.Unlock() })
	e.Create(spin, nil).Resume()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the handler saw no stall")
	}
	for _, s := range seen {
		if s.Blocked || (s.State != "running" && s.State != "runnable") {
			t.Errorf("stall %+v, want a computing one", s)
		}
	}
	// Reports back off: 50 ms, then twice the time each.
	if len(seen) > 4 {
		t.Errorf("%d reports for one 400 ms computation", len(seen))
	}
}

// No coroutine current, nothing reported; SetStallTimeout(0) turns the
// watchdog off.
func TestStallIdleAndOff(t *testing.T) {
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetStallTimeout(20 * time.Millisecond)
	if e.StallTimeout() != 20*time.Millisecond {
		t.Fatalf("StallTimeout = %v", e.StallTimeout())
	}
	var mu sync.Mutex
	n := 0
	e.OnStall(func(Stall) { mu.Lock(); n++; mu.Unlock() })
	co := e.Create(func(co *Co) { co.Sleep(200 * time.Millisecond) }, nil)
	co.Resume()
	e.Run(func() bool { return co.Status() == Dead }) // waiting on the loop is not a stall
	time.Sleep(100 * time.Millisecond)                // main, idle
	e.SetStallTimeout(0)
	ch := make(chan struct{})
	time.AfterFunc(200*time.Millisecond, func() { close(ch) })
	e.Create(func(co *Co) { <-ch }, nil).Resume() //co:blocking with the watchdog off
	mu.Lock()
	defer mu.Unlock()
	if n != 0 {
		t.Errorf("%d stalls reported", n)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

func TestStallStringUnknown(t *testing.T) {
	s := Stall{For: 1500 * time.Millisecond, State: "unknown", Blocked: true}.String()
	if !strings.Contains(s, "has kept its env for 1.5s, in an unknown state (its goroutine is not in the traceback)") ||
		!strings.Contains(s, "hook.Offload") {
		t.Errorf("report:\n%s", s)
	}
}

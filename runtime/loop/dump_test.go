//go:build linux

package loop

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

type describedRunner struct{}

type noop struct{}

func (noop) Run() {}

func (describedRunner) Run()             {}
func (describedRunner) Describe() string { return "task at handler.go:42" }

// TestDumpAll: a loop blocked in its poller answers DumpAll with each armed
// waiter, what it waits on and its runner's own description; a closed loop
// is not listed.
func TestDumpAll(t *testing.T) {
	l := newLoop(t)
	a, _ := socketpair(t)
	f, err := l.Register(a)
	if err != nil {
		t.Fatal(err)
	}
	var reader, sleeper, condWaiter Waiter
	reader.Init(l, describedRunner{})
	sleeper.Init(l, noop{})
	condWaiter.Init(l, noop{})
	if err := f.WaitRead(&reader, -1); err != nil {
		t.Fatal(err)
	}
	sleeper.Sleep(time.Hour)
	var c Cond
	c.Wait(&condWaiter, -1)

	closed, err := New()
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()

	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- l.Run(func() bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		})
	}()
	var out strings.Builder
	DumpAll(&out, 5*time.Second)
	close(stop)
	l.Submit(func() {})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	dump := out.String()
	t.Log(dump)
	for _, want := range []string{
		"3 waiters armed",
		"task at handler.go:42: reading fd",
		"loop.noop: parked, deadline in 59m",
		"loop.noop: waiting on cond",
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("dump lacks %q", want)
		}
	}
	if strings.Contains(dump, "no answer") {
		t.Error("a loop in its poller did not answer")
	}
	if strings.Contains(dump, fmt.Sprintf("loop %p:", closed)) {
		t.Error("a closed loop is still listed")
	}
}

// TestDumpAllUnresponsive: a loop whose goroutine is not in its poller does
// not answer; DumpAll says so and reads its state anyway.
func TestDumpAllUnresponsive(t *testing.T) {
	l := newLoop(t) // never run: nobody takes its submissions
	var sleeper Waiter
	sleeper.Init(l, describedRunner{})
	sleeper.Sleep(time.Hour)
	var out strings.Builder
	DumpAll(&out, 20*time.Millisecond)
	dump := out.String()
	for _, want := range []string{fmt.Sprintf("loop %p: no answer within 20ms", l), "task at handler.go:42: parked, deadline in"} {
		if !strings.Contains(dump, want) {
			t.Errorf("dump lacks %q:\n%s", want, dump)
		}
	}
}

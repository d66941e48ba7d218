//go:build linux

package loop_test

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// task adapts a func to loop.Runner: what a waiter runs when woken.
type task func()

func (f task) Run() { f() }

// A loop runs on one goroutine; other goroutines hand it work with Submit.
// Run calls stop once per iteration and returns when it reports true.
func Example() {
	l, err := loop.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	done := make(chan struct{})
	finished := false
	go func() {
		defer close(done)
		l.Submit(func() { fmt.Println("submitted from another goroutine") })
		l.Submit(func() { finished = true })
	}()
	if err := l.Run(func() bool { return finished }); err != nil {
		fmt.Println(err)
	}
	<-done
	fmt.Println("stopped")
	// Output:
	// submitted from another goroutine
	// stopped
}

// Timers fire in deadline order, never early; equal deadlines fire in the
// order they were set.
func ExampleLoop_AfterFunc() {
	l, err := loop.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	left := 3
	start := l.Now()
	for _, name := range []string{"30ms", "10ms", "20ms"} {
		d, _ := time.ParseDuration(name)
		l.AfterFunc(d, func() {
			fmt.Println(name, "fired; early:", l.Now()-start < d)
			left--
		})
	}
	l.Run(func() bool { return left == 0 })
	// Output:
	// 10ms fired; early: false
	// 20ms fired; early: false
	// 30ms fired; early: false
}

// A Cond wakes its waiters in arrival order. The woken waiters run from the
// ready queue, after the signaller is done, never inside Signal.
func ExampleCond() {
	l, err := loop.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	var c loop.Cond
	ws := make([]loop.Waiter, 3)
	for i := range ws {
		w := &ws[i]
		w.Init(l, task(func() { fmt.Println("waiter", i, "woke:", w.Reason()) }))
		c.Wait(w, -1)
	}
	var timed loop.Waiter
	timed.Init(l, task(func() { fmt.Println("timed waiter woke:", timed.Reason()) }))
	c.Wait(&timed, 10*time.Millisecond)

	c.Signal()
	fmt.Println("signalled one; broadcast woke", c.Broadcast(), "more")
	l.RunOnce()
	var last loop.Waiter
	last.Init(l, task(func() { fmt.Println("last waiter woke:", last.Reason()) }))
	c.Wait(&last, 10*time.Millisecond)
	l.Run(func() bool { return !last.Armed() && !last.Queued() })
	// Output:
	// signalled one; broadcast woke 3 more
	// waiter 0 woke: signaled
	// waiter 1 woke: signaled
	// waiter 2 woke: signaled
	// timed waiter woke: signaled
	// last waiter woke: timeout
}

// A Waiter waits for a file descriptor. The operation is retried after each
// wake-up: the registration is edge-triggered, and a wake-up may be early.
func ExampleWaiter() {
	l, err := loop.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		fmt.Println(err)
		return
	}
	defer unix.Close(p[1])
	f, err := l.Register(p[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	var reader loop.Waiter
	buf := make([]byte, 16)
	got := ""
	read := func() {
		n, err := unix.Read(p[0], buf)
		switch {
		case err == unix.EAGAIN:
			f.WaitRead(&reader, time.Second) // wake me when readable, or after 1 s
		case err != nil || n == 0:
			got = "end"
		default:
			got = string(buf[:n])
		}
	}
	reader.Init(l, task(func() {
		if r := reader.Reason(); r != loop.Ready {
			got = r.Err().Error()
			return
		}
		read()
	}))
	read() // nothing yet: arms the waiter
	fmt.Println("armed:", reader.Armed())

	var writer loop.Waiter
	writer.Init(l, task(func() { unix.Write(p[1], []byte("hello")) }))
	writer.Sleep(5 * time.Millisecond)

	l.Run(func() bool { return got != "" })
	fmt.Println("read:", got)
	// Output:
	// armed: true
	// read: hello
}

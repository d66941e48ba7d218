//go:build linux

package stackful

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// start creates and resumes a coroutine.
func start(e *Env, fn func(co *Co)) *Co {
	co := e.Create(fn, nil)
	co.Resume()
	return co
}

// runUntilDone runs the loop until every co is dead, failing after 10 s.
func runUntilDone(t *testing.T, e *Env, cos ...*Co) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	done := func() bool {
		for _, co := range cos {
			if co.Status() != Dead {
				return time.Now().After(deadline)
			}
		}
		return true
	}
	if !done() {
		var timer loop.Timer // bounds the test if nothing else wakes the loop
		e.Loop().Reset(&timer, 10*time.Second, func() {})
		defer e.Loop().CancelTimer(&timer)
		if err := e.Run(done); err != nil {
			t.Fatal(err)
		}
	}
	for _, co := range cos {
		if co.Status() != Dead {
			t.Fatalf("coroutine still %v after 10 s", co.Status())
		}
	}
}

func pipe(t *testing.T) (r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

func socketpair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func TestCondSignalBroadcast(t *testing.T) {
	e := newEnv(t)
	var c Cond
	var log []string
	var cos []*Co
	for i := 1; i <= 3; i++ {
		cos = append(cos, start(e, func(co *Co) {
			log = append(log, fmt.Sprintf("w%d-wait", i))
			ok := co.Wait(&c, -1)
			log = append(log, fmt.Sprintf("w%d-woke:%v", i, ok))
		}))
	}
	if c.Len() != 3 {
		t.Fatalf("Len %d", c.Len())
	}
	s := start(e, func(co *Co) {
		if !c.Signal() {
			t.Error("Signal found no waiter")
		}
		// Not inline: the signalled waiter has not run yet.
		log = append(log, fmt.Sprintf("signalled:w1=%v", cos[0].Status()))
		co.Gosched()
		log = append(log, fmt.Sprintf("broadcast:%d", c.Broadcast()))
		log = append(log, fmt.Sprintf("after:w2=%v", cos[1].Status()))
	})
	runUntilDone(t, e, append(cos, s)...)
	want := "w1-wait w2-wait w3-wait signalled:w1=suspended w1-woke:true broadcast:2 after:w2=suspended w2-woke:true w3-woke:true"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
	if c.Signal() || c.Broadcast() != 0 {
		t.Fatal("cond not empty")
	}
}

func TestCondTimeout(t *testing.T) {
	e := newEnv(t)
	var c Cond
	var short, long bool
	var shortTook time.Duration
	a := start(e, func(co *Co) {
		t0 := time.Now()
		short = co.Wait(&c, 20*time.Millisecond)
		shortTook = time.Since(t0)
	})
	b := start(e, func(co *Co) { long = co.Wait(&c, time.Hour) })
	s := start(e, func(co *Co) {
		co.Sleep(40 * time.Millisecond)
		if n := c.Len(); n != 1 {
			t.Errorf("Len after the short wait timed out: %d", n)
		}
		c.Signal()
	})
	runUntilDone(t, e, a, b, s)
	if short || !long {
		t.Fatalf("short %v long %v", short, long)
	}
	if shortTook < 20*time.Millisecond {
		t.Fatalf("timed out early: %v", shortTook)
	}
	// Timeout 0 times out without a signal.
	z := start(e, func(co *Co) { short = co.Wait(&c, 0) })
	runUntilDone(t, e, z)
	if short {
		t.Fatal("Wait(0) signalled")
	}
}

func TestSleepNeverEarly(t *testing.T) {
	e := newEnv(t)
	var order []time.Duration
	var cos []*Co
	for _, d := range []time.Duration{20, 1, 10, 0, 5, 2} {
		d := d * time.Millisecond
		cos = append(cos, start(e, func(co *Co) {
			t0 := time.Now()
			co.Sleep(d)
			if took := time.Since(t0); took < d {
				t.Errorf("Sleep(%v) returned after %v", d, took)
			}
			order = append(order, d)
		}))
	}
	runUntilDone(t, e, cos...)
	if fmt.Sprint(order) != "[0s 1ms 2ms 5ms 10ms 20ms]" {
		t.Fatalf("wake order %v", order)
	}
}

func TestGoschedRoundRobin(t *testing.T) {
	e := newEnv(t)
	var log []string
	var cos []*Co
	for _, name := range []string{"a", "b", "c"} {
		cos = append(cos, start(e, func(co *Co) {
			for i := range 3 {
				log = append(log, fmt.Sprint(name, i))
				co.Gosched()
			}
		}))
	}
	runUntilDone(t, e, cos...)
	if got := strings.Join(log, " "); got != "a0 b0 c0 a1 b1 c1 a2 b2 c2" {
		t.Fatalf("order %s", got)
	}
}

func TestPollPipe(t *testing.T) {
	e := newEnv(t)
	r, w := pipe(t)
	var results []string
	poller := start(e, func(co *Co) {
		fds := []loop.PollFd{{Fd: r, Events: loop.EventIn}}
		// Nothing to read: a poll with timeout 0 just checks.
		n, err := co.Poll(fds, 0)
		results = append(results, fmt.Sprintf("check:%d:%v:%#x", n, err, fds[0].Revents))
		// Wait for the writer.
		n, err = co.Poll(fds, 5*time.Second)
		results = append(results, fmt.Sprintf("in:%d:%v:%#x", n, err, fds[0].Revents))
		var buf [8]byte
		m, _ := co.Read(r, buf[:])
		results = append(results, "read:"+string(buf[:m]))
		// Writable end and readable end together.
		fds = []loop.PollFd{{Fd: r, Events: loop.EventIn}, {Fd: w, Events: loop.EventOut}}
		n, err = co.Poll(fds, -1)
		results = append(results, fmt.Sprintf("out:%d:%v:%#x:%#x", n, err, fds[0].Revents, fds[1].Revents))
		// Timeout.
		t0 := time.Now()
		n, err = co.Poll(fds[:1], 30*time.Millisecond)
		if took := time.Since(t0); took < 30*time.Millisecond {
			t.Errorf("poll timed out early: %v", took)
		}
		results = append(results, fmt.Sprintf("timeout:%d:%v:%#x", n, err, fds[0].Revents))
		// Hang-up: the writer closes its end while we poll.
		n, err = co.Poll(fds[:1], 5*time.Second)
		results = append(results, fmt.Sprintf("hup:%d:%v:%#x", n, err, fds[0].Revents))
	})
	writer := start(e, func(co *Co) {
		co.Sleep(10 * time.Millisecond)
		co.Write(w, []byte("hi"))
		co.Sleep(60 * time.Millisecond)
		co.Close(w)
	})
	runUntilDone(t, e, poller, writer)
	want := []string{
		"check:0:<nil>:0x0",
		"in:1:<nil>:0x1",
		"read:hi",
		"out:1:<nil>:0x0:0x4",
		"timeout:0:<nil>:0x0",
		"hup:1:<nil>:0x10",
	}
	if strings.Join(results, " ") != strings.Join(want, " ") {
		t.Fatalf("results\n got %v\nwant %v", results, want)
	}
	if st := e.Loop().Stats(); st.FDs != 0 || st.Armed != 0 {
		t.Fatalf("poll left registrations or waiters: %+v", st)
	}
}

func TestPollSocketpair(t *testing.T) {
	e := newEnv(t)
	a, b := socketpair(t)
	var results []string
	co := start(e, func(co *Co) {
		fds := []loop.PollFd{{Fd: a, Events: loop.EventIn | loop.EventOut}, {Fd: b, Events: loop.EventIn | loop.EventRdHup}}
		n, err := co.Poll(fds, -1)
		results = append(results, fmt.Sprintf("%d:%v:%#x:%#x", n, err, fds[0].Revents, fds[1].Revents))
		co.Write(a, []byte("x"))
		n, err = co.Poll(fds, -1)
		results = append(results, fmt.Sprintf("%d:%v:%#x:%#x", n, err, fds[0].Revents, fds[1].Revents))
		var buf [1]byte
		co.Read(b, buf[:])
		// The peer shuts down its write side while b is polled.
		fds = fds[1:]
		n, err = co.Poll(fds, 5*time.Second)
		results = append(results, fmt.Sprintf("%d:%v:%#x", n, err, fds[0].Revents))
	})
	closer := start(e, func(co *Co) {
		co.Sleep(10 * time.Millisecond)
		unix.Shutdown(a, unix.SHUT_WR)
	})
	runUntilDone(t, e, co, closer)
	want := "1:<nil>:0x4:0x0 2:<nil>:0x4:0x1 1:<nil>:0x2001"
	if got := strings.Join(results, " "); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestPollFdClosedWhilePolled(t *testing.T) {
	e := newEnv(t)
	r, _ := pipe(t)
	var n int
	var err error
	var fds = []loop.PollFd{{Fd: r, Events: loop.EventIn}}
	p := start(e, func(co *Co) { n, err = co.Poll(fds, 5*time.Second) })
	c := start(e, func(co *Co) {
		co.Sleep(5 * time.Millisecond)
		// Registered for the poll only; closing it wakes the poll.
		if cerr := co.Close(r); cerr != nil {
			t.Error(cerr)
		}
	})
	runUntilDone(t, e, p, c)
	if n != 1 || err != nil || fds[0].Revents != loop.EventNval {
		t.Fatalf("n %d err %v revents %#x", n, err, fds[0].Revents)
	}
}

func TestPollNoFdsSleeps(t *testing.T) {
	e := newEnv(t)
	var took time.Duration
	co := start(e, func(co *Co) {
		t0 := time.Now()
		n, err := co.Poll(nil, 15*time.Millisecond)
		took = time.Since(t0)
		if n != 0 || err != nil {
			t.Errorf("n %d err %v", n, err)
		}
	})
	runUntilDone(t, e, co)
	if took < 15*time.Millisecond {
		t.Fatalf("slept %v", took)
	}
}

func TestReadWriteTimeoutAndClose(t *testing.T) {
	e := newEnv(t)
	r, w := pipe(t)
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	var got []byte
	var wn int
	var werr error
	writer := start(e, func(co *Co) { wn, werr = co.Write(w, big) })
	reader := start(e, func(co *Co) {
		buf := make([]byte, 4096)
		for len(got) < len(big) {
			n, err := co.Read(r, buf)
			if err != nil {
				t.Error(err)
				return
			}
			got = append(got, buf[:n]...)
		}
	})
	runUntilDone(t, e, writer, reader)
	if wn != len(big) || werr != nil || string(got) != string(big) {
		t.Fatalf("wrote %d (%v), read %d", wn, werr, len(got))
	}

	var terr, cerr error
	var took time.Duration
	timed := start(e, func(co *Co) {
		t0 := time.Now()
		_, terr = co.ReadTimeout(r, make([]byte, 1), 20*time.Millisecond)
		took = time.Since(t0)
	})
	runUntilDone(t, e, timed)
	if !errors.Is(terr, loop.ErrTimeout) || took < 20*time.Millisecond {
		t.Fatalf("ReadTimeout: %v after %v", terr, took)
	}

	waiting := start(e, func(co *Co) { _, cerr = co.Read(r, make([]byte, 1)) })
	closer := start(e, func(co *Co) { co.Close(r) })
	runUntilDone(t, e, waiting, closer)
	if !errors.Is(cerr, loop.ErrFDClosed) {
		t.Fatalf("read on a closed fd: %v", cerr)
	}
}

// listenTCP returns a listening socket on 127.0.0.1; the caller closes it.
func listenTCP(t *testing.T) (int, *unix.SockaddrInet4) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 16); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fd, sa.(*unix.SockaddrInet4)
}

func tcpSocket(t *testing.T) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func TestAcceptConnectEcho(t *testing.T) {
	e := newEnv(t)
	lfd, addr := listenTCP(t)
	var reply string
	server := start(e, func(co *Co) {
		nfd, _, err := co.Accept(lfd)
		if err != nil {
			t.Error(err)
			return
		}
		defer co.Close(nfd)
		buf := make([]byte, 16)
		n, err := co.Read(nfd, buf)
		if err != nil {
			t.Error(err)
			return
		}
		co.Write(nfd, buf[:n])
	})
	client := start(e, func(co *Co) {
		fd := tcpSocket(t)
		defer co.Close(fd)
		if err := co.Connect(fd, addr); err != nil {
			t.Error(err)
			return
		}
		co.Write(fd, []byte("ping"))
		buf := make([]byte, 16)
		n, _ := co.Read(fd, buf)
		reply = string(buf[:n])
	})
	runUntilDone(t, e, server, client)
	if reply != "ping" {
		t.Fatalf("reply %q", reply)
	}

	// A closed port refuses. The listener is registered with the loop, so
	// it is closed through the loop: its number is about to be reused.
	if err := e.Main().Close(lfd); err != nil {
		t.Fatal(err)
	}
	var cerr error
	refused := start(e, func(co *Co) {
		fd := tcpSocket(t)
		defer co.Close(fd)
		cerr = co.Connect(fd, addr)
	})
	runUntilDone(t, e, refused)
	if !errors.Is(cerr, unix.ECONNREFUSED) {
		t.Fatalf("connect to a closed port: %v", cerr)
	}

	// Accept times out.
	lfd2, _ := listenTCP(t)
	var aerr error
	acc := start(e, func(co *Co) { _, _, aerr = co.AcceptTimeout(lfd2, 10*time.Millisecond) })
	runUntilDone(t, e, acc)
	if !errors.Is(aerr, loop.ErrTimeout) {
		t.Fatalf("AcceptTimeout: %v", aerr)
	}
	e.Main().Close(lfd2)
}

func TestMainCoroutineWaits(t *testing.T) {
	e := newEnv(t)
	main := e.Main()
	ticks := 0
	ticker := start(e, func(co *Co) {
		for ticks < 5 {
			co.Sleep(time.Millisecond)
			ticks++
		}
	})
	// main's Sleep runs the loop meanwhile: the ticker advances only
	// then. Sleep in 20 ms steps until it is done (a loaded machine may
	// need more than one), each step never shorter than asked.
	t0 := time.Now()
	for ticks < 5 && time.Since(t0) < 10*time.Second {
		s0 := time.Now()
		main.Sleep(20 * time.Millisecond)
		if took := time.Since(s0); took < 20*time.Millisecond {
			t.Fatalf("main slept %v", took)
		}
	}
	if ticks != 5 || ticker.Status() != Dead {
		t.Fatalf("ticker made %d ticks while main slept %v", ticks, time.Since(t0))
	}

	var c Cond
	signaller := start(e, func(co *Co) {
		co.Sleep(5 * time.Millisecond)
		c.Signal()
	})
	if !main.Wait(&c, 5*time.Second) {
		t.Fatal("main's Wait timed out")
	}
	if main.Wait(&c, time.Millisecond) {
		t.Fatal("main's Wait signalled without a signal")
	}
	r, w := pipe(t)
	writer := start(e, func(co *Co) {
		co.Sleep(5 * time.Millisecond)
		co.Write(w, []byte("m"))
	})
	buf := make([]byte, 4)
	n, err := main.Read(r, buf)
	if n != 1 || err != nil {
		t.Fatalf("main Read %d %v", n, err)
	}
	main.Gosched()
	runUntilDone(t, e, signaller, writer)
}

func TestAwaitCustomWait(t *testing.T) {
	e := newEnv(t)
	var reason loop.Reason
	co := start(e, func(co *Co) {
		co.Waiter().Park(-1)
		reason = co.Await()
	})
	e.Loop().AfterFunc(5*time.Millisecond, func() { co.Waiter().Cancel() })
	runUntilDone(t, e, co)
	if reason != loop.Canceled {
		t.Fatalf("reason %v", reason)
	}
}

func TestLoopClosedUnderEnv(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEnvOn(l)
	r, _ := pipe(t)
	var rerr error
	var slept, waited bool
	reader := start(e, func(co *Co) {
		_, rerr = co.Read(r, make([]byte, 1))
		co.Sleep(time.Hour) // the loop is closed: returns at once
		slept = true
		var c Cond
		waited = co.Wait(&c, -1)
	})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(rerr, loop.ErrClosed) || !slept || waited || reader.Status() != Dead {
		t.Fatalf("read err %v slept %v waited %v status %v", rerr, slept, waited, reader.Status())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e.Main().Wait(new(Cond), -1) {
		t.Fatal("main waited on a closed loop")
	}
}

//go:build linux

package stackless

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// TestReadPipe: Read suspends until a writer task sends data, returns what
// is available, and reports EOF as (0, nil) once the write end is closed.
func TestReadPipe(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t)
	reader := &readAllFrame{fd: r}
	var got []byte
	rt := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			*pc = 1
			return t.Call(reader)
		}
		return Done
	}))
	// The writer sends three chunks with sleeps between them, then closes.
	chunks := []string{"hello ", "stackless ", "world"}
	wt := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for {
			if *pc == len(chunks) {
				if err := t.Close(w); err != nil {
					panic(err)
				}
				return Done
			}
			t.Sleep(2 * time.Millisecond)
			if t.Blocked() {
				return Suspend
			}
			n, err := t.Write(w, []byte(chunks[*pc]))
			if err != nil || n != len(chunks[*pc]) {
				panic(err)
			}
			got = append(got, chunks[*pc]...)
			*pc++
		}
	}))
	run(t, l, 5*time.Second, rt, wt)
	if reader.err != nil || reader.n != len(got) || string(got) != "hello stackless world" {
		t.Fatalf("reader: n=%d err=%v (sent %q)", reader.n, reader.err, got)
	}
	if isOpen(r) || isOpen(w) {
		t.Fatal("fds left open")
	}
}

// TestLargeWrite: a 4 MiB Write on a socketpair must suspend many times (the
// reader drains slowly); it returns len(p) and the peer receives every byte
// in order.
func TestLargeWrite(t *testing.T) {
	l := newLoop(t)
	a, b := socketpair(t)
	defer unix.Close(a)
	defer unix.Close(b)
	data := make([]byte, 4<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	writeSteps := 0
	var wrote int
	var werr error
	writer := Spawn(l, newFn(func(t *Task, pc *int) Status {
		writeSteps++
		n, err := t.Write(a, data)
		if t.Blocked() {
			return Suspend
		}
		wrote, werr = n, err
		return Done
	}))
	var got []byte
	buf := make([]byte, 64<<10)
	reader := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for {
			switch *pc {
			case 0:
				n, err := t.Read(b, buf)
				if t.Blocked() {
					return Suspend
				}
				if err != nil {
					panic(err)
				}
				got = append(got, buf[:n]...)
				if len(got) == len(data) {
					return Done
				}
				*pc = 1
			case 1: // drain slowly so that the writer fills the socket buffer
				t.Gosched()
				if t.Blocked() {
					return Suspend
				}
				*pc = 0
			}
		}
	}))
	run(t, l, 20*time.Second, writer, reader)
	if werr != nil || wrote != len(data) {
		t.Fatalf("Write returned %d, %v; want %d, nil", wrote, werr, len(data))
	}
	if writeSteps < 3 {
		t.Fatalf("Write suspended %d times; the test wants several", writeSteps-1)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the reader received different bytes")
	}
	t.Logf("4 MiB Write suspended %d times", writeSteps-1)
}

// TestWriteErrorReportsProgress: a Write whose peer goes away returns the
// bytes written before the error.
func TestWriteErrorReportsProgress(t *testing.T) {
	l := newLoop(t)
	a, b := socketpair(t)
	defer unix.Close(a)
	data := make([]byte, 8<<20)
	var wrote int
	var werr error
	writer := Spawn(l, newFn(func(t *Task, pc *int) Status {
		n, err := t.Write(a, data)
		if t.Blocked() {
			return Suspend
		}
		wrote, werr = n, err
		return Done
	}))
	l.AfterFunc(5*time.Millisecond, func() { unix.Close(b) })
	run(t, l, 5*time.Second, writer)
	if !errors.Is(werr, unix.EPIPE) && !errors.Is(werr, unix.ECONNRESET) {
		t.Fatalf("Write error %v, want EPIPE", werr)
	}
	if wrote <= 0 || wrote >= len(data) {
		t.Fatalf("Write reported %d bytes", wrote)
	}
}

// listenTCP returns a non-blocking listening socket on 127.0.0.1 and its
// address.
func listenTCP(t testing.TB) (int, *unix.SockaddrInet4) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	return fd, sa.(*unix.SockaddrInet4)
}

// TestTCPAcceptConnect: a server task accepts on 127.0.0.1 and echoes one
// message; a client task connects, sends and reads the echo back.
func TestTCPAcceptConnect(t *testing.T) {
	l := newLoop(t)
	lfd, addr := listenTCP(t)
	defer unix.Close(lfd)

	var peer unix.Sockaddr
	var served string
	var srv struct { // the server frame's fields
		fd  int
		buf [32]byte
		n   int
	}
	server := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for {
			switch *pc {
			case 0:
				nfd, sa, err := t.Accept(lfd)
				if t.Blocked() {
					return Suspend
				}
				if err != nil {
					panic(err)
				}
				peer = sa
				srv.fd = nfd
				*pc = 1
			case 1:
				n, err := t.Read(srv.fd, srv.buf[:])
				if t.Blocked() {
					return Suspend
				}
				if err != nil || n == 0 {
					panic("server read failed")
				}
				srv.n = n
				served = string(srv.buf[:n])
				*pc = 2
			case 2:
				if _, err := t.Write(srv.fd, srv.buf[:srv.n]); t.Blocked() {
					return Suspend
				} else if err != nil {
					panic(err)
				}
				t.Close(srv.fd)
				return Done
			}
		}
	}))

	var echoed string
	var cbuf [32]byte
	cfd := -1
	client := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for {
			switch *pc {
			case 0:
				fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					panic(err)
				}
				cfd = fd
				*pc = 1
			case 1:
				err := t.Connect(cfd, addr)
				if t.Blocked() {
					return Suspend
				}
				if err != nil {
					panic(err)
				}
				*pc = 2
			case 2:
				if _, err := t.Write(cfd, []byte("ping")); t.Blocked() {
					return Suspend
				} else if err != nil {
					panic(err)
				}
				*pc = 3
			case 3:
				n, err := t.Read(cfd, cbuf[:])
				if t.Blocked() {
					return Suspend
				}
				if err != nil {
					panic(err)
				}
				echoed = string(cbuf[:n])
				t.Close(cfd)
				return Done
			}
		}
	}))
	run(t, l, 5*time.Second, server, client)
	if served != "ping" || echoed != "ping" {
		t.Fatalf("served %q, echoed %q", served, echoed)
	}
	if sa, ok := peer.(*unix.SockaddrInet4); !ok || sa.Addr != [4]byte{127, 0, 0, 1} {
		t.Fatalf("Accept reported peer %v", peer)
	}
}

// TestConnectRefused: Connect to a closed port reports the error.
func TestConnectRefused(t *testing.T) {
	l := newLoop(t)
	lfd, addr := listenTCP(t)
	unix.Close(lfd) // nobody listens there any more
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cerr error
	task := Spawn(l, newFn(func(t *Task, pc *int) Status {
		err := t.Connect(fd, addr)
		if t.Blocked() {
			return Suspend
		}
		cerr = err
		t.Close(fd)
		return Done
	}))
	run(t, l, 5*time.Second, task)
	if !errors.Is(cerr, unix.ECONNREFUSED) {
		t.Fatalf("Connect error %v, want ECONNREFUSED", cerr)
	}
}

// TestPoll: Poll waits for the first ready fd and reports its revents; it
// times out with 0 and never early; with no fds it sleeps.
func TestPoll(t *testing.T) {
	l := newLoop(t)
	r1, w1 := pipe(t)
	r2, w2 := pipe(t)
	defer func() {
		for _, fd := range []int{r1, w1, r2, w2} {
			unix.Close(fd)
		}
	}()
	type result struct {
		n       int
		err     error
		revents [2]loop.Events
		waited  time.Duration
	}
	var results []result
	fds := []loop.PollFd{{Fd: r1, Events: loop.EventIn}, {Fd: r2, Events: loop.EventIn}}
	var start time.Duration
	timeouts := []time.Duration{-1, 15 * time.Millisecond, 0}
	poller := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for *pc < len(timeouts) {
			if start == 0 {
				start = l.Now()
			}
			n, err := t.Poll(fds, timeouts[*pc])
			if t.Blocked() {
				return Suspend
			}
			results = append(results, result{n, err, [2]loop.Events{fds[0].Revents, fds[1].Revents}, l.Now() - start})
			start = 0
			if *pc == 0 { // drain what woke the first poll
				var b [8]byte
				unix.Read(r2, b[:])
			}
			*pc++
		}
		return Done
	}))
	l.AfterFunc(5*time.Millisecond, func() { unix.Write(w2, []byte("x")) })
	run(t, l, 5*time.Second, poller)

	if res := results[0]; res.n != 1 || res.err != nil || res.revents[0] != 0 || res.revents[1]&loop.EventIn == 0 {
		t.Fatalf("first poll: %+v", res)
	}
	if res := results[1]; res.n != 0 || res.err != nil || res.waited < 15*time.Millisecond {
		t.Fatalf("timed-out poll: %+v", res)
	}
	if res := results[2]; res.n != 0 || res.err != nil {
		t.Fatalf("zero-timeout poll: %+v", res)
	}
	if st := l.Stats(); st.Armed != 0 {
		t.Fatalf("%d waiters armed after the polls", st.Armed)
	}

	// No fds: Poll sleeps for the timeout.
	var slept time.Duration
	sleeper := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			start = l.Now()
			*pc = 1
		}
		n, err := t.Poll(nil, 10*time.Millisecond)
		if t.Blocked() {
			return Suspend
		}
		if n != 0 || err != nil {
			panic(err)
		}
		slept = l.Now() - start
		return Done
	}))
	run(t, l, 5*time.Second, sleeper)
	if slept < 10*time.Millisecond {
		t.Fatalf("Poll(nil, 10ms) returned after %v", slept)
	}
}

// TestPollCanceled: a canceled Poll returns ErrCanceled and releases the
// fds it waited on, so another task can wait on them.
func TestPollCanceled(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t) // the test closes w below, the reader closes r
	var perr error
	poller := Spawn(l, newFn(func(t *Task, pc *int) Status {
		_, err := t.Poll([]loop.PollFd{{Fd: r, Events: loop.EventIn}}, -1)
		if t.Blocked() {
			return Suspend
		}
		perr = err
		return Done
	}))
	l.AfterFunc(2*time.Millisecond, poller.Cancel)
	run(t, l, 5*time.Second, poller)
	if !errors.Is(perr, ErrCanceled) {
		t.Fatalf("Poll returned %v, want ErrCanceled", perr)
	}
	reader := &readAllFrame{fd: r}
	rt := Spawn(l, reader)
	l.AfterFunc(2*time.Millisecond, func() { unix.Write(w, []byte("ok")); unix.Close(w) })
	run(t, l, 5*time.Second, rt)
	if reader.err != nil || reader.n != 2 {
		t.Fatalf("reader after the canceled poll: n=%d err=%v", reader.n, reader.err)
	}
}

// TestReadTimeout: ReadTimeout returns the data that arrives within the
// timeout, and loop.ErrTimeout, no earlier than the timeout, when none
// does; a wake-up by data keeps the first deadline for what is left.
func TestReadTimeout(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t)
	var got []string
	var errs []error
	var elapsed []time.Duration
	var start time.Time
	readerWaits := false // the first read has blocked
	rt := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for *pc < 2 {
			if !t.Blocked() && start.IsZero() {
				start = time.Now()
			}
			var buf [16]byte
			n, err := t.ReadTimeout(r, buf[:], 30*time.Millisecond)
			if t.Blocked() {
				readerWaits = *pc == 0 || readerWaits
				return Suspend
			}
			got = append(got, string(buf[:n]))
			errs = append(errs, err)
			elapsed = append(elapsed, time.Since(start))
			start = time.Time{}
			*pc++
		}
		return Done
	}))
	// The writer writes once the first read waits, in the same iteration
	// (a timer for it could fire together with the read's timeout on a
	// loop that got no core for 30 ms).
	wt := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if !readerWaits {
			t.Gosched()
			return Suspend
		}
		if _, err := t.Write(w, []byte("x")); err != nil {
			panic(err)
		}
		return Done
	}))
	run(t, l, 5*time.Second, rt, wt)
	l.Lookup(r).Close()
	unix.Close(w)
	if len(got) != 2 || got[0] != "x" || errs[0] != nil {
		t.Fatalf("first read: %q %v", got, errs)
	}
	if got[1] != "" || !errors.Is(errs[1], loop.ErrTimeout) || elapsed[1] < 30*time.Millisecond {
		t.Fatalf("second read: %q %v after %v", got[1], errs[1], elapsed[1])
	}
}

// TestWriteAcceptTimeout: WriteTimeout to a peer that never reads writes
// what the kernel takes and then fails with loop.ErrTimeout, no earlier
// than the timeout, reporting the bytes written; AcceptTimeout on a
// listener nobody connects to fails the same way; ConnectTimeout to a
// listener connects within its bound.
func TestWriteAcceptTimeout(t *testing.T) {
	l := newLoop(t)
	a, b := socketpair(t)
	defer unix.Close(b)
	lfd, sa := listenTCP(t)
	big := make([]byte, 8<<20)
	var (
		wrote        int
		werr, aerr   error
		cerr         error
		wtook, atook time.Duration
		start        time.Time
		cfd          = -1
	)
	wt := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			if !t.Blocked() && start.IsZero() {
				start = time.Now()
			}
			n, err := t.WriteTimeout(a, big, 30*time.Millisecond)
			if t.Blocked() {
				return Suspend
			}
			wrote, werr, wtook = n, err, time.Since(start)
			start = time.Time{}
			*pc = 1
		}
		if *pc == 1 {
			if start.IsZero() {
				start = time.Now()
			}
			_, _, err := t.AcceptTimeout(lfd, 30*time.Millisecond)
			if t.Blocked() {
				return Suspend
			}
			aerr, atook = err, time.Since(start)
			*pc = 2
		}
		if cfd < 0 {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				panic(err)
			}
			cfd = fd
		}
		cerr = t.ConnectTimeout(cfd, sa, 5*time.Second) // retried on the same socket after a wake-up
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	run(t, l, 10*time.Second, wt)
	l.Lookup(a).Close()
	if cfd >= 0 {
		l.CloseFD(cfd)
	}
	l.CloseFD(lfd)
	if !errors.Is(werr, loop.ErrTimeout) || wrote <= 0 || wrote >= len(big) || wtook < 30*time.Millisecond {
		t.Fatalf("WriteTimeout to a peer that does not read: %d bytes, %v, after %v", wrote, werr, wtook)
	}
	if !errors.Is(aerr, loop.ErrTimeout) || atook < 30*time.Millisecond {
		t.Fatalf("AcceptTimeout with no client: %v after %v", aerr, atook)
	}
	if cerr != nil {
		t.Fatalf("ConnectTimeout to a listener: %v", cerr)
	}
}

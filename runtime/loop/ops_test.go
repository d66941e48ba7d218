//go:build linux

package loop

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A task runs one non-blocking operation to completion on the loop the way
// both coroutine models do: try; if the waiter was armed, suspend until it
// is woken; a wake-up other than Ready ends the operation with the reason's
// error, Ready means try again.
type task struct {
	w     Waiter
	try   func(w *Waiter) (wait bool, err error)
	done  bool
	err   error
	waits int
}

func (k *task) Run() {
	if r := k.w.Reason(); r != NotWoken {
		k.waits++
		if r != Ready {
			k.done, k.err = true, r.Err()
			return
		}
	}
	wait, err := k.try(&k.w)
	if wait && err == nil {
		if !k.w.Armed() && !k.w.Queued() {
			panic("wait=true with a waiter that is neither armed nor woken")
		}
		return
	}
	if wait {
		panic("wait=true with an error")
	}
	k.done, k.err = true, err
}

// start makes the first attempt at once, as a coroutine calling the op would.
func start(l *Loop, try func(w *Waiter) (bool, error)) *task {
	k := &task{try: try}
	k.w.Init(l, k)
	k.Run()
	return k
}

func finish(t *testing.T, l *Loop, ks ...*task) {
	t.Helper()
	runUntil(t, l, 5*time.Second, func() bool {
		for _, k := range ks {
			if !k.done {
				return false
			}
		}
		return true
	})
}

func readTask(l *Loop, fd int, p []byte, timeout time.Duration, n *int) *task {
	return start(l, func(w *Waiter) (bool, error) {
		m, wait, err := l.TryRead(w, fd, p, timeout)
		*n = m
		return wait, err
	})
}

func writeTask(l *Loop, fd int, p []byte, timeout time.Duration, n *int) *task {
	return start(l, func(w *Waiter) (bool, error) {
		m, wait, err := l.TryWrite(w, fd, p[*n:], timeout)
		*n += m
		return wait, err
	})
}

func TestTryReadWrite(t *testing.T) {
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			l := newLoop(t)
			r, w := s.open(t)
			buf := make([]byte, 64)
			var n int

			// Nothing to read: the op waits, registering r on first use.
			k := readTask(l, r, buf, -1, &n)
			if k.done || !k.w.Armed() || l.Lookup(r) == nil {
				t.Fatalf("read of an empty %s: done %v armed %v", s.name, k.done, k.w.Armed())
			}
			time.AfterFunc(10*time.Millisecond, func() { unix.Write(w, []byte("ping")) })
			finish(t, l, k)
			if k.err != nil || string(buf[:n]) != "ping" || k.waits != 1 {
				t.Fatalf("read %q, %v after %d waits", buf[:n], k.err, k.waits)
			}

			// Data already there: no wait at all.
			write(t, w, "pong")
			k = readTask(l, r, buf, -1, &n)
			if !k.done || string(buf[:n]) != "pong" || k.waits != 0 {
				t.Fatalf("immediate read %q done %v", buf[:n], k.done)
			}

			// A timeout ends the op with ErrTimeout, never early.
			t0 := l.Now()
			k = readTask(l, r, buf, 20*time.Millisecond, &n)
			finish(t, l, k)
			if !errors.Is(k.err, ErrTimeout) || l.Now()-t0 < 20*time.Millisecond {
				t.Fatalf("timed read: %v after %v", k.err, l.Now()-t0)
			}

			// 1 MiB through a full buffer: the writer waits, the total and
			// the bytes are right.
			big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
			got := make(chan []byte)
			go func() {
				var all []byte
				var b [32 << 10]byte
				for len(all) < len(big) {
					m, err := unix.Read(r, b[:])
					if err == unix.EAGAIN {
						time.Sleep(200 * time.Microsecond)
						continue
					}
					if err != nil || m == 0 {
						break
					}
					all = append(all, b[:m]...)
				}
				got <- all
			}()
			var wn int
			wk := writeTask(l, w, big, -1, &wn)
			finish(t, l, wk)
			if wk.err != nil || wn != len(big) || wk.waits == 0 {
				t.Fatalf("write: %d of %d, %v, %d waits", wn, len(big), wk.err, wk.waits)
			}
			if all := <-got; !bytes.Equal(all, big) {
				t.Fatalf("read back %d bytes, mismatch", len(all))
			}

			// EOF once the writer is gone (closed through the loop, as the
			// portable poller's registration holds the file open).
			if err := l.Lookup(w).Close(); err != nil {
				t.Fatal(err)
			}
			k = readTask(l, r, buf, -1, &n)
			finish(t, l, k)
			if k.err != nil || n != 0 {
				t.Fatalf("read at EOF: %d, %v", n, k.err)
			}
		})
	}
}

func TestTryReadWriteErrors(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t)
	dead, _ := pipe(t)
	closeFD(t, dead)
	var w0 Waiter
	w0.Init(l, fnRunner(func() {}))

	n, wait, err := l.TryRead(&w0, dead, make([]byte, 1), -1)
	var se *os.SyscallError
	if wait || n != 0 || !errors.As(err, &se) || !errors.Is(err, unix.EBADF) {
		t.Fatalf("read of a closed fd: %d %v %v", n, wait, err)
	}
	closeFD(t, r)
	n, wait, err = l.TryWrite(&w0, w, []byte("x"), -1)
	if wait || n != 0 || !errors.Is(err, unix.EPIPE) {
		t.Fatalf("write to a pipe without reader: %d %v %v", n, wait, err)
	}
	// A second waiter on the same direction is refused and not armed.
	a, _ := socketpair(t)
	var w1, w2 Waiter
	w1.Init(l, fnRunner(func() {}))
	w2.Init(l, fnRunner(func() {}))
	if _, wait, err := l.TryRead(&w1, a, make([]byte, 1), -1); !wait || err != nil {
		t.Fatalf("first reader: %v %v", wait, err)
	}
	if _, wait, err := l.TryRead(&w2, a, make([]byte, 1), -1); wait || !errors.Is(err, ErrBusy) || w2.Armed() {
		t.Fatalf("second reader: wait %v err %v", wait, err)
	}
	// A regular file never blocks, so the op completes without the poller.
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("file")
	f.Seek(0, 0)
	buf := make([]byte, 8)
	if n, wait, err := l.TryRead(&w2, int(f.Fd()), buf, -1); wait || err != nil || string(buf[:n]) != "file" {
		t.Fatalf("regular file: %q %v %v", buf[:n], wait, err)
	}
	w1.Disarm()
}

// tcpListener returns a non-blocking listening socket on 127.0.0.1 and its
// address.
func tcpListener(t *testing.T) (int, *unix.SockaddrInet4) {
	t.Helper()
	fd := tcpSocket(t)
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
	t.Cleanup(func() { closeQuiet(fd) })
	return fd
}

func TestTCPAcceptConnect(t *testing.T) {
	l := newLoop(t)
	lfd, addr := tcpListener(t)

	nfd := -1
	var peer unix.Sockaddr
	acc := start(l, func(w *Waiter) (bool, error) {
		fd, sa, wait, err := l.TryAccept(w, lfd, -1)
		nfd, peer = fd, sa
		return wait, err
	})
	if acc.done {
		t.Fatalf("accept with nobody connecting: %v", acc.err)
	}
	cfd := tcpSocket(t)
	con := start(l, func(w *Waiter) (bool, error) { return l.TryConnect(w, cfd, addr, -1) })
	finish(t, l, acc, con)
	if acc.err != nil || con.err != nil || nfd < 0 {
		t.Fatalf("accept %d %v, connect %v", nfd, acc.err, con.err)
	}
	t.Cleanup(func() { closeQuiet(nfd) })
	if acc.waits != 1 {
		t.Errorf("accept woke %d times", acc.waits)
	}
	if p, ok := peer.(*unix.SockaddrInet4); !ok || p.Addr != [4]byte{127, 0, 0, 1} {
		t.Errorf("peer %v", peer)
	}
	if fl, _ := unix.FcntlInt(uintptr(nfd), unix.F_GETFL, 0); fl&unix.O_NONBLOCK == 0 {
		t.Error("accepted fd is blocking")
	}
	if fl, _ := unix.FcntlInt(uintptr(nfd), unix.F_GETFD, 0); fl&unix.FD_CLOEXEC == 0 {
		t.Error("accepted fd is not close-on-exec")
	}

	// Echo one message client -> server -> client.
	buf := make([]byte, 16)
	var n, wn int
	rk := readTask(l, nfd, buf, -1, &n)
	wk := writeTask(l, cfd, []byte("hello"), -1, &wn)
	finish(t, l, rk, wk)
	if string(buf[:n]) != "hello" || wn != 5 {
		t.Fatalf("server read %q", buf[:n])
	}
	buf2 := make([]byte, 16)
	var n2, wn2 int
	rk = readTask(l, cfd, buf2, -1, &n2)
	wk = writeTask(l, nfd, buf[:n], -1, &wn2)
	finish(t, l, rk, wk)
	if string(buf2[:n2]) != "hello" {
		t.Fatalf("client read %q", buf2[:n2])
	}

	// Accept with a timeout and nobody coming.
	acc = start(l, func(w *Waiter) (bool, error) {
		_, _, wait, err := l.TryAccept(w, lfd, 20*time.Millisecond)
		return wait, err
	})
	finish(t, l, acc)
	if !errors.Is(acc.err, ErrTimeout) {
		t.Fatalf("accept timeout: %v", acc.err)
	}
}

// TestConnectRefused: a connect to a closed port fails with ECONNREFUSED,
// reported by the retry after the wake-up.
func TestConnectRefused(t *testing.T) {
	l := newLoop(t)
	// A port nobody listens on: bound, never listening.
	hold := tcpSocket(t)
	if err := unix.Bind(hold, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, _ := unix.Getsockname(hold)
	cfd := tcpSocket(t)
	con := start(l, func(w *Waiter) (bool, error) { return l.TryConnect(w, cfd, sa, -1) })
	finish(t, l, con)
	if !errors.Is(con.err, unix.ECONNREFUSED) {
		t.Fatalf("connect to a closed port: %v", con.err)
	}
	var se *os.SyscallError
	if !errors.As(con.err, &se) || se.Syscall != "connect" {
		t.Fatalf("error not a connect syscall error: %#v", con.err)
	}
	if con.waits != 1 {
		t.Fatalf("refused after %d wake-ups, want 1", con.waits)
	}
}

// pollTask runs TryPoll the way the models do: after every wake-up EndPoll,
// then check again (with timeout 0 after a Timeout wake-up: a last look).
type pollTask struct {
	w       Waiter
	l       *Loop
	ps      PollState
	fds     []PollFd
	timeout time.Duration
	n       int
	err     error
	done    bool
	waits   int
}

func (k *pollTask) Run() {
	if r := k.w.Reason(); r != NotWoken {
		k.waits++
		k.l.EndPoll(&k.w, &k.ps)
		switch r {
		case Ready:
		case Timeout:
			k.timeout = 0
		default:
			k.done, k.err = true, r.Err()
			return
		}
	}
	n, wait, err := k.l.TryPoll(&k.w, &k.ps, k.fds, k.timeout)
	if wait && err == nil {
		return
	}
	k.n, k.err, k.done = n, err, true
}

func startPoll(l *Loop, fds []PollFd, timeout time.Duration) *pollTask {
	k := &pollTask{l: l, fds: fds, timeout: timeout}
	k.w.Init(l, k)
	k.Run()
	return k
}

func finishPoll(t *testing.T, l *Loop, k *pollTask) {
	t.Helper()
	runUntil(t, l, 5*time.Second, func() bool { return k.done })
	if k.err != nil {
		t.Fatal(k.err)
	}
}

func TestTryPoll(t *testing.T) {
	t.Run("in", func(t *testing.T) {
		l := newLoop(t)
		r, w := pipe(t)
		k := startPoll(l, []PollFd{{Fd: r, Events: EventIn}}, -1)
		if k.done || l.Lookup(r) == nil || l.Stats().FDs != 1 {
			t.Fatal("poll did not wait on a temporary registration")
		}
		l.AfterFunc(10*time.Millisecond, func() { write(t, w, "x") })
		finishPoll(t, l, k)
		if k.n != 1 || k.fds[0].Revents != EventIn {
			t.Fatalf("n %d revents %#x", k.n, k.fds[0].Revents)
		}
		if l.Lookup(r) != nil || l.Stats().FDs != 0 || l.Stats().Armed != 0 {
			t.Fatalf("temporary registration kept: %+v", l.Stats())
		}
	})
	t.Run("out", func(t *testing.T) {
		l := newLoop(t)
		r, w := pipe(t)
		fill(t, w)
		k := startPoll(l, []PollFd{{Fd: w, Events: EventOut}}, -1)
		if k.done {
			t.Fatal("POLLOUT on a full pipe")
		}
		go func() {
			time.Sleep(10 * time.Millisecond)
			buf := make([]byte, 1<<20)
			unix.Read(r, buf)
		}()
		finishPoll(t, l, k)
		if k.n != 1 || k.fds[0].Revents&EventOut == 0 {
			t.Fatalf("n %d revents %#x", k.n, k.fds[0].Revents)
		}
	})
	t.Run("hup", func(t *testing.T) {
		l := newLoop(t)
		r, w := pipe(t)
		k := startPoll(l, []PollFd{{Fd: r, Events: EventIn}}, -1)
		l.AfterFunc(10*time.Millisecond, func() { closeFD(t, w) })
		finishPoll(t, l, k)
		if k.n != 1 || k.fds[0].Revents&EventHup == 0 {
			t.Fatalf("n %d revents %#x", k.n, k.fds[0].Revents)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		l := newLoop(t)
		r, _ := pipe(t)
		t0 := l.Now()
		k := startPoll(l, []PollFd{{Fd: r, Events: EventIn}}, 30*time.Millisecond)
		finishPoll(t, l, k)
		if k.n != 0 || k.fds[0].Revents != 0 || k.waits != 1 {
			t.Fatalf("n %d revents %#x waits %d", k.n, k.fds[0].Revents, k.waits)
		}
		if el := l.Now() - t0; el < 30*time.Millisecond {
			t.Fatalf("poll timed out after %v", el)
		}
		if l.Lookup(r) != nil || l.Stats().Armed != 0 || l.wheel.n != 0 {
			t.Fatal("poll left state behind")
		}
	})
	t.Run("zero-timeout-and-ready", func(t *testing.T) {
		l := newLoop(t)
		r, w := pipe(t)
		k := startPoll(l, []PollFd{{Fd: r, Events: EventIn}}, 0)
		if !k.done || k.n != 0 || l.Lookup(r) != nil {
			t.Fatalf("timeout 0: done %v n %d", k.done, k.n)
		}
		write(t, w, "x")
		k = startPoll(l, []PollFd{{Fd: r, Events: EventIn}, {Fd: w, Events: EventOut}}, -1)
		if !k.done || k.n != 2 || k.fds[0].Revents != EventIn || k.fds[1].Revents != EventOut {
			t.Fatalf("ready at once: done %v n %d %+v", k.done, k.n, k.fds)
		}
	})
	t.Run("registered-stays", func(t *testing.T) {
		l := newLoop(t)
		r, w := pipe(t)
		f := register(t, l, r)
		k := startPoll(l, []PollFd{{Fd: r, Events: EventIn}}, -1)
		l.AfterFunc(10*time.Millisecond, func() { write(t, w, "x") })
		finishPoll(t, l, k)
		if l.Lookup(r) != f || f.reader != nil {
			t.Fatal("poll changed a persistent registration")
		}
	})
	t.Run("many-negative-duplicate", func(t *testing.T) {
		l := newLoop(t)
		r1, _ := pipe(t)
		r2, w2 := pipe(t)
		fds := []PollFd{{Fd: -1, Events: EventIn}, {Fd: r1, Events: EventIn}, {Fd: r2, Events: EventIn}, {Fd: r2, Events: EventIn}}
		k := startPoll(l, fds, -1)
		if k.done {
			t.Fatalf("done at once: %v", k.err)
		}
		l.AfterFunc(10*time.Millisecond, func() { write(t, w2, "x") })
		finishPoll(t, l, k)
		want := []Events{0, 0, EventIn, EventIn}
		for i := range fds {
			if fds[i].Revents != want[i] {
				t.Fatalf("revents %d = %#x, want %#x", i, fds[i].Revents, want[i])
			}
		}
		if k.n != 2 || l.Stats().FDs != 0 {
			t.Fatalf("n %d, fds %d", k.n, l.Stats().FDs)
		}
	})
	t.Run("nval", func(t *testing.T) {
		l := newLoop(t)
		dead, _ := pipe(t)
		closeFD(t, dead)
		k := startPoll(l, []PollFd{{Fd: dead, Events: EventIn}}, -1)
		if !k.done || k.n != 1 || k.fds[0].Revents != EventNval {
			t.Fatalf("closed fd: done %v n %d revents %#x", k.done, k.n, k.fds[0].Revents)
		}
	})
	t.Run("fd-closed-while-polled", func(t *testing.T) {
		l := newLoop(t)
		r, _ := pipe(t)
		f := register(t, l, r)
		k := startPoll(l, []PollFd{{Fd: r, Events: EventIn}}, -1)
		l.AfterFunc(10*time.Millisecond, func() { f.Close(); closedFDs[r] = true })
		runUntil(t, l, 5*time.Second, func() bool { return k.done })
		if !errors.Is(k.err, ErrFDClosed) || l.Stats().Armed != 0 {
			t.Fatalf("poll of a closed fd: %v", k.err)
		}
	})
}

//go:build linux

package loop

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func readStreamTask(l *Loop, fd int, p []byte, n *int) *task {
	return start(l, func(w *Waiter) (bool, error) {
		m, wait, err := l.TryReadStream(w, fd, p, -1)
		*n = m
		return wait, err
	})
}

// TestTryReadStream checks the stream read hint: after a short read the
// next read waits for an edge instead of reading, misses nothing, and
// reads at once when the peer has half-closed.
func TestTryReadStream(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	buf := make([]byte, 64)
	var n int

	k := readStreamTask(l, r, buf, &n) // registers r
	write(t, w, "ping")
	finish(t, l, k)
	if string(buf[:n]) != "ping" {
		t.Fatalf("read %q", buf[:n])
	}
	if !l.Lookup(r).drained {
		t.Fatal("a short read did not mark the stream drained")
	}

	// Data written since, but not yet seen by the loop: the read waits
	// without reading (the data stays in the socket), and the edge wakes it.
	write(t, w, "pong")
	k = readStreamTask(l, r, buf, &n)
	if k.done || !k.w.Armed() {
		t.Fatal("the read after a short read did not wait")
	}
	if m, _, err := unix.Recvfrom(r, make([]byte, 8), unix.MSG_PEEK); err != nil || m != 4 {
		t.Fatalf("the data was read: peek %d, %v", m, err)
	}
	finish(t, l, k)
	if string(buf[:n]) != "pong" || k.waits != 1 {
		t.Fatalf("read %q after %d waits", buf[:n], k.waits)
	}

	// A full read says nothing: the next read reads.
	write(t, w, "12345678")
	small := make([]byte, 4)
	if k = readStreamTask(l, r, small, &n); !k.done { // waits: "pong" was a short read
		finish(t, l, k)
	}
	k = readStreamTask(l, r, small, &n)
	if !k.done || string(small[:n]) != "5678" {
		t.Fatalf("read after a full read: done %v, %q", k.done, small[:n])
	}

	// Half-closed after the data, the end pending without a new edge once
	// the loop has seen RDHUP: the read after the short read reads the end.
	write(t, w, "last")
	unix.Shutdown(w, unix.SHUT_WR)
	runUntil(t, l, time.Second, func() bool { return l.Lookup(r).Seen()&EventRdHup != 0 })
	if k = readStreamTask(l, r, buf, &n); !k.done {
		t.Fatal("a read with data there waited")
	}
	if string(buf[:n]) != "last" {
		t.Fatalf("read %q", buf[:n])
	}
	k = readStreamTask(l, r, buf, &n)
	if !k.done || n != 0 || k.err != nil {
		t.Fatalf("read at the end: done %v, %d, %v", k.done, n, k.err)
	}
}

// TestTryReadStreamMissesNothing reads a stream written in small pieces at
// random moments through the hint: every byte arrives, in order.
func TestTryReadStreamMissesNothing(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	const total = 2000
	var got []byte
	buf := make([]byte, 64)
	var next func()
	next = func() {
		start(l, func(wt *Waiter) (bool, error) {
			m, wait, err := l.TryReadStream(wt, r, buf, -1)
			if !wait && err == nil {
				got = append(got, buf[:m]...)
				if len(got) < total {
					l.Submit(next)
				}
			}
			return wait, err
		})
	}
	go func() {
		for i := range total {
			// w is non-blocking: a full buffer (a slow reader) must not
			// drop the byte.
			for {
				if _, err := unix.Write(w, []byte{byte(i)}); err != unix.EAGAIN {
					break
				}
				time.Sleep(100 * time.Microsecond)
			}
			if i%3 == 0 {
				time.Sleep(10 * time.Microsecond)
			}
		}
	}()
	next()
	runUntil(t, l, 10*time.Second, func() bool { return len(got) >= total })
	want := make([]byte, total)
	for i := range want {
		want[i] = byte(i)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, not the %d sent in order", len(got), total)
	}
}

// TestTryReadStreamRecords: on a datagram socket a short read says nothing
// about what is left, so TryReadStream reads at once, exactly as TryRead,
// and a second queued datagram is not left waiting for an edge that never
// comes. Register learns which fds are streams.
func TestTryReadStreamRecords(t *testing.T) {
	l := newLoop(t)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	r, w := fds[0], fds[1]
	if _, err := l.Register(r); err != nil {
		t.Fatal(err)
	}
	if l.Lookup(r).stream {
		t.Fatal("a datagram socket registered as a stream")
	}
	write(t, w, "one")
	write(t, w, "two")
	buf := make([]byte, 64)
	for _, want := range []string{"one", "two"} {
		n, wait, err := l.TryReadStream(&Waiter{}, r, buf, -1)
		if wait || err != nil || string(buf[:n]) != want {
			t.Fatalf("read %q, wait %v, err %v; want %q at once", buf[:n], wait, err, want)
		}
	}

	// Streams: stream sockets and pipes are; an eventfd is not.
	sr, _ := socketpair(t)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(efd) })
	for _, c := range []struct {
		name   string
		fd     int
		stream bool
	}{{"stream socket", sr, true}, {"pipe", p[0], true}, {"eventfd", efd, false}} {
		f, err := l.FD(c.fd)
		if err != nil {
			t.Fatal(err)
		}
		if f.stream != c.stream {
			t.Errorf("%s: stream %v, want %v", c.name, f.stream, c.stream)
		}
	}
}

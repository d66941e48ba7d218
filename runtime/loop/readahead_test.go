//go:build linux

package loop

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// peekable returns how many bytes are left in the socket fd.
func peekable(t *testing.T, fd int) int {
	t.Helper()
	n, _, err := unix.Recvfrom(fd, make([]byte, 512), unix.MSG_PEEK|unix.MSG_DONTWAIT)
	if err == unix.EAGAIN {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustRegister(t *testing.T, l *Loop, fd int) {
	t.Helper()
	if _, err := l.FD(fd); err != nil {
		t.Fatal(err)
	}
}

// TestReadAheadExactFill: a message that fills a small buffer exactly is
// known to have emptied the stream (the read reached past it), so the next
// read waits for an edge instead of reading EAGAIN; nothing is held back.
func TestReadAheadExactFill(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	mustRegister(t, l, r)
	buf := make([]byte, 64)
	var n int
	msg := strings.Repeat("x", 64)
	k := readStreamTask(l, r, buf, &n)
	write(t, w, msg)
	finish(t, l, k)
	f := l.Lookup(r)
	if n != 64 || string(buf) != msg || !f.drained || f.Buffered() != 0 {
		t.Fatalf("read %d, drained %v, buffered %d", n, f.drained, f.Buffered())
	}
	write(t, w, "next")
	k = readStreamTask(l, r, buf, &n)
	if k.done || peekable(t, r) != 4 {
		t.Fatal("the read after an exact fill read instead of waiting")
	}
	finish(t, l, k)
	if string(buf[:n]) != "next" || f.filled {
		t.Fatalf("read %q, filled %v", buf[:n], f.filled)
	}
}

// TestReadAheadLargeBuffer: a buffer above 512 bytes is read with a plain
// read until one fills it, which says nothing (the next read reads); from
// then on reads go beyond it, and an exact fill is known to empty the
// stream.
func TestReadAheadLargeBuffer(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	mustRegister(t, l, r)
	f := l.Lookup(r)
	buf := make([]byte, 1024)
	msg := strings.Repeat("y", 1024)
	for i, wantDrained := range []bool{false, true} {
		var n int
		k := readStreamTask(l, r, buf, &n)
		write(t, w, msg)
		finish(t, l, k)
		if n != 1024 || string(buf) != msg || f.drained != wantDrained || !f.filled || f.Buffered() != 0 {
			t.Fatalf("read %d: %d bytes, drained %v, filled %v, buffered %d", i, n, f.drained, f.filled, f.Buffered())
		}
	}
}

// TestReadAheadHeld: bytes read beyond the buffer are held on the fd and
// returned first by every read (TryRead too) in order; meanwhile a wait for
// readability wakes at once and TryPoll reports the fd readable; once they
// are taken, the stream is known empty again.
func TestReadAheadHeld(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	var all strings.Builder
	for i := range 100 {
		all.WriteByte(byte('a' + i%26))
	}
	want := all.String()
	mustRegister(t, l, r)
	write(t, w, want)
	var got []byte
	buf := make([]byte, 50)
	n, wait, err := l.TryReadStream(&Waiter{}, r, buf, -1)
	got = append(got, buf[:n]...)
	f := l.Lookup(r)
	if wait || err != nil || n != 50 || f.Buffered() != 50 || peekable(t, r) != 0 {
		t.Fatalf("read %d, wait %v, err %v, buffered %d, left in the socket %d", n, wait, err, f.Buffered(), peekable(t, r))
	}

	fds := []PollFd{{Fd: r, Events: EventIn}}
	var ps PollState
	if n, wait, err := l.TryPoll(&Waiter{}, &ps, fds, -1); n != 1 || wait || err != nil || fds[0].Revents&EventIn == 0 {
		t.Fatalf("poll: %d, wait %v, err %v, revents %v", n, wait, err, fds[0].Revents)
	}
	k := start(l, func(w *Waiter) (bool, error) {
		if w.Reason() == Ready {
			return false, nil
		}
		return true, f.WaitRead(w, -1)
	})
	finish(t, l, k)
	if k.waits != 1 {
		t.Fatalf("wait for readability: %d wake-ups", k.waits)
	}

	small := make([]byte, 20)
	n, wait, err = l.TryRead(&Waiter{}, r, small, -1)
	got = append(got, small[:n]...)
	if wait || err != nil || n != 20 || f.Buffered() != 30 {
		t.Fatalf("TryRead: %d, wait %v, err %v, buffered %d", n, wait, err, f.Buffered())
	}
	n, wait, err = l.TryReadStream(&Waiter{}, r, buf, -1)
	got = append(got, buf[:n]...)
	if wait || err != nil || n != 30 || f.Buffered() != 0 {
		t.Fatalf("TryReadStream: %d, wait %v, err %v, buffered %d", n, wait, err, f.Buffered())
	}
	if string(got) != want {
		t.Fatalf("read %q, want %q", got, want)
	}
	k = readStreamTask(l, r, buf, &n)
	if k.done {
		t.Fatal("the read after the held bytes read instead of waiting")
	}
	write(t, w, "end")
	finish(t, l, k)
	if string(buf[:n]) != "end" {
		t.Fatalf("read %q", buf[:n])
	}
}

// TestReadAheadTake: FD.TakeBuffered peeks at and takes the held bytes.
func TestReadAheadTake(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	mustRegister(t, l, r)
	f := l.Lookup(r)
	if f.Buffered() != 0 || f.TakeBuffered(make([]byte, 8), false) != 0 {
		t.Fatal("bytes held before any read")
	}
	write(t, w, "0123456789")
	buf := make([]byte, 4)
	if n, _, err := l.TryReadStream(&Waiter{}, r, buf, -1); n != 4 || err != nil {
		t.Fatalf("read %d, %v", n, err)
	}
	p := make([]byte, 4)
	if n := f.TakeBuffered(p, true); n != 4 || string(p) != "4567" || f.Buffered() != 6 {
		t.Fatalf("peek %q, buffered %d", p[:n], f.Buffered())
	}
	if n := f.TakeBuffered(p, false); n != 4 || string(p) != "4567" || f.Buffered() != 2 {
		t.Fatalf("take %q, buffered %d", p[:n], f.Buffered())
	}
	if n := f.TakeBuffered(p, false); n != 2 || string(p[:2]) != "89" || f.Buffered() != 0 {
		t.Fatalf("take %q, buffered %d", p[:n], f.Buffered())
	}
}

// TestReadAheadReadsOn: held bytes that do not fill the buffer are followed
// by a read of the rest of it when the stream may hold more, so a bulk
// transfer keeps full reads; every byte arrives once, in order.
func TestReadAheadReadsOn(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	mustRegister(t, l, r)
	var all strings.Builder
	for i := range 300 {
		all.WriteByte(byte('A' + i%26))
	}
	write(t, w, all.String())
	var got []byte
	small := make([]byte, 4)
	n, _, err := l.TryReadStream(&Waiter{}, r, small, -1)
	got = append(got, small[:n]...)
	f := l.Lookup(r)
	if n != 4 || err != nil || f.Buffered() != readAheadSize || f.drained {
		t.Fatalf("read %d, %v, buffered %d, drained %v", n, err, f.Buffered(), f.drained)
	}
	big := make([]byte, 100)
	n, _, err = l.TryReadStream(&Waiter{}, r, big, -1)
	got = append(got, big[:n]...)
	if n != 100 || err != nil {
		t.Fatalf("read %d, %v: the held bytes were not followed by a read", n, err)
	}
	for len(got) < 300 {
		n, wait, err := l.TryReadStream(&Waiter{}, r, big, -1)
		if wait || err != nil || n == 0 {
			t.Fatalf("after %d bytes: %d, wait %v, err %v", len(got), n, wait, err)
		}
		got = append(got, big[:n]...)
	}
	if string(got) != all.String() || f.Buffered() != 0 || peekable(t, r) != 0 {
		t.Fatalf("read %q, buffered %d", got, f.Buffered())
	}
}

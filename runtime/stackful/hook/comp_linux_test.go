//go:build linux

package hook

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// TestCompletionMode: on a stream socket the loop serves in completion
// mode (io_uring), the hooked calls move bytes through the loop, in
// order, with their flags and timeouts: MSG_PEEK shows what the loop
// holds, Readv spreads one message over its buffers, MSG_DONTWAIT and an
// expired SO_RCVTIMEO give EAGAIN, MSG_WAITALL waits for the rest,
// Writev, Send and Write arrive in the order they were made, MSG_OOB and
// Detach fail with EOPNOTSUPP, Close ends the stream. Before the hooked
// calls knew completion mode, Readv waited for good: the bytes were in the
// loop's buffers, where readv(2) does not look.
func TestCompletionMode(t *testing.T) {
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Completion() {
		t.Skip("no completion I/O on this backend:", l.Backend())
	}
	env := stackful.NewEnvOn(l)
	defer env.Close()
	a, b := socketpair(t, unix.SOCK_STREAM)
	peer := make(chan string, 8) // what the peer writes, in order; "" reads to the end instead
	var all string               // what the peer read, once read is set
	var read atomic.Bool
	go func() {
		for m := range peer {
			if m != "" {
				if _, err := Write(b, []byte(m)); err != nil {
					t.Error(err)
				}
				continue
			}
			buf := make([]byte, 64)
			for {
				n, err := Read(b, buf)
				if err != nil {
					t.Error(err)
				}
				if n <= 0 {
					break
				}
				all += string(buf[:n])
			}
			read.Store(true)
			env.Wake()
		}
	}()
	defer close(peer)
	var comp, done bool
	spawn(env, func(co *stackful.Co) {
		defer func() { done = true }()
		f, err := l.RegisterCompletion(a)
		if err != nil {
			t.Error(err)
			return
		}
		if comp = f.InCompletion(); !comp {
			return
		}
		peer <- "hello world"
		p := make([]byte, 5)
		if n, err := Recv(a, p, unix.MSG_PEEK); err != nil || string(p[:n]) != "hello" {
			t.Errorf("MSG_PEEK: %q, %v; want hello", p[:max(n, 0)], err)
		}
		x, y := make([]byte, 3), make([]byte, 20)
		if n, err := Readv(a, [][]byte{x, y}); err != nil || n != 11 || string(x)+string(y[:8]) != "hello world" {
			t.Errorf("Readv: %d, %v, %q %q; want 11 bytes, hello world", n, err, x, y)
		}
		if n, _, err := Recvfrom(a, p, unix.MSG_DONTWAIT); err != unix.EAGAIN {
			t.Errorf("Recvfrom with MSG_DONTWAIT and nothing to read: %d, %v; want EAGAIN", n, err)
		}
		tv := unix.NsecToTimeval(int64(20 * time.Millisecond))
		if err := SetsockoptTimeval(a, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			t.Error(err)
		}
		start := time.Now()
		if n, err := Read(a, p); err != unix.EAGAIN || time.Since(start) < 20*time.Millisecond {
			t.Errorf("Read past SO_RCVTIMEO: %d, %v after %v; want EAGAIN after 20ms", n, err, time.Since(start))
		}
		tv = unix.Timeval{}
		SetsockoptTimeval(a, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		peer <- "12"
		peer <- "34"
		w := make([]byte, 4)
		if n, err := Recv(a, w, unix.MSG_WAITALL); err != nil || string(w[:max(n, 0)]) != "1234" {
			t.Errorf("MSG_WAITALL: %q, %v; want 1234", w[:max(n, 0)], err)
		}
		if n, err := Writev(a, [][]byte{[]byte("ab"), []byte("cd")}); n != 4 || err != nil {
			t.Errorf("Writev: %d, %v", n, err)
		}
		if n, err := Send(a, []byte("ef"), 0); n != 2 || err != nil {
			t.Errorf("Send: %d, %v", n, err)
		}
		if n, err := Write(a, []byte("gh")); n != 2 || err != nil {
			t.Errorf("Write: %d, %v", n, err)
		}
		peer <- ""
		if n, err := Recv(a, p, unix.MSG_OOB); err != unix.EOPNOTSUPP {
			t.Errorf("MSG_OOB: %d, %v; want EOPNOTSUPP", n, err)
		}
		if err := Detach(a); err != unix.EOPNOTSUPP {
			t.Errorf("Detach: %v; want EOPNOTSUPP", err)
		}
		if !f.InCompletion() {
			t.Error("the descriptor left completion mode")
		}
		if err := Close(a); err != nil {
			t.Error(err)
		}
	})
	runUntil(t, env, 10*time.Second, func() bool { return done && (read.Load() || !comp) })
	if !comp {
		t.Skip("the loop did not take the socket in completion mode")
	}
	if all != "abcdefgh" {
		t.Errorf("the peer read %q, then end of file; want abcdefgh", all)
	}
}

//go:build linux

package hook

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// TestUserNonblock checks libco's user flag: a descriptor the caller made
// non-blocking never waits, in a coroutine either, while the kernel flag
// stays set throughout.
func TestUserNonblock(t *testing.T) {
	e := newEnv(t)
	a, b := socketpair(t, unix.SOCK_STREAM)
	lfd, _ := listen(t, 8)
	nb, err := Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(nb)

	kernelNonblock := func(fd int) bool {
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		return err == nil && fl&unix.O_NONBLOCK != 0
	}
	userNonblock := func(fd int) bool {
		fl, err := FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fl&unix.O_NONBLOCK != 0
	}
	if userNonblock(a) || !kernelNonblock(a) {
		t.Fatal("a new hook socket must look blocking to the user and be non-blocking in the kernel")
	}
	if !userNonblock(nb) {
		t.Fatal("SOCK_NONBLOCK is not reported by F_GETFL")
	}

	var steps []string
	done := false
	spawn(e, func(co *stackful.Co) {
		defer func() { done = true }()
		check := func(what string, err error, want unix.Errno) {
			if err != want {
				t.Errorf("%s: %v, want %v", what, err, want)
			}
		}
		fl, _ := FcntlInt(uintptr(a), unix.F_GETFL, 0)
		if _, err := FcntlInt(uintptr(a), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
			t.Error(err)
		}
		if !userNonblock(a) || !kernelNonblock(a) {
			t.Error("F_SETFL O_NONBLOCK not reported")
		}
		t0 := time.Now()
		_, err := Read(a, make([]byte, 8))
		check("read on a user-non-blocking fd", err, unix.EAGAIN)
		_, err = Readv(a, [][]byte{make([]byte, 8)})
		check("readv on a user-non-blocking fd", err, unix.EAGAIN)
		_, _, err = Accept(nb)
		check("accept on a SOCK_NONBLOCK socket", err, unix.EINVAL) // not listening
		_, err = Recv(b, make([]byte, 8), unix.MSG_DONTWAIT)
		check("recv with MSG_DONTWAIT", err, unix.EAGAIN)
		lfl, _ := FcntlInt(uintptr(lfd), unix.F_GETFL, 0)
		FcntlInt(uintptr(lfd), unix.F_SETFL, lfl|unix.O_NONBLOCK)
		_, _, err = Accept(lfd)
		check("accept on a user-non-blocking listener", err, unix.EAGAIN)
		FcntlInt(uintptr(lfd), unix.F_SETFL, lfl)
		if d := time.Since(t0); d > time.Second { // a call that blocked would wait forever
			t.Errorf("non-blocking calls took %v", d)
		}
		steps = append(steps, "nonblocking")

		// Back to blocking: the read waits for the writer coroutine.
		FcntlInt(uintptr(a), unix.F_SETFL, fl)
		if userNonblock(a) || !kernelNonblock(a) {
			t.Error("F_SETFL without O_NONBLOCK: wrong flags")
		}
		n, err := Read(a, make([]byte, 8))
		if err != nil || n != 2 {
			t.Errorf("blocking read: %d, %v", n, err)
		}
		steps = append(steps, "read")
	})
	spawn(e, func(co *stackful.Co) {
		co.Sleep(10 * time.Millisecond)
		steps = append(steps, "write")
		Write(b, []byte("hi"))
	})
	runUntil(t, e, 5*time.Second, func() bool { return done })
	if want := "nonblocking write read"; join(steps) != want {
		t.Errorf("steps %q, want %q", join(steps), want)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// TestTimeouts checks SO_RCVTIMEO and SO_SNDTIMEO as per-fd timeouts,
// never early, while the env keeps running, with the kernel's errors in a
// coroutine and outside alike (EAGAIN; EINPROGRESS for a connect, EALREADY
// outside because the coroutine's connect is still in progress).
func TestTimeouts(t *testing.T) {
	const d = 50 * time.Millisecond
	e := newEnv(t)
	a, _ := socketpair(t, unix.SOCK_STREAM)
	w, _ := socketpair(t, unix.SOCK_STREAM)
	u, _ := socketpair(t, unix.SOCK_DGRAM)
	lfd, _ := listen(t, 8)
	for _, fd := range []int{a, u, lfd} {
		setTimeout(t, fd, unix.SO_RCVTIMEO, d)
	}
	setTimeout(t, w, unix.SO_SNDTIMEO, d)
	// The kernel rounds the value up to its clock tick.
	if tv, err := GetsockoptTimeval(a, unix.SOL_SOCKET, unix.SO_RCVTIMEO); err != nil || time.Duration(tv.Nano()) < d || time.Duration(tv.Nano()) > d+20*time.Millisecond {
		t.Fatalf("SO_RCVTIMEO reads back as %v, %v", tv, err)
	}
	filled := fillSendBuffer(t, w)
	if filled == 0 {
		t.Fatal("could not fill the send buffer")
	}

	// connect: a listener with backlog 0 and one connection queued drops
	// further SYNs, so a second connect stays in progress.
	full, sa := listen(t, 0)
	_ = full
	first, _ := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	defer Close(first)
	if err := Connect(first, sa); err != nil {
		t.Fatal(err)
	}
	c, _ := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	defer Close(c)
	setTimeout(t, c, unix.SO_SNDTIMEO, d)

	cases := []struct {
		name string
		call func() error
	}{
		{"read", func() error { _, err := Read(a, make([]byte, 8)); return err }},
		{"readv", func() error { _, err := Readv(a, [][]byte{make([]byte, 8)}); return err }},
		{"recvfrom", func() error { _, _, err := Recvfrom(u, make([]byte, 8), 0); return err }},
		{"recvmsg", func() error { _, _, _, _, err := Recvmsg(u, make([]byte, 8), nil, 0); return err }},
		{"accept", func() error { _, _, err := Accept(lfd); return err }},
		{"write", func() error {
			n, err := Write(w, make([]byte, 1<<20))
			if n != -1 && n >= 1<<20 {
				t.Errorf("write reported %d bytes", n)
			}
			return err
		}},
		{"send", func() error { _, err := Send(w, make([]byte, 1<<20), 0); return err }},
		{"connect", func() error { return Connect(c, sa) }},
	}
	tk := startTicker(e)
	for _, tc := range cases {
		var err error
		var took time.Duration
		var ticks int
		done := false
		spawn(e, func(co *stackful.Co) {
			t0, n0 := time.Now(), tk.N
			err = tc.call()
			took, ticks, done = time.Since(t0), tk.N-n0, true
		})
		runUntil(t, e, 5*time.Second, func() bool { return done })
		want := unix.EAGAIN
		if tc.name == "connect" {
			want = unix.EINPROGRESS
		}
		if !isErrno(err, want) {
			t.Errorf("%s in a coroutine: %v, want %v", tc.name, err, want)
		}
		if took < d {
			t.Errorf("%s timed out after %v, before its %v timeout", tc.name, took, d)
		}
		if ticks < 1 { // a call that blocked the env's thread would let no coroutine run (see TestHookedCallsYield)
			t.Errorf("%s: the ticker advanced %d times while it waited", tc.name, ticks)
		}
	}
	tk.Stop = true
	runUntil(t, e, time.Second, func() bool { return tk.Done })

	// Outside a coroutine: the kernel's errors for a blocking socket.
	outside := map[string]unix.Errno{"read": unix.EAGAIN, "readv": unix.EAGAIN, "recvfrom": unix.EAGAIN,
		"recvmsg": unix.EAGAIN, "accept": unix.EAGAIN, "write": unix.EAGAIN, "send": unix.EAGAIN, "connect": unix.EALREADY}
	for _, tc := range cases {
		t0 := time.Now()
		err := tc.call()
		if took := time.Since(t0); tc.name != "connect" && took < d {
			t.Errorf("%s outside: gave up after %v", tc.name, took)
		}
		if !isErrno(err, outside[tc.name]) {
			t.Errorf("%s outside: %v, want %v", tc.name, err, outside[tc.name])
		}
	}
}

// TestConnectTimeoutOutside checks connect's SO_SNDTIMEO outside a
// coroutine on a fresh socket: EINPROGRESS, as the kernel reports it.
func TestConnectTimeoutOutside(t *testing.T) {
	_, sa := listen(t, 0)
	first, _ := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	defer Close(first)
	if err := Connect(first, sa); err != nil {
		t.Fatal(err)
	}
	c, _ := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	defer Close(c)
	setTimeout(t, c, unix.SO_SNDTIMEO, 50*time.Millisecond)
	t0 := time.Now()
	err := Connect(c, sa)
	if took := time.Since(t0); took < 50*time.Millisecond {
		t.Errorf("gave up after %v", took)
	}
	if !isErrno(err, unix.EINPROGRESS) {
		t.Errorf("connect: %v, want EINPROGRESS", err)
	}
}

// TestFaults covers the peer resetting or closing the connection, a
// descriptor closed by another coroutine or goroutine while a coroutine
// waits on it, and connecting to a closed port.
func TestFaults(t *testing.T) {
	t.Run("reset", func(t *testing.T) {
		e := newEnv(t)
		client, server := tcpPair(t)
		var got []string
		var err error
		done := false
		spawn(e, func(co *stackful.Co) {
			buf := make([]byte, 16)
			n, _ := Read(server, buf)
			got = append(got, string(buf[:n]))
			_, err = Read(server, buf) // waits; the peer resets
			done = true
		})
		spawn(e, func(co *stackful.Co) {
			Write(client, []byte("hello"))
			co.Sleep(20 * time.Millisecond)
			unix.SetsockoptLinger(client, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
			Close(client)
		})
		runUntil(t, e, 5*time.Second, func() bool { return done })
		if len(got) != 1 || got[0] != "hello" {
			t.Errorf("first read %q", got)
		}
		if err != unix.ECONNRESET || !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("read after a reset: %v, want ECONNRESET", err)
		}
	})
	t.Run("eof", func(t *testing.T) {
		e := newEnv(t)
		client, server := tcpPair(t)
		n, err := -2, error(nil)
		spawn(e, func(co *stackful.Co) { n, err = Read(server, make([]byte, 16)) })
		spawn(e, func(co *stackful.Co) {
			co.Sleep(20 * time.Millisecond)
			Close(client)
		})
		runUntil(t, e, 5*time.Second, func() bool { return n != -2 })
		if n != 0 || err != nil {
			t.Errorf("read after the peer closed: %d, %v; want 0, nil", n, err)
		}
	})
	for _, by := range []string{"coroutine", "goroutine"} {
		t.Run("closed-by-"+by, func(t *testing.T) {
			e := newEnv(t)
			_, server := tcpPair(t)
			lfd, _ := listen(t, 8)
			a, _ := socketpair(t, unix.SOCK_STREAM)
			var readErr, acceptErr error
			var pollN = -2
			var revents int16
			spawn(e, func(co *stackful.Co) { _, readErr = Read(server, make([]byte, 16)) })
			spawn(e, func(co *stackful.Co) { _, _, acceptErr = Accept(lfd) })
			spawn(e, func(co *stackful.Co) {
				fds := []unix.PollFd{{Fd: int32(a), Events: unix.POLLIN}}
				pollN, _ = Poll(fds, 5000)
				revents = fds[0].Revents
			})
			closeAll := func() {
				for _, fd := range []int{server, lfd, a} {
					if err := Close(fd); err != nil {
						t.Errorf("close: %v", err)
					}
				}
			}
			if by == "coroutine" {
				spawn(e, func(co *stackful.Co) {
					co.Sleep(20 * time.Millisecond)
					closeAll()
				})
			} else {
				go func() {
					time.Sleep(20 * time.Millisecond)
					closeAll()
				}()
			}
			runUntil(t, e, 5*time.Second, func() bool { return readErr != nil && acceptErr != nil && pollN != -2 })
			if readErr != unix.EBADF || acceptErr != unix.EBADF {
				t.Errorf("read: %v, accept: %v; want EBADF", readErr, acceptErr)
			}
			if pollN != 1 || revents != unix.POLLNVAL {
				t.Errorf("poll: %d, revents %#x; want 1, POLLNVAL", pollN, revents)
			}
			for _, fd := range []int{server, lfd, a} {
				if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
					t.Errorf("fd %d still open after Close", fd)
				}
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		// A port with nothing listening: bind one, then close it.
		lfd, sa := listen(t, 1)
		Close(lfd)
		e := newEnv(t)
		var inside error
		done := false
		spawn(e, func(co *stackful.Co) {
			fd, _ := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
			defer Close(fd)
			inside = Connect(fd, sa)
			done = true
		})
		runUntil(t, e, 5*time.Second, func() bool { return done })
		fd, _ := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		defer Close(fd)
		outside := Connect(fd, sa)
		if inside != unix.ECONNREFUSED || outside != unix.ECONNREFUSED {
			t.Errorf("connect to a closed port: %v in a coroutine, %v outside; want ECONNREFUSED", inside, outside)
		}
	})
}

// TestServedByOneEnv checks that a descriptor waited on in one env is
// refused to a coroutine of another (EBUSY) until Detach releases it, and
// that two readers of one env conflict too.
func TestServedByOneEnv(t *testing.T) {
	e := newEnv(t)
	a, b := socketpair(t, unix.SOCK_STREAM)
	setTimeout(t, a, unix.SO_RCVTIMEO, 10*time.Millisecond)
	var first, second error
	n := 0
	spawn(e, func(co *stackful.Co) { _, first = Read(a, make([]byte, 8)); n++ })
	spawn(e, func(co *stackful.Co) { _, second = Read(a, make([]byte, 8)); n++ })
	runUntil(t, e, 5*time.Second, func() bool { return n == 2 })
	if first != unix.EAGAIN || second != unix.EBUSY {
		t.Fatalf("two readers: %v, %v; want EAGAIN, EBUSY", first, second)
	}

	readInOtherEnv := func() (string, error) {
		type result struct {
			s   string
			err error
		}
		ch := make(chan result)
		go func() {
			e2, err := stackful.NewEnv()
			if err != nil {
				ch <- result{"", err}
				return
			}
			defer e2.Close()
			var r *result
			spawn(e2, func(co *stackful.Co) {
				buf := make([]byte, 8)
				n, err := Read(a, buf)
				if n < 0 {
					n = 0
				}
				r = &result{string(buf[:n]), err}
			})
			if r == nil {
				e2.Run(func() bool { return r != nil })
			}
			ch <- *r
		}()
		r := <-ch
		return r.s, r.err
	}
	Write(b, []byte("hi"))
	if _, err := readInOtherEnv(); err != unix.EBUSY {
		t.Fatalf("read in another env: %v, want EBUSY", err)
	}
	detached := make(chan error)
	go func() { detached <- Detach(a) }()
	if err := <-detached; err != unix.EBUSY {
		t.Errorf("Detach outside the serving env: %v, want EBUSY", err)
	}
	if err := Detach(a); err != nil {
		t.Fatal(err)
	}
	if s, err := readInOtherEnv(); err != nil || s != "hi" {
		t.Fatalf("read in another env after Detach: %q, %v", s, err)
	}
}

// TestLookupHost resolves localhost in a coroutine and outside.
func TestLookupHost(t *testing.T) {
	e := newEnv(t)
	var inside []string
	var err error
	done := false
	spawn(e, func(co *stackful.Co) { inside, err = LookupHost("localhost"); done = true })
	runUntil(t, e, 10*time.Second, func() bool { return done })
	if err != nil {
		t.Fatal(err)
	}
	outside, err := LookupHost("localhost")
	if err != nil {
		t.Fatal(err)
	}
	hasLoopback := func(addrs []string) bool {
		for _, a := range addrs {
			if a == "127.0.0.1" || a == "::1" {
				return true
			}
		}
		return false
	}
	if !hasLoopback(inside) || !hasLoopback(outside) {
		t.Errorf("localhost resolved to %v in a coroutine, %v outside", inside, outside)
	}
}

// TestOffloadPanic checks that a panic in an offloaded func reaches the
// coroutine.
func TestOffloadPanic(t *testing.T) {
	e := newEnv(t)
	var got any
	done := false
	spawn(e, func(co *stackful.Co) {
		defer func() { got = recover(); done = true }()
		Offload(func() { panic("boom") })
	})
	runUntil(t, e, 5*time.Second, func() bool { return done })
	if got != "boom" {
		t.Errorf("recovered %v, want boom", got)
	}
}

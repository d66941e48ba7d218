//go:build linux && !cogen_netpoll

package loop

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// newCompLoop returns a loop on io_uring with completion I/O, or skips.
func newCompLoop(t testing.TB) (*Loop, *uringPoller) {
	t.Helper()
	l, p := newUringLoop(t)
	if l.comp = p.completion(); l.comp == nil {
		t.Skip("io_uring without provided-buffer rings")
	}
	return l, p
}

// compPair returns a socket pair whose end a is registered in completion
// mode on l, and b the peer's end, left for the test to use raw.
func compPair(t testing.TB, l *Loop) (f *FD, b int) {
	t.Helper()
	a, b := socketpair(t)
	f, err := l.RegisterCompletion(a)
	if err != nil {
		t.Fatal(err)
	}
	if !f.InCompletion() {
		t.Fatal("RegisterCompletion of a stream socket: not in completion mode")
	}
	return f, b
}

// A compReader reads its fd through TryRead until the end or an error,
// collecting the bytes.
type compReader struct {
	w    Waiter
	l    *Loop
	fd   int
	buf  []byte
	got  []byte
	eof  bool
	err  error
	stop bool // stop after the next read that returns data
}

func newCompReader(l *Loop, fd, size int) *compReader {
	r := &compReader{l: l, fd: fd, buf: make([]byte, size)}
	r.w.Init(l, r)
	return r
}

func (r *compReader) Run() {
	if rs := r.w.Reason(); rs != Ready && rs != NotWoken {
		r.err = rs.Err()
		return
	}
	r.read(-1)
}

func (r *compReader) read(timeout time.Duration) {
	for {
		n, wait, err := r.l.TryRead(&r.w, r.fd, r.buf, timeout)
		switch {
		case wait:
			return
		case err != nil:
			r.err = err
			return
		case n == 0:
			r.eof = true
			return
		}
		r.got = append(r.got, r.buf[:n]...)
		if r.stop {
			return
		}
	}
}

// A compWriter writes all of data through TryWrite, waiting when it must.
type compWriter struct {
	w    Waiter
	l    *Loop
	fd   int
	data []byte
	err  error
}

func newCompWriter(l *Loop, fd int, data []byte) *compWriter {
	c := &compWriter{l: l, fd: fd, data: data}
	c.w.Init(l, c)
	return c
}

func (c *compWriter) Run() {
	if rs := c.w.Reason(); rs != Ready && rs != NotWoken {
		c.err = rs.Err()
		return
	}
	for len(c.data) > 0 {
		n, wait, err := c.l.TryWrite(&c.w, c.fd, c.data, -1)
		c.data = c.data[n:]
		if wait {
			return
		}
		if err != nil {
			c.err = err
			return
		}
	}
}

// readPeer reads from the raw fd b until it has n bytes or limit passes,
// running l meanwhile (the loop's sends are submitted by its iterations).
func readPeer(t *testing.T, l *Loop, b, n int, limit time.Duration) []byte {
	t.Helper()
	var got []byte
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(limit)
	for len(got) < n {
		m, err := unix.Read(b, buf)
		if m > 0 {
			got = append(got, buf[:m]...)
			continue
		}
		if err != nil && err != unix.EAGAIN && err != unix.ECONNRESET {
			t.Fatalf("peer read: %v", err)
		}
		if m == 0 && err == nil || err == unix.ECONNRESET {
			break // end of file; or closed with bytes unread, which resets
		}
		if time.Now().After(deadline) {
			t.Fatalf("peer got %d of %d bytes in %v", len(got), n, limit)
		}
		l.RunOnce()
		time.Sleep(100 * time.Microsecond)
	}
	return got
}

// TestCompEcho: messages the peer sends arrive through the loop's receive,
// in order, and what the loop side writes arrives at the peer; the buffers
// go back to the ring as they are read.
func TestCompEcho(t *testing.T) {
	l, p := newCompLoop(t)
	f, b := compPair(t, l)
	r := newCompReader(l, f.Fd(), 5)
	r.stop = true
	for i, msg := range []string{"hello", "0123456789", "x"} {
		write(t, b, msg)
		r.got = r.got[:0]
		r.read(-1)
		runUntil(t, l, 5*time.Second, func() bool { return len(r.got) > 0 || r.err != nil })
		for len(r.got) < len(msg) && r.err == nil { // a 5-byte buffer takes a long message in parts
			r.read(-1)
		}
		if r.err != nil || string(r.got) != msg {
			t.Fatalf("message %d: read %q, %v; want %q", i, r.got, r.err, msg)
		}
		wr := newCompWriter(l, f.Fd(), []byte(msg))
		wr.Run()
		if wr.err != nil || len(wr.data) != 0 {
			t.Fatalf("write %q: %v, %d left", msg, wr.err, len(wr.data))
		}
		if got := readPeer(t, l, b, len(msg), 5*time.Second); string(got) != msg {
			t.Fatalf("peer got %q, want %q", got, msg)
		}
	}
	if p.bufs.out != 0 {
		t.Errorf("%d provided buffers held after every byte was read", p.bufs.out)
	}
	// End of file: the peer closes; the read reports it, and again.
	closeFD(t, b)
	r.got = r.got[:0]
	r.read(-1)
	runUntil(t, l, 5*time.Second, func() bool { return r.eof || r.err != nil })
	if r.err != nil || len(r.got) != 0 {
		t.Fatalf("after the peer closed: %q, %v", r.got, r.err)
	}
	if n, wait, err := l.TryRead(&r.w, f.Fd(), r.buf, -1); n != 0 || wait || err != nil {
		t.Fatalf("second read at the end: %d, %v, %v", n, wait, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// peerReadAll reads the raw fd b, made blocking, in a goroutine until
// the end of the stream, and hands the bytes over, waking l.
func peerReadAll(t *testing.T, l *Loop, b int) <-chan []byte {
	t.Helper()
	if err := unix.SetNonblock(b, false); err != nil {
		t.Fatal(err)
	}
	ch := make(chan []byte, 1)
	go func() {
		var got []byte
		buf := make([]byte, 256<<10)
		for {
			n, err := unix.Read(b, buf)
			if n <= 0 || err != nil {
				break
			}
			got = append(got, buf[:n]...)
		}
		ch <- got
		l.Wake()
	}()
	return ch
}

// TestCompLargeWrite: a write larger than the send queue and the socket's
// buffer waits, goes out in short sends, and arrives whole and in order,
// followed by a write queued behind it; FD.Close with those sends in
// flight sends them all first, then closes the descriptor.
func TestCompLargeWrite(t *testing.T) {
	l, p := newCompLoop(t)
	f, b := compPair(t, l)
	fd := f.Fd()
	data := make([]byte, 3<<20+123)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	wr := newCompWriter(l, fd, data)
	wr.Run()
	if len(wr.data) == 0 {
		t.Fatal("a 3 MiB write to a peer that does not read did not wait")
	}
	done := peerReadAll(t, l, b)
	tail := []byte("tail")
	var got []byte
	closed := false
	runUntil(t, l, 20*time.Second, func() bool {
		if wr.err != nil {
			return true
		}
		if len(wr.data) == 0 && !closed {
			if n, wait, err := l.TryWrite(&wr.w, fd, tail, -1); n != len(tail) || wait || err != nil {
				t.Errorf("write behind: %d, %v, %v", n, wait, err)
			}
			if err := f.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			closed = true
		}
		select {
		case got = <-done:
			return true
		default:
			return false
		}
	})
	if wr.err != nil {
		t.Fatal(wr.err)
	}
	closedFDs[fd] = true
	if want := append(data, tail...); !bytes.Equal(got, want) {
		t.Fatalf("peer got %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	runUntil(t, l, 5*time.Second, func() bool { return countConns(p) == 0 })
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
		t.Errorf("fd %d after its last send: fcntl: %v, want EBADF", fd, err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCompCloseThenReuse: a receive completes after its fd was closed
// and the fd number went to a new connection; the new connection never
// sees the old one's bytes, and the old one's buffer goes back to the ring.
func TestCompCloseThenReuse(t *testing.T) {
	l, p := newCompLoop(t)
	for round := range 20 {
		f, b := compPair(t, l)
		fd := f.Fd()
		l.RunOnce() // submit the receive
		write(t, b, "old connection's bytes")
		if round%2 == 0 {
			time.Sleep(time.Millisecond) // let the receive complete before the close
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		closedFDs[fd] = true
		a2, b2 := socketpair(t)
		if a2 != fd {
			t.Fatalf("round %d: new socket got fd %d, not the closed %d", round, a2, fd)
		}
		f2, err := l.RegisterCompletion(a2)
		if err != nil {
			t.Fatal(err)
		}
		r := newCompReader(l, a2, 64)
		r.read(-1)
		runFor(l, 20*time.Millisecond)
		if len(r.got) > 0 || r.err != nil {
			t.Fatalf("round %d: new connection read %q, %v before its peer wrote", round, r.got, r.err)
		}
		write(t, b2, "new")
		runUntil(t, l, 5*time.Second, func() bool { return len(r.got) >= 3 || r.err != nil })
		if string(r.got) != "new" {
			t.Fatalf("round %d: new connection read %q, %v", round, r.got, r.err)
		}
		// The peer of the closed end sees the end of the stream.
		if got := readPeer(t, l, b, 1, 5*time.Second); len(got) != 0 {
			t.Fatalf("round %d: closed end's peer read %q", round, got)
		}
		closeFD(t, b)
		f2.Close()
		closedFDs[a2] = true
		closeFD(t, b2)
	}
	runUntil(t, l, 5*time.Second, func() bool { return p.bufs.out == 0 && countConns(p) == 0 })
}

// runFor runs l for d.
func runFor(l *Loop, d time.Duration) {
	var tm Timer
	expired := false
	l.Reset(&tm, d, func() { expired = true })
	l.Run(func() bool { return expired })
}

func countConns(p *uringPoller) int {
	n := 0
	for slot := range p.slots {
		if c := p.conn(slot); c.gen() != 0 {
			n++
		}
	}
	return n
}

// TestCompReadTimeout: a read that times out leaves the receive in flight,
// and the bytes that arrive later are there for the next read.
func TestCompReadTimeout(t *testing.T) {
	l, _ := newCompLoop(t)
	f, b := compPair(t, l)
	r := newCompReader(l, f.Fd(), 64)
	if n, wait, err := l.TryRead(&r.w, f.Fd(), r.buf, 0); n != 0 || wait || !errors.Is(err, ErrTimeout) {
		t.Fatalf("zero timeout: %d, %v, %v", n, wait, err)
	}
	r.read(10 * time.Millisecond)
	runUntil(t, l, 5*time.Second, func() bool { return r.err != nil })
	if !errors.Is(r.err, ErrTimeout) {
		t.Fatalf("read with a timeout: %v", r.err)
	}
	write(t, b, "late")
	r.err = nil
	r.read(-1)
	runUntil(t, l, 5*time.Second, func() bool { return len(r.got) > 0 || r.err != nil })
	if string(r.got) != "late" || r.err != nil {
		t.Fatalf("after the timeout: %q, %v", r.got, r.err)
	}
}

// TestCompRingDry: with more connections holding data than the ring has
// buffers, the receives that find it dry fall back to readiness and
// read(2); no byte is lost or reordered, and once buffers are back the
// connections receive through the ring again.
func TestCompRingDry(t *testing.T) {
	defer func(n int) { compBufCount = n }(compBufCount)
	compBufCount = 2
	l, p := newCompLoop(t)
	const conns = 6
	var fs [conns]*FD
	var peers [conns]int
	var rs [conns]*compReader
	for i := range conns {
		fs[i], peers[i] = compPair(t, l)
		rs[i] = newCompReader(l, fs[i].Fd(), 3)
	}
	msg := func(i, k int) string { return string(rune('a'+i)) + string(rune('0'+k)) + "-message" }
	for k := range 3 {
		for i := range conns {
			write(t, peers[i], msg(i, k))
		}
		// Every connection's data is in; nobody has read. Let the
		// receives complete: two take the buffers, the others find the
		// ring dry.
		deadline := time.Now().Add(5 * time.Second)
		for p.bufs.out < p.bufs.n && time.Now().Before(deadline) {
			l.RunOnce()
			time.Sleep(100 * time.Microsecond)
		}
		if k == 0 && p.bufs.out != p.bufs.n {
			t.Fatalf("%d of %d buffers taken", p.bufs.out, p.bufs.n)
		}
		raw := 0
		for i := range conns {
			if fs[i].cx.has(cfRaw) {
				raw++
			}
			want := msg(i, k)
			rs[i].got = rs[i].got[:0]
			for len(rs[i].got) < len(want) && rs[i].err == nil {
				rs[i].stop = true
				rs[i].read(-1)
				if len(rs[i].got) < len(want) {
					runUntil(t, l, 5*time.Second, func() bool { return rs[i].w.Queued() || rs[i].err != nil || !rs[i].w.Armed() })
				}
			}
			if string(rs[i].got) != want || rs[i].err != nil {
				t.Fatalf("round %d, conn %d: read %q, %v; want %q", k, i, rs[i].got, rs[i].err, want)
			}
		}
		if k == 0 && raw == 0 {
			t.Fatal("no connection fell back to readiness with a dry ring")
		}
	}
	runUntil(t, l, 5*time.Second, func() bool { return p.bufs.out == 0 })
	for i := range conns {
		// A read that finds the stream empty ends raw mode.
		if _, wait, err := l.TryRead(&rs[i].w, fs[i].Fd(), rs[i].buf, -1); !wait || err != nil {
			t.Fatalf("conn %d: read of an empty stream: %v, %v", i, wait, err)
		}
		if fs[i].cx.has(cfRaw) {
			t.Errorf("conn %d still in raw mode once the ring has buffers", i)
		}
	}
}

// TestCompSlowReader: a connection whose reader does not read stops
// receiving once it holds compMaxChunks buffers (what one iteration's
// multishot receive took from the socket at most), so more data waits in
// the socket, not in the ring; everything arrives in order once it reads.
func TestCompSlowReader(t *testing.T) {
	l, p := newCompLoop(t)
	f, b := compPair(t, l)
	var data []byte
	for i := range 400 {
		data = append(data, bytes.Repeat([]byte{byte('a' + i%26)}, 1000)...)
	}
	if err := unix.SetNonblock(b, false); err != nil {
		t.Fatal(err)
	}
	next := make(chan int)
	wrote := make(chan error, 2)
	go func() {
		off := 0
		for end := range next {
			var err error
			for ; off < end && err == nil; off += 1000 {
				_, err = unix.Write(b, data[off:off+1000])
			}
			wrote <- err
		}
	}()
	settle := func() {
		for range 30 {
			l.RunOnce()
			time.Sleep(time.Millisecond)
		}
	}
	next <- 20000
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	settle()
	held := p.bufs.out
	if held < compMaxChunks || f.cx.has(cfRecving) {
		t.Fatalf("after 20 kB unread: %d buffers held, receive in flight %v; want >= %d and stopped", held, f.cx.has(cfRecving), compMaxChunks)
	}
	next <- 40000
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	settle()
	if p.bufs.out != held {
		t.Fatalf("a stopped connection took %d more buffers", p.bufs.out-held)
	}
	next <- len(data)
	close(next)
	r := newCompReader(l, f.Fd(), 1500)
	r.read(-1)
	runUntil(t, l, 5*time.Second, func() bool { return len(r.got) >= len(data) || r.err != nil })
	if !bytes.Equal(r.got, data) {
		t.Fatalf("read %d bytes, %v; want %d; first difference at %d", len(r.got), r.err, len(data), firstDiff(r.got, data))
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if p.bufs.out != 0 {
		t.Errorf("%d buffers held after everything was read", p.bufs.out)
	}
}

// TestCompRingGrows: the ring starts with compBufFirst buffers, so that a
// loop whose receives complete a few at a time pages in only those; when
// more connections hold data at once it hands out more before running
// dry, and no connection falls back to readiness.
func TestCompRingGrows(t *testing.T) {
	l, p := newCompLoop(t)
	f, b := compPair(t, l)
	r := newCompReader(l, f.Fd(), 64)
	for range 3 * compBufFirst {
		write(t, b, "ping")
		r.got = r.got[:0]
		r.read(-1)
		runUntil(t, l, 5*time.Second, func() bool { return len(r.got) > 0 })
	}
	if p.bufs.made != compBufFirst {
		t.Fatalf("one connection's round trips: %d buffers made, want %d", p.bufs.made, compBufFirst)
	}
	const conns = 3 * compBufFirst
	fs := make([]*FD, conns)
	for i := range fs {
		var peer int
		fs[i], peer = compPair(t, l)
		write(t, peer, "data")
	}
	runUntil(t, l, 5*time.Second, func() bool { return p.bufs.out == conns })
	if p.bufs.made < conns {
		t.Fatalf("%d connections holding data: %d buffers made", conns, p.bufs.made)
	}
	for i, f := range fs {
		if f.cx.has(cfRaw) {
			t.Fatalf("conn %d fell back to readiness while the ring could grow", i)
		}
	}
}

// FuzzCompBookkeeping drives up to three connections in completion mode
// with a ring of four buffers through random interleavings of peer
// writes, loop iterations, reads and writes of every size, peer reads,
// and closes that hand the fd number to a new connection. After every
// step: each side has read a prefix of what the other wrote, and the
// buffers the kernel handed out are exactly those the live connections
// hold. At the end everything written arrives.
func FuzzCompBookkeeping(f *testing.F) {
	f.Add([]byte{0, 5, 1, 2, 3, 3, 9, 4, 1, 2, 200, 5, 0, 0, 9, 1})
	f.Add([]byte{0, 255, 0, 255, 1, 0, 255, 1, 2, 1, 2, 1, 5, 1, 1})
	f.Add([]byte{3, 255, 3, 255, 3, 255, 1, 4, 1, 4, 5, 2, 0, 7})
	f.Fuzz(func(t *testing.T, ops []byte) {
		defer func(n int) { compBufCount = n }(compBufCount)
		compBufCount = 4
		l, p := newCompLoop(t)
		type conn struct {
			f                       *FD
			peer                    int
			sent, recvd, wrote, got []byte
		}
		var cs [3]*conn
		open := func(i int) {
			f, b := compPair(t, l)
			cs[i] = &conn{f: f, peer: b}
		}
		for i := range cs {
			open(i)
		}
		var w Waiter
		w.Init(l, fnRunner(func() {}))
		buf := make([]byte, 4096)
		pattern := func(c *conn, n int) []byte {
			out := make([]byte, n)
			for i := range out {
				out[i] = byte(len(c.sent) + i)
			}
			return out
		}
		peerRead := func(c *conn) {
			for {
				n, _ := unix.Read(c.peer, buf)
				if n <= 0 {
					return
				}
				c.got = append(c.got, buf[:n]...)
			}
		}
		check := func(step int) {
			held := 0
			for i, c := range cs {
				if !bytes.HasPrefix(c.sent, c.recvd) || !bytes.HasPrefix(c.wrote, c.got) {
					t.Fatalf("step %d, conn %d: read a non-prefix", step, i)
				}
				if x := p.x(c.f.cx); x.rbid >= 0 {
					held += 1 + len(x.more)
				}
			}
			if p.bufs.out != held {
				t.Fatalf("step %d: %d buffers handed out, %d held", step, p.bufs.out, held)
			}
			if err := checkCompTable(p); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
		for k := 0; k+1 < len(ops); k += 2 {
			c, arg := cs[int(ops[k]>>4)%len(cs)], int(ops[k+1])
			switch ops[k] % 6 {
			case 0:
				data := pattern(c, 1+arg*8)
				if n, err := unix.Write(c.peer, data); err == nil {
					c.sent = append(c.sent, data[:n]...)
				}
			case 1:
				l.RunOnce()
			case 2:
				n, _, err := l.TryRead(&w, c.f.Fd(), buf[:1+arg*8], 0)
				if err != nil && !errors.Is(err, ErrTimeout) {
					t.Fatalf("read: %v", err)
				}
				c.recvd = append(c.recvd, buf[:n]...)
			case 3:
				data := bytes.Repeat([]byte{byte(arg)}, 1+arg*64)
				n, _, err := l.TryWrite(&w, c.f.Fd(), data, 0)
				if err != nil && !errors.Is(err, ErrTimeout) {
					t.Fatalf("write: %v", err)
				}
				c.wrote = append(c.wrote, data[:n]...)
			case 4:
				peerRead(c)
			case 5:
				i := int(ops[k]>>4) % len(cs)
				fd := c.f.Fd()
				if err := c.f.Close(); err != nil {
					t.Fatal(err)
				}
				closedFDs[fd] = true
				open(i)
			}
			check(k / 2)
		}
		// Everything arrives: the loop runs, both sides read.
		deadline := time.Now().Add(10 * time.Second)
		for _, c := range cs {
			for len(c.recvd) < len(c.sent) || len(c.got) < len(c.wrote) {
				if time.Now().After(deadline) {
					t.Fatalf("read %d of %d, peer got %d of %d", len(c.recvd), len(c.sent), len(c.got), len(c.wrote))
				}
				l.RunOnce()
				n, _, _ := l.TryRead(&w, c.f.Fd(), buf, 0)
				c.recvd = append(c.recvd, buf[:n]...)
				peerRead(c)
			}
			if !bytes.Equal(c.recvd, c.sent) || !bytes.Equal(c.got, c.wrote) {
				t.Fatal("bytes differ at the end")
			}
		}
		check(-1)
		// Everything sent and read: the closed conns' slots are free and
		// the open ones hold no compExt.
		runUntil(t, l, 10*time.Second, func() bool {
			if countConns(p) != len(cs) {
				return false
			}
			for _, c := range cs {
				if c.f.cx.xi != 0 || c.f.cx.has(cfSending) {
					return false
				}
			}
			return true
		})
		check(-2)
	})
}

// checkCompTable checks the bookkeeping of p's compConns and compExts:
// noExt is empty; a free slot is zero but for cfClosed; a conn holds a
// compExt only while it has something in it; no index of exts serves two
// conns or is both in use and free.
func checkCompTable(p *uringPoller) error {
	if !noExt.idle() || noExt.rbid != -1 || noExt.outOff != 0 || cap(noExt.more) != 0 || cap(noExt.pend) != 0 {
		return fmt.Errorf("noExt written to: %+v", noExt)
	}
	if len(p.exts) == 0 || p.exts[0] != &noExt {
		return errors.New("exts[0] is not noExt")
	}
	used := map[uint32]bool{}
	for slot := range p.slots {
		c := p.conn(slot)
		if c.gen() == 0 {
			if c.xi != 0 || c.st != cfClosed || c.slot != slot {
				return fmt.Errorf("free slot %d: %+v", slot, *c)
			}
			continue
		}
		if c.xi == 0 {
			continue
		}
		if int(c.xi) >= len(p.exts) || used[c.xi] {
			return fmt.Errorf("slot %d: compExt %d out of range or shared", slot, c.xi)
		}
		used[c.xi] = true
		if x := p.exts[c.xi]; x == nil || x.idle() {
			return fmt.Errorf("slot %d holds compExt %d with nothing in it", slot, c.xi)
		}
	}
	for _, i := range p.freeXi {
		if i == 0 || int(i) >= len(p.exts) || used[i] {
			return fmt.Errorf("free compExt index %d in use or out of range", i)
		}
		used[i] = true
	}
	if len(used)+1 != len(p.exts) {
		return fmt.Errorf("%d compExts in use or free, %d in the table", len(used), len(p.exts)-1)
	}
	return checkSendBufs(p)
}

// checkSendBufs checks that no send buffer is in two places: a conn's
// out (in flight while it is sending) and pend, and the free lists.
func checkSendBufs(p *uringPoller) error {
	owner := map[*byte]string{}
	add := func(b []byte, who string) error {
		if cap(b) == 0 {
			return nil
		}
		k := &b[:cap(b)][0]
		if o, ok := owner[k]; ok {
			return fmt.Errorf("send buffer %p is %s and %s", k, o, who)
		}
		owner[k] = who
		return nil
	}
	for slot := range p.slots {
		c := p.conn(slot)
		if c.gen() == 0 || c.xi == 0 {
			continue
		}
		x := p.x(c)
		if err := add(x.out, fmt.Sprintf("slot %d's out (sending %v)", slot, c.has(cfSending))); err != nil {
			return err
		}
		if err := add(x.pend, fmt.Sprintf("slot %d's pend", slot)); err != nil {
			return err
		}
	}
	for i, b := range p.freeBufs {
		if err := add(b, fmt.Sprintf("free buffer %d", i)); err != nil {
			return err
		}
	}
	for i, b := range p.freeBig {
		if err := add(b, fmt.Sprintf("free large buffer %d", i)); err != nil {
			return err
		}
	}
	for _, x := range p.exts[1:] {
		if x != nil && cap(x.pend) > 0 && x.idle() {
			// A pooled compExt keeps its pend's buffer.
			if err := add(x.pend, "a pooled compExt's pend"); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestCompCloseStuckSends: FD.Close with sends a peer never reads does not
// hold the descriptor for ever. With input left unread it closes at once,
// as close(2) would (resetting the connection); otherwise it waits for the
// sends up to compLinger, then cancels them and closes.
func TestCompCloseStuckSends(t *testing.T) {
	defer func(d time.Duration) { compLinger = d }(compLinger)
	compLinger = 50 * time.Millisecond
	big := make([]byte, 4<<20)
	for _, unread := range []bool{true, false} {
		l, p := newCompLoop(t)
		f, b := compPair(t, l)
		fd := f.Fd()
		if unread {
			write(t, b, "never read")
			runUntil(t, l, 5*time.Second, func() bool { return f.Buffered() > 0 })
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
			t.Fatal(err)
		}
		wr := newCompWriter(l, fd, big)
		wr.Run()
		for range 5 {
			l.RunOnce()
		}
		if !f.cx.has(cfSending) {
			t.Fatal("no send in flight")
		}
		closed := time.Now()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		closedFDs[fd] = true
		open := func() bool { _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); return err == nil }
		if unread == open() {
			t.Fatalf("unread input %v: descriptor open right after Close: %v", unread, open())
		}
		runUntil(t, l, 5*time.Second, func() bool { return countConns(p) == 0 })
		if !unread && time.Since(closed) < compLinger {
			t.Fatalf("the deferred close ended after %v, before the %v linger", time.Since(closed), compLinger)
		}
		if open() {
			t.Fatalf("unread input %v: descriptor open after the sends were canceled", unread)
		}
		if got := readPeer(t, l, b, len(big)+1, 5*time.Second); len(got) >= len(big) {
			t.Fatalf("unread input %v: the peer got all %d bytes of a canceled send", unread, len(got))
		}
		l.Close()
	}
}

// TestCompShutdownWrite: ShutdownWrite right after a write the loop has
// not sent yet half-closes after it: the peer reads every byte, then the
// end of the stream.
func TestCompShutdownWrite(t *testing.T) {
	l, _ := newCompLoop(t)
	f, b := compPair(t, l)
	data := bytes.Repeat([]byte("half-close "), 20000)
	wr := newCompWriter(l, f.Fd(), data[:60000])
	wr.Run()
	if !f.cx.has(cfSending) || len(wr.data) != 0 {
		t.Fatalf("write: %d left, send in flight %v", len(wr.data), f.cx.has(cfSending))
	}
	if err := l.ShutdownWrite(f.Fd()); err != nil {
		t.Fatal(err)
	}
	done := peerReadAll(t, l, b)
	var got []byte
	runUntil(t, l, 5*time.Second, func() bool {
		select {
		case got = <-done:
			return true
		default:
			return false
		}
	})
	if !bytes.Equal(got, data[:60000]) {
		t.Fatalf("peer read %d bytes before the end, want %d", len(got), 60000)
	}
}

// TestCompConnSize: an idle connection's whole completion state, its
// compConn in the poller's table, is 16 bytes (it was 32: issue 38's idle
// memory target, epoll's + 10 %, had no room for it).
func TestCompConnSize(t *testing.T) {
	if n := unsafe.Sizeof(compConn{}); n > 16 {
		t.Fatalf("compConn is %d bytes, want at most 16", n)
	}
}

// TestCompIdleMemory: an idle connection in completion mode holds its FD
// record and its compConn, and nothing more. The compConns live in the
// poller's table, in blocks (issue 38: one 96-byte allocation per
// connection, and a pointer to it in the table), and the transient
// state (received chunks, send buffers, errors) goes back to the poller's
// pool once empty.
func TestCompIdleMemory(t *testing.T) {
	const n = 1000
	l, _ := newCompLoop(t)
	pairs := make([][2]int, n)
	fds := make([]*FD, n)
	buf := make([]byte, 4)
	for i := range pairs {
		p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		pairs[i] = [2]int{p[0], p[1]}
		defer unix.Close(p[1])
	}
	l.fds = make([]*FD, pairs[n-1][1]+1) // the fd table is not the connection's cost
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i, p := range pairs {
		f, err := l.RegisterCompletion(p[0])
		if err != nil {
			t.Fatal(err)
		}
		fds[i] = f
	}
	runtime.ReadMemStats(&m1)
	if per := float64(m1.Mallocs-m0.Mallocs) / n; per > 0.25 {
		t.Errorf("RegisterCompletion made %.2f allocations per connection, want at most 0.25", per)
	}
	for i, p := range pairs {
		f := fds[i]
		write(t, p[1], "ping")
		runUntil(t, l, 5*time.Second, func() bool { return f.Buffered() == 4 })
		if f.TakeBuffered(buf, false) != 4 {
			t.Fatal("ping not taken")
		}
		wr := newCompWriter(l, f.Fd(), buf)
		wr.Run()
		if got := readPeer(t, l, p[1], 4, 5*time.Second); string(got) != "ping" || wr.err != nil {
			t.Fatalf("echo: %q, %v", got, wr.err)
		}
	}
	// The sends' completions may come after the peer has the bytes: then
	// every connection gives its transient state back.
	runUntil(t, l, 5*time.Second, func() bool {
		for _, f := range fds {
			if f.cx.xi != 0 {
				return false
			}
		}
		return true
	})
	for _, f := range fds {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompSlotReuse: a connection's slot serves the next one once its
// requests are over, and nothing of the old one reaches the new one: the
// closed FD sees none of the new connection's bytes, and the linger timer
// of a deferred close that completed in time does not cancel the sends of
// the connection that took the slot afterwards, even with the same
// generation.
func TestCompSlotReuse(t *testing.T) {
	defer func(d time.Duration) { compLinger = d }(compLinger)
	compLinger = 100 * time.Millisecond
	l, p := newCompLoop(t)
	f1, b1 := compPair(t, l)
	slot, gen := f1.cx.slot, f1.cx.gen()
	// A deferred close: a send in flight that the peer drains in time.
	if err := unix.SetsockoptInt(f1.Fd(), unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1<<20)
	wr := newCompWriter(l, f1.Fd(), big)
	wr.Run()
	for range 5 {
		l.RunOnce()
	}
	if !f1.cx.has(cfSending) {
		t.Fatal("no send in flight")
	}
	fd1 := f1.Fd()
	if err := f1.Close(); err != nil {
		t.Fatal(err)
	}
	closedFDs[fd1] = true
	if got := readPeer(t, l, b1, len(big)-len(wr.data), 5*time.Second); len(got) != len(big)-len(wr.data) {
		t.Fatalf("peer got %d of %d bytes", len(got), len(big)-len(wr.data))
	}
	runUntil(t, l, 5*time.Second, func() bool { return countConns(p) == 0 })
	if f1.InCompletion() {
		t.Fatal("a closed FD still in completion mode")
	}

	// The generation counter recurs (after about a million connections):
	// the new connection gets the old one's slot and generation.
	p.compGen = gen - 1
	f2, b2 := compPair(t, l)
	if f2.cx.slot != slot || f2.cx.gen() != gen {
		t.Fatalf("new connection in slot %d generation %d, want the freed %d, %d", f2.cx.slot, f2.cx.gen(), slot, gen)
	}
	write(t, b2, "data")
	runUntil(t, l, 5*time.Second, func() bool { return f2.Buffered() == 4 })
	buf := make([]byte, 8)
	if n, m := f1.Buffered(), f1.TakeBuffered(buf, false); n != 0 || m != 0 {
		t.Fatalf("the closed FD sees %d bytes, takes %d, of the connection in its old slot", n, m)
	}
	// The new connection's sends stay in flight past the old linger.
	if err := unix.SetsockoptInt(f2.Fd(), unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	wr2 := newCompWriter(l, f2.Fd(), big)
	wr2.Run()
	runFor(l, 3*compLinger)
	if !f2.cx.has(cfSending) || f2.cx.has(cfAborted) {
		t.Fatalf("the new connection's send: in flight %v, aborted %v; want in flight, not aborted", f2.cx.has(cfSending), f2.cx.has(cfAborted))
	}
	if f2.Buffered() != 4 {
		t.Fatalf("new connection holds %d bytes, want 4", f2.Buffered())
	}
	if err := f2.Close(); err != nil {
		t.Fatal(err)
	}
}

// An accepter takes connections through TryAccept until it has want.
type accepter struct {
	w    Waiter
	l    *Loop
	fd   int
	want int
	got  []int
	err  error
}

func (a *accepter) Run() {
	for len(a.got) < a.want {
		nfd, _, wait, err := a.l.TryAccept(&a.w, a.fd, -1)
		if wait {
			return
		}
		if err != nil {
			a.err = err
			return
		}
		a.got = append(a.got, nfd)
	}
}

// TestCompAcceptMultishot: a listener registered with RegisterAccept is
// served by one multishot accept: many connections come out of TryAccept
// without accept(2) (the accept stays armed), non-blocking and
// close-on-exec; closing the listener with connections accepted and not
// taken, and accepts in flight, closes them all: no descriptor leaks. A
// kernel without multishot accept (noAcceptMultishot) gets readiness and
// accept(2), with the same results.
func TestCompAcceptMultishot(t *testing.T) {
	for _, noMulti := range []bool{false, true} {
		t.Run(fmt.Sprintf("noMultishot=%v", noMulti), func(t *testing.T) { testCompAccept(t, noMulti) })
	}
}

func testCompAccept(t *testing.T, noMulti bool) {
	l, p := newCompLoop(t)
	p.noAcceptMultishot = noMulti
	base := openFDs(t)
	lfd, addr, err := ListenTCP("tcp4", "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := l.RegisterAccept(lfd)
	if err != nil {
		t.Fatal(err)
	}
	if f.cx == nil || !f.cx.has(cfAcceptor) {
		t.Fatal("RegisterAccept on io_uring: no multishot accept")
	}
	sa := &unix.SockaddrInet4{Port: addr.Port, Addr: [4]byte{127, 0, 0, 1}}
	var clients []int
	dial := func(n int) {
		for range n {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			clients = append(clients, fd)
			if err := unix.Connect(fd, sa); err != nil {
				t.Fatal(err)
			}
		}
	}
	const n = 200
	a := &accepter{l: l, fd: lfd, want: n}
	a.w.Init(l, a)
	dial(n)
	a.Run()
	runUntil(t, l, 5*time.Second, func() bool { return len(a.got) == n || a.err != nil })
	if a.err != nil {
		t.Fatal(a.err)
	}
	if f.cx.has(cfRaw) == !noMulti || f.cx.has(cfRecving) == noMulti {
		t.Fatalf("after %d accepts: raw %v, accept in flight %v; want the multishot accept armed unless the kernel lacks it", n, f.cx.has(cfRaw), f.cx.has(cfRecving))
	}
	seen := map[int]bool{}
	for _, fd := range a.got {
		if seen[fd] {
			t.Fatalf("fd %d accepted twice", fd)
		}
		seen[fd] = true
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil || fl&unix.O_NONBLOCK == 0 {
			t.Fatalf("accepted fd %d: flags %#x, %v; want non-blocking", fd, fl, err)
		}
		if fdf, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || fdf&unix.FD_CLOEXEC == 0 {
			t.Fatalf("accepted fd %d: not close-on-exec", fd)
		}
	}
	// More connections, not taken: some queued, some maybe in flight
	// when the listener closes.
	dial(50)
	if !noMulti {
		runUntil(t, l, 5*time.Second, func() bool { return len(p.x(f.cx).accepted) > 0 })
	}
	dial(20)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, fd := range append(a.got, clients...) {
		unix.Close(fd)
	}
	runUntil(t, l, 5*time.Second, func() bool { return countConns(p) == 0 })
	runFor(l, 20*time.Millisecond)
	if got := openFDs(t); got != base {
		t.Fatalf("%d descriptors open after everything was closed, want %d", got, base)
	}
}

// publishedTail is the buffer ring's tail as the kernel reads it.
func publishedTail(b *bufRing) uint16 {
	return uint16(atomic.LoadUint32((*uint32)(unsafe.Pointer(&b.ring[0].bid))) >> 16)
}

// TestCompTailPublished: a buffer given back reaches the kernel with the
// loop's next io_uring_enter (the tail is stored once per iteration, not
// once per buffer): on a ring of four buffers, 200 messages in a row are
// received into the ring, none of them finding it dry, and after each
// iteration the tail the kernel reads is ours.
func TestCompTailPublished(t *testing.T) {
	defer func(n int) { compBufCount = n }(compBufCount)
	compBufCount = 4
	l, p := newCompLoop(t)
	f, b := compPair(t, l)
	buf := make([]byte, 64)
	const msg = "a-message"
	for i := range 200 {
		write(t, b, msg)
		runUntil(t, l, 5*time.Second, func() bool { return f.Buffered() == len(msg) })
		if f.cx.has(cfRaw) {
			t.Fatalf("message %d: the ring ran dry", i)
		}
		if n := f.TakeBuffered(buf, false); string(buf[:n]) != msg {
			t.Fatalf("message %d: took %q", i, buf[:n])
		}
		if p.bufs.pub == p.bufs.tail {
			t.Fatalf("message %d: the buffer given back was published at once", i)
		}
		l.RunOnce()
		if got := publishedTail(p.bufs); got != p.bufs.tail || p.bufs.pub != p.bufs.tail {
			t.Fatalf("message %d: after an iteration the kernel reads tail %d, ours is %d", i, got, p.bufs.tail)
		}
	}
}

// TestCompSendBufReuse: a send of more than compFreeSize bytes takes a
// recycled large buffer once one is free, and a buffer is never free (nor
// another conn's) while a send of it is in flight: one conn's sends stay
// in flight behind a peer that does not read while another's come and go
// through the pool, and both peers get every byte.
func TestCompSendBufReuse(t *testing.T) {
	l, p := newCompLoop(t)
	stuck, sb := compPair(t, l)
	if err := unix.SetsockoptInt(stuck.Fd(), unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 256<<10)
	for i := range big {
		big[i] = byte(i * 13)
	}
	wr := newCompWriter(l, stuck.Fd(), big)
	wr.Run()
	for range 5 {
		l.RunOnce()
	}
	if !stuck.cx.has(cfSending) {
		t.Fatal("no send in flight behind a peer that does not read")
	}
	f, b := compPair(t, l)
	var w Waiter
	w.Init(l, fnRunner(func() {}))
	msg := make([]byte, 3000)
	var first *byte
	for i := range 50 {
		for j := range msg {
			msg[j] = byte(i + j)
		}
		if n, wait, err := l.TryWrite(&w, f.Fd(), msg, 0); n != len(msg) || wait || err != nil {
			t.Fatalf("write %d: %d, %v, %v", i, n, wait, err)
		}
		out := p.x(f.cx).out
		if i == 0 {
			first = &out[:1][0]
		} else if &out[:1][0] != first {
			t.Fatalf("write %d: a new send buffer, not the recycled one", i)
		}
		if err := checkSendBufs(p); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if got := readPeer(t, l, b, len(msg), 5*time.Second); !bytes.Equal(got, msg) {
			t.Fatalf("write %d: peer got %d bytes, want %d", i, len(got), len(msg))
		}
		runUntil(t, l, 5*time.Second, func() bool { return !f.cx.has(cfSending) })
		if err := checkSendBufs(p); err != nil {
			t.Fatalf("after write %d: %v", i, err)
		}
		if !stuck.cx.has(cfSending) {
			t.Fatal("the stuck conn's send completed")
		}
	}
	done := peerReadAll(t, l, sb)
	runUntil(t, l, 10*time.Second, func() bool { return len(wr.data) == 0 || wr.err != nil })
	if wr.err != nil {
		t.Fatal(wr.err)
	}
	sfd := stuck.Fd()
	if err := stuck.Close(); err != nil {
		t.Fatal(err)
	}
	closedFDs[sfd] = true
	var got []byte
	runUntil(t, l, 10*time.Second, func() bool {
		select {
		case got = <-done:
			return true
		default:
			return false
		}
	})
	if !bytes.Equal(got, big) {
		t.Fatalf("stuck peer got %d bytes, want %d; first difference at %d", len(got), len(big), firstDiff(got, big))
	}
}

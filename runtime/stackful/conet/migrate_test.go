//go:build linux

package conet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Conns that outlive or change their env (issue 20).

// otherEnv runs envs on goroutines of their own: each call of do runs fn
// in a hooked coroutine of the env, and waits for it.
type otherEnv struct {
	jobs chan func(co *stackful.Co)
	done chan struct{}
}

func startOtherEnv(t *testing.T) *otherEnv {
	t.Helper()
	o := &otherEnv{jobs: make(chan func(co *stackful.Co)), done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer close(o.done)
		e, err := stackful.NewEnv()
		ready <- err
		if err != nil {
			return
		}
		defer e.Close()
		quit := false
		// A coroutine of the env takes the jobs off the Go channel through
		// an offload worker, so the env's loop keeps running meanwhile.
		running := 0
		spawn(e, func(co *stackful.Co) {
			for {
				var job func(co *stackful.Co)
				var ok bool
				co.Offload(func() { job, ok = <-o.jobs })
				if !ok {
					quit = true
					return
				}
				running++
				spawn(e, func(co *stackful.Co) {
					job(co)
					running--
				})
			}
		})
		e.Run(func() bool { return quit && running == 0 })
	}()
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(o.jobs)
		select {
		case <-o.done:
		case <-time.After(5 * time.Second):
			t.Error("the other env did not end: a coroutine of it is stuck")
		}
	})
	return o
}

// do runs fn in a coroutine of o's env and returns its error.
func (o *otherEnv) do(fn func(co *stackful.Co) error) error {
	ch := make(chan error, 1)
	o.jobs <- func(co *stackful.Co) { ch <- fn(co) }
	return <-ch
}

// received returns a done function for runUntil that reports whether ch
// has delivered a value (kept in *v); it may be called again after that.
func received(ch <-chan error, v *error) func() bool {
	got := false
	return func() bool {
		if !got {
			select {
			case *v = <-ch:
				got = true
			default:
			}
		}
		return got
	}
}

// exchange writes msg on c and reads it back from an echoing peer.
func exchange(c net.Conn, msg string) error {
	if _, err := c.Write([]byte(msg)); err != nil {
		return err
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != msg {
		return fmt.Errorf("echo %q, want %q", buf, msg)
	}
	return nil
}

// echoServer is a plain net echo server on 127.0.0.1.
func echoServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 512) // not io.Copy: its splice pipes stay cached
				for {
					n, err := c.Read(buf)
					if n > 0 {
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestConnMigratesBetweenEnvs: a conn used in env A is used in env B, whose
// call migrates it (A is running its loop and answers), and back; each
// exchange works, and the conn ends up served by the last env that used it.
//
// It ends up there, not always by the end of the call: an owner that does
// not answer within migrateWait - its goroutine not scheduled for 20 ms,
// as beside CPU hogs at load 20 - lets the call fall back, and its late
// answer moves the conn afterwards. So each round waits for the move
// (bounded) instead of checking at once, which failed 1-3 times in 300
// runs beside two hogs; and the late move must not stop the next env
// from asking for the conn (backOff).
func TestConnMigratesBetweenEnvs(t *testing.T) {
	addr := echoServer(t)
	a := newEnv(t)
	b := startOtherEnv(t)
	var c *Conn
	var err error
	done := false
	spawn(a, func(co *stackful.Co) {
		var nc net.Conn
		if nc, err = Dial("tcp", addr); err == nil {
			c = nc.(*Conn)
			err = exchange(c, "in A")
		}
		done = true
	})
	runUntil(t, a, 5*time.Second, func() bool { return done })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m0, f0 := migrations.Load(), fallbacks.Load()
	defer func() { t.Logf("%d migrations, %d fallbacks", migrations.Load()-m0, fallbacks.Load()-f0) }()
	for i := range 20 {
		// B uses the conn while A runs its loop (and answers B's request).
		bdone := make(chan error, 1)
		go func() {
			bdone <- b.do(func(co *stackful.Co) error { return exchange(c, fmt.Sprint("in B ", i)) })
			a.Wake()
		}()
		var berr error
		runUntil(t, a, 5*time.Second, received(bdone, &berr))
		if berr != nil {
			t.Fatalf("round %d in B: %v", i, berr)
		}
		if !servedWithin(a, c, func(o *loop.Loop) bool { return o != a.Loop() && o != nil }) {
			t.Fatalf("round %d: still served by A 5 s after B's exchange", i)
		}
		done = false
		spawn(a, func(co *stackful.Co) { err = exchange(c, fmt.Sprint("in A ", i)); done = true })
		runUntil(t, a, 5*time.Second, func() bool { return done })
		if err != nil {
			t.Fatalf("round %d back in A: %v", i, err)
		}
		if !servedWithin(a, c, func(o *loop.Loop) bool { return o == a.Loop() }) {
			t.Fatalf("round %d: not served by A 5 s after A's exchange", i)
		}
	}
	if n := migrations.Load() - m0; n < 40 {
		t.Errorf("%d migrations in 20 round trips, want 40", n)
	}
}

// servedWithin runs a's loop until c's owner satisfies ok, at most 5 s (a
// late answer to a release request reaches the asking loop through its
// submit queue, which wakes it), and reports whether it did.
func servedWithin(a *stackful.Env, c *Conn, ok func(*loop.Loop) bool) bool {
	var timer loop.Timer
	expired := false
	a.Loop().Reset(&timer, 5*time.Second, func() { expired = true })
	defer a.Loop().Stop(&timer)
	done := func() bool { return expired || ok(c.fd.owner.Load()) }
	if !done() {
		a.Run(done)
	}
	return ok(c.fd.owner.Load())
}

// TestLateHandOverKeepsMigrating: B's call on a conn of A falls back while
// A does not run its loop, and backs off from asking A; A's late answer
// moves the conn to B. The back-off was about A: calls of A on the conn
// now ask B, and the conn comes back to A. (Before, the back-off stayed
// with the conn, A's calls fell back for retryAfter without asking, and
// the conn stayed with B.)
func TestLateHandOverKeepsMigrating(t *testing.T) {
	addr := echoServer(t)
	a := newEnv(t)
	b := startOtherEnv(t)
	var c *Conn
	var err error
	done := false
	spawn(a, func(co *stackful.Co) {
		var nc net.Conn
		if nc, err = Dial("tcp", addr); err == nil {
			c = nc.(*Conn)
			err = exchange(c, "in A")
		}
		done = true
	})
	runUntil(t, a, 5*time.Second, func() bool { return done })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A's goroutine is busy here (this test, not running A's loop).
	if err := b.do(func(co *stackful.Co) error { return exchange(c, "in B, A busy") }); err != nil {
		t.Fatalf("B while A is busy: %v", err)
	}
	if c.fd.owner.Load() != a.Loop() || now() >= time.Duration(c.fd.noAskUntil.Load()) {
		t.Fatal("B's call did not fall back and back off from busy A")
	}
	// A runs its loop: the request B left moves the conn to B.
	if !servedWithin(a, c, func(o *loop.Loop) bool { return o != a.Loop() && o != nil }) {
		t.Fatal("A's late answer did not move the conn to B")
	}
	if now() < time.Duration(c.fd.noAskUntil.Load()) {
		t.Fatal("the back-off from A outlived A's hand-over")
	}
	done = false
	spawn(a, func(co *stackful.Co) { err = exchange(c, "in A after the hand-over"); done = true })
	runUntil(t, a, 5*time.Second, func() bool { return done })
	if err != nil {
		t.Fatal(err)
	}
	if !servedWithin(a, c, func(o *loop.Loop) bool { return o == a.Loop() }) {
		t.Fatal("A's call did not take the conn back from B")
	}
}

// TestMigrationCarriesReadAhead: bytes A's loop read beyond a short read
// are read by B after the conn moved, before anything that came later.
func TestMigrationCarriesReadAhead(t *testing.T) {
	a := newEnv(t)
	client, server := pair(t, a)
	b := startOtherEnv(t)
	var got string
	var err error
	done := false
	spawn(a, func(co *stackful.Co) {
		buf := make([]byte, 5)
		var n int
		n, err = server.Read(buf) // waits, so the loop registers the conn first
		got = string(buf[:n])
		done = true
	})
	spawn(a, func(co *stackful.Co) {
		co.Sleep(5 * time.Millisecond)
		client.Write([]byte("hello world"))
	})
	runUntil(t, a, 5*time.Second, func() bool { return done })
	if err != nil || got != "hello" {
		t.Fatalf("A read %q, %v", got, err)
	}
	if n := server.fd.carried.Load(); n != 6 {
		t.Fatalf("the conn holds %d bytes read ahead, want 6", n)
	}
	bdone := make(chan error, 1)
	var rest string
	go func() {
		bdone <- b.do(func(co *stackful.Co) error {
			buf := make([]byte, 6)
			if _, err := io.ReadFull(server, buf); err != nil {
				return err
			}
			rest = string(buf)
			return nil
		})
		a.Wake()
	}()
	var berr error
	runUntil(t, a, 5*time.Second, received(bdone, &berr))
	if berr != nil || rest != " world" {
		t.Fatalf("B read %q, %v; want \" world\"", rest, berr)
	}
}

// TestPlainReadAfterReadAhead: bytes the loop read beyond a coroutine's
// short read are read first by a plain goroutine's Read (through Go's
// poller), in order.
func TestPlainReadAfterReadAhead(t *testing.T) {
	e := newEnv(t)
	client, server := pair(t, e)
	var got string
	var err error
	done := false
	spawn(e, func(co *stackful.Co) {
		buf := make([]byte, 5)
		var n int
		n, err = server.Read(buf) // waits, so the loop registers the conn first
		got = string(buf[:n])
		done = true
	})
	spawn(e, func(co *stackful.Co) {
		co.Sleep(5 * time.Millisecond)
		client.Write([]byte("hello world"))
	})
	runUntil(t, e, 5*time.Second, func() bool { return done })
	if err != nil || got != "hello" {
		t.Fatalf("coroutine read %q, %v", got, err)
	}
	client.Write([]byte("!"))
	buf := make([]byte, 7)
	server.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(server, buf); err != nil || string(buf) != " world!" {
		t.Fatalf("plain read %q, %v; want \" world!\"", buf, err)
	}
}

// TestFallbackWhileOwnerBusy: while the env serving a conn does not run its
// loop, another env's calls on it still work (they fall back); once the
// owner runs again, the next call migrates.
func TestFallbackWhileOwnerBusy(t *testing.T) {
	addr := echoServer(t)
	a := newEnv(t)
	b := startOtherEnv(t)
	var c *Conn
	var err error
	done := false
	spawn(a, func(co *stackful.Co) {
		var nc net.Conn
		if nc, err = Dial("tcp", addr); err == nil {
			c = nc.(*Conn)
			err = exchange(c, "in A")
		}
		done = true
	})
	runUntil(t, a, 5*time.Second, func() bool { return done })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f0, r0 := fallbacks.Load(), requests.Load()
	// A's goroutine is busy here (this test, not running A's loop).
	for i := range 5 {
		if err := b.do(func(co *stackful.Co) error { return exchange(c, fmt.Sprint("in B, A busy ", i)) }); err != nil {
			t.Fatalf("B while A is busy: %v", err)
		}
	}
	if n := fallbacks.Load() - f0; n < 10 {
		t.Fatalf("%d of B's 10 calls fell back while A was busy", n)
	}
	if n := requests.Load() - r0; n != 1 {
		t.Fatalf("B asked busy A %d times, want once (then it falls back at once)", n)
	}
	c.fd.noAskUntil.Store(0) // as if retryAfter had passed
	if c.fd.owner.Load() != a.Loop() {
		t.Fatal("the conn moved while its owner was busy")
	}
	// A runs its loop now: B's next call migrates.
	bdone := make(chan error, 1)
	go func() {
		bdone <- b.do(func(co *stackful.Co) error { return exchange(c, "in B, A idle") })
		a.Wake()
	}()
	var berr error
	runUntil(t, a, 5*time.Second, received(bdone, &berr))
	if berr != nil {
		t.Fatal(berr)
	}
	if o := c.fd.owner.Load(); o == a.Loop() || o == nil {
		t.Fatal("the conn did not move to B once A answered")
	}
}

// TestOwnerEnvClosed: a conn whose env has been closed is used by a
// coroutine of another env, which takes it over.
func TestOwnerEnvClosed(t *testing.T) {
	addr := echoServer(t)
	a, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	var c *Conn
	done := false
	spawn(a, func(co *stackful.Co) {
		var nc net.Conn
		if nc, err = Dial("tcp", addr); err == nil {
			c = nc.(*Conn)
			err = exchange(c, "in A")
		}
		done = true
	})
	runUntil(t, a, 5*time.Second, func() bool { return done })
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := startOtherEnv(t)
	for i := range 3 {
		if err := b.do(func(co *stackful.Co) error { return exchange(c, fmt.Sprint("in B ", i)) }); err != nil {
			t.Fatalf("B after A closed: %v", err)
		}
	}
}

// TestSharedPoolHandOffs: a pool of conns shared by two envs on two
// goroutines, each with 50 coroutines taking a conn, making an exchange and
// putting it back, so that every exchange uses a conn the other env used
// last: 4,000 hand-offs. No errors, and after the conns are closed no
// descriptor or goroutine is left.
func TestSharedPoolHandOffs(t *testing.T) {
	addr := echoServer(t)
	g0 := runtime.NumGoroutine()
	fds0 := openFDs(t)
	const coroutines, rounds = 50, 40
	m0, f0 := migrations.Load(), fallbacks.Load()
	conns, err := handOffs(addr, coroutines, rounds)
	if err != nil {
		t.Fatal(err)
	}
	moved, fell := migrations.Load()-m0, fallbacks.Load()-f0
	t.Logf("%d exchanges, %d migrations, %d fallbacks", 2*coroutines*rounds, moved, fell)
	if moved+fell < 2*coroutines*rounds*9/10 {
		t.Errorf("only %d hand-offs between two envs", moved+fell)
	}
	for _, c := range conns {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
	if g := settledGoroutines(g0); g > g0 {
		t.Errorf("goroutines: %d, want <= %d", g, g0)
	}
	for range 100 {
		if openFDs(t) <= fds0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("descriptors: %d open, %d before\n%s", openFDs(t), fds0, fdList())
}

// handOffs runs the shared pool of TestSharedPoolHandOffs: 8 conns to the
// echo server at addr, two envs on goroutines of their own, each with the
// given coroutines making rounds exchanges. Env 0 takes conns from one
// queue and puts them into the other, env 1 the other way round. It
// returns the conns, for the caller to close, and the first error.
func handOffs(addr string, coroutines, rounds int) ([]*Conn, error) {
	const conns = 8
	var mu sync.Mutex
	var queues [2][]*Conn
	get := func(co *stackful.Co, side int) *Conn {
		for {
			mu.Lock() // held for a few instructions, never across a wait
			if q := queues[side]; len(q) > 0 {
				c := q[0]
				queues[side] = q[1:]
				mu.Unlock()
				return c
			}
			mu.Unlock()
			co.Sleep(50 * time.Microsecond)
		}
	}
	put := func(c *Conn, side int) {
		mu.Lock()
		queues[side] = append(queues[side], c)
		mu.Unlock()
	}
	var all []*Conn
	for i := range conns {
		nc, err := Dial("tcp", addr) // outside a coroutine: served by no env yet
		if err != nil {
			return all, err
		}
		all = append(all, nc.(*Conn))
		put(nc.(*Conn), i%2)
	}
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for side := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			e, err := stackful.NewEnv()
			if err != nil {
				firstErr.CompareAndSwap(nil, err)
				return
			}
			defer e.Close()
			left := coroutines
			for i := range coroutines {
				spawn(e, func(co *stackful.Co) {
					defer func() { left-- }()
					for r := range rounds {
						c := get(co, side)
						err := exchange(c, fmt.Sprintf("%d/%d/%d ", side, i, r))
						put(c, 1-side)
						if err != nil {
							firstErr.CompareAndSwap(nil, err)
							return
						}
					}
				})
			}
			e.Run(func() bool { return left == 0 })
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return all, err
	}
	if n := len(queues[0]) + len(queues[1]); n != conns {
		return all, fmt.Errorf("%d conns back in the queues, want %d", n, conns)
	}
	return all, nil
}

// BenchmarkConnHandOff is the shared pool of TestSharedPoolHandOffs with
// two coroutines per env (so none waits for a conn): one op is one
// request-response exchange on a conn the other env used last, served by
// migration; x-fallback is what the same exchanges cost when every call on
// a conn of the other env falls back to an offloaded call through Go's
// poller instead, measured in alternating chunks of 400 exchanges so that
// both see the same load.
func BenchmarkConnHandOff(b *testing.B) {
	addr := echoServer(b)
	const coroutines, chunk = 2, 400
	defer noMigration.Store(false)
	var took [2]time.Duration
	n := 0
	b.ResetTimer()
	for n < b.N {
		for mode := range 2 {
			noMigration.Store(mode == 1)
			t0 := time.Now()
			conns, err := handOffs(addr, coroutines, chunk/(2*coroutines))
			took[mode] += time.Since(t0)
			for _, c := range conns {
				c.Close()
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		n += chunk
	}
	b.StopTimer()
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(n), "ns/op")
	b.ReportMetric(float64(took[1])/float64(took[0]), "x-fallback")
}

// fdList describes the open descriptors, for failure messages.
func fdList() string {
	ents, _ := os.ReadDir("/proc/self/fd")
	var b strings.Builder
	for _, e := range ents {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		fmt.Fprintf(&b, "%s=%s ", e.Name(), target)
	}
	return b.String()
}

// TestClosePromptWhileOwnerBusy: Close from a goroutine releases the socket
// at once - the peer reads end of stream - while the env serving the conn
// does not run its loop, with a coroutine of it waiting in Read; the number
// stays taken until that env drops its registration, and the waiting Read
// then fails with ErrClosed.
func TestClosePromptWhileOwnerBusy(t *testing.T) {
	a := newEnv(t)
	fds0 := openFDs(t)
	peer, conn := plainPair(t)
	var rerr error
	done := false
	spawn(a, func(co *stackful.Co) {
		_, rerr = conn.Read(make([]byte, 8))
		done = true
	})
	// a's goroutine is busy from here: the coroutine waits in Read.
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := peer.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("peer read %d, %v while the owner was busy; want EOF at once", n, err)
	}
	runUntil(t, a, 5*time.Second, func() bool { return done })
	if !errors.Is(rerr, ErrClosed) {
		t.Fatalf("the waiting Read: %v", rerr)
	}
	peer.Close()
	for range 100 {
		if openFDs(t) <= fds0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("descriptors: %d open, %d before", openFDs(t), fds0)
}

// plainPair returns a TCP connection: a plain net.Conn and a *Conn.
func plainPair(t *testing.T) (net.Conn, *Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return peer, nc.(*Conn)
}

// TestSyscallConn: Control sees the descriptor; Read and Write call f
// until it reports done, waiting on the loop in a coroutine (the env keeps
// running) and in Go's poller elsewhere; after Close they fail.
func TestSyscallConn(t *testing.T) {
	e := newEnv(t)
	client, server := pair(t, e)
	rc, err := server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd uintptr
	if err := rc.Control(func(s uintptr) { fd = s }); err != nil || int(fd) != server.fd.sysfd {
		t.Fatalf("Control: fd %d, %v", fd, err)
	}
	readOnce := func() (string, error) {
		var got []byte
		err := rc.Read(func(s uintptr) bool {
			buf := make([]byte, 16)
			n, err := readRaw(int(s), buf)
			if err != nil {
				return false // EAGAIN: wait for readability
			}
			got = buf[:n]
			return true
		})
		return string(got), err
	}
	tk := startTicker(e)
	var got string
	done := false
	spawn(e, func(co *stackful.Co) { got, err = readOnce(); done = true })
	spawn(e, func(co *stackful.Co) {
		co.Sleep(20 * time.Millisecond)
		client.Write([]byte("ping"))
	})
	runUntil(t, e, 5*time.Second, func() bool { return done })
	tk.End(t, e)
	if err != nil || got != "ping" {
		t.Fatalf("RawConn.Read in a coroutine: %q, %v", got, err)
	}
	// Outside a coroutine: Go's poller.
	go func() {
		time.Sleep(20 * time.Millisecond)
		client.Write([]byte("pong"))
	}()
	if got, err := readOnce(); err != nil || got != "pong" {
		t.Fatalf("RawConn.Read outside: %q, %v", got, err)
	}
	wrote := false
	if err := rc.Write(func(s uintptr) bool {
		n, err := writeRaw(int(s), []byte("back"))
		wrote = err == nil && n == 4
		return true
	}); err != nil || !wrote {
		t.Fatalf("RawConn.Write: %v", err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(client, buf); err != nil || !bytes.Equal(buf, []byte("back")) {
		t.Fatalf("client read %q, %v", buf, err)
	}
	server.Close()
	if err := rc.Control(func(uintptr) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Control after Close: %v", err)
	}
	if _, err := readOnce(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
}

func readRaw(fd int, p []byte) (int, error)  { return unix.Read(fd, p) }
func writeRaw(fd int, p []byte) (int, error) { return unix.Write(fd, p) }

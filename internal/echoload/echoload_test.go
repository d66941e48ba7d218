package echoload

import (
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	MaybeRunChild()
	os.Exit(m.Run())
}

// goroutineServer is a goroutine-per-connection echo server; it counts the
// bytes it echoed.
type goroutineServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	bytes int64
}

func serve(t *testing.T) *goroutineServer {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &goroutineServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				n, _ := io.Copy(c, c)
				s.mu.Lock()
				s.bytes += n
				s.mu.Unlock()
			}()
		}
	}()
	return s
}

// stop closes the listener and waits for every connection to end: the
// client closed them all, so nothing is left behind.
func (s *goroutineServer) stop(t *testing.T) {
	s.ln.Close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("server connections still open after the load ended")
	}
}

// TestRequests: a run with a request count answers exactly that many
// requests of Size bytes over every connection, and reports a window and the
// server's CPU.
func TestRequests(t *testing.T) {
	s := serve(t)
	ld, err := Start(Config{Addr: s.ln.Addr().String(), Conns: 10, Size: 64, Requests: 2000})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ld.Wait()
	if err != nil {
		t.Fatal(err)
	}
	s.stop(t)
	if res.Requests != 2000 || res.Conns != 10 {
		t.Fatalf("result %+v", res)
	}
	if s.bytes != 2000*64 {
		t.Fatalf("server echoed %d bytes, want %d", s.bytes, 2000*64)
	}
	if res.Elapsed <= 0 || res.ServerCPU <= 0 || res.ReqPerSec() <= 0 || res.CPUPerReqMicros() <= 0 {
		t.Fatalf("result %+v", res)
	}
	t.Log(res)
}

// TestDuration: a run with a duration lasts about that long.
func TestDuration(t *testing.T) {
	s := serve(t)
	const d = 200 * time.Millisecond
	ld, err := Start(Config{Addr: s.ln.Addr().String(), Conns: 4, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ld.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the load did not end")
	}
	res, err := ld.Wait()
	if err != nil {
		t.Fatal(err)
	}
	s.stop(t)
	if res.Elapsed < d || res.Elapsed > d+5*time.Second || res.Requests == 0 {
		t.Fatalf("result %+v", res)
	}
	if s.bytes != res.Requests*64 {
		t.Fatalf("server echoed %d bytes for %d requests", s.bytes, res.Requests)
	}
	t.Log(res)
}

// TestErrors: bad configurations are refused, and a server that does not
// echo makes the run fail with the client's explanation rather than hang.
func TestErrors(t *testing.T) {
	if _, err := Start(Config{Addr: "10.0.0.1:80"}); err == nil || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("non-loopback address: %v", err)
	}
	if _, err := Start(Config{Addr: "nonsense"}); err == nil {
		t.Fatal("bad address accepted")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { // accepts and closes at once: the client sees EOF
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	defer ln.Close()
	ld, err := Start(Config{Addr: ln.Addr().String(), Conns: 2, Requests: 10, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ld.Wait(); err == nil || !strings.Contains(err.Error(), "connection") {
		t.Fatalf("run against a closing server: %v", err)
	}
}

// TestListenFD: the listener helper returns a loopback address that
// accepts connections.
func TestListenFD(t *testing.T) {
	fd, addr, err := ListenFD()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFD(fd)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatal(addr)
	}
	c, err := net.DialTimeout("tcp4", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestNoLeaks: after Wait the parent has no goroutine and no descriptor left
// from the run (the child is reaped, its pipes closed).
func TestNoLeaks(t *testing.T) {
	s := serve(t)
	defer s.stop(t)
	goroutines := runtime.NumGoroutine()
	fds := openFDs()
	ld, err := Start(Config{Addr: s.ln.Addr().String(), Conns: 3, Requests: 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ld.Wait(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines+3 || openFDs() > fds { // +3: the server's conns ending
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d -> %d, fds %d -> %d", goroutines, runtime.NumGoroutine(), fds, openFDs())
		}
		time.Sleep(time.Millisecond)
	}
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

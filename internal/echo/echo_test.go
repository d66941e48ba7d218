package echo

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	echoload.MaybeRunChild()
	os.Exit(m.Run())
}

type variant struct {
	name  string
	start func(t *testing.T, l *loop.Loop, fd int) (done func() (bool, error))
}

// variants are the ways the echo handler runs on a loop: each starts a
// handler for fd on l and returns a func reporting whether it has finished
// and with what result.
func variants() []variant {
	vs := []variant{{"stackful", func(t *testing.T, l *loop.Loop, fd int) func() (bool, error) {
		env := stackful.NewEnvOn(l)
		var res error
		finished := false
		co := env.Create(func(co *stackful.Co) { res = Echo(co, fd); finished = true }, nil)
		co.Resume()
		return func() (bool, error) { return finished, res }
	}}}
	for name, newFrame := range stacklessHandlers {
		vs = append(vs, variant{"stackless-" + name, func(t *testing.T, l *loop.Loop, fd int) func() (bool, error) {
			f := newFrame(fd)
			task := stackless.Spawn(l, f)
			return func() (bool, error) { return task.Done(), f.(interface{ Result() error }).Result() }
		}})
	}
	return vs
}

// tcpPair returns the two ends of a loopback TCP connection, non-blocking.
func tcpPair(t *testing.T) (client, server int) {
	t.Helper()
	lfd, addr, err := echoload.ListenFD()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lfd)
	client, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var port int
	fmt.Sscanf(addr[strings.LastIndex(addr, ":")+1:], "%d", &port)
	if err := unix.Connect(client, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	for {
		server, _, err = unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != unix.EAGAIN {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(client, true)
	return client, server
}

func runUntil(t *testing.T, l *loop.Loop, limit time.Duration, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("not done after %v", limit)
		}
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEcho: each variant echoes messages of several sizes (those over
// MsgSize come back in pieces), returns nil at end of file and closes its
// connection.
func TestEcho(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			l, err := loop.New()
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			client, server := tcpPair(t)
			done := v.start(t, l, server)
			for _, size := range []int{1, MsgSize - 1, MsgSize, 3*MsgSize + 5} {
				msg := make([]byte, size)
				for i := range msg {
					msg[i] = byte('a' + (size+i)%26)
				}
				if n, err := unix.Write(client, msg); n != size || err != nil {
					t.Fatalf("client write: %d, %v", n, err)
				}
				var got []byte
				buf := make([]byte, 512)
				runUntil(t, l, 5*time.Second, func() bool {
					n, _ := unix.Read(client, buf)
					if n > 0 {
						got = append(got, buf[:n]...)
					}
					return len(got) >= size
				})
				if string(got) != string(msg) {
					t.Fatalf("size %d: echoed %q", size, got)
				}
			}
			unix.Close(client)
			runUntil(t, l, 5*time.Second, func() bool { ok, _ := done(); return ok })
			if _, res := done(); res != nil {
				t.Fatalf("result %v at end of file", res)
			}
			if _, err := unix.FcntlInt(uintptr(server), unix.F_GETFD, 0); err == nil {
				t.Fatal("the handler did not close its connection")
			}
		})
	}
}

// TestEchoReset: a connection reset by the peer ends each variant with the
// error, and the connection closed.
func TestEchoReset(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			l, err := loop.New()
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			client, server := tcpPair(t)
			done := v.start(t, l, server)
			runUntil(t, l, time.Second, func() bool { return l.Stats().Armed > 0 })
			unix.SetsockoptLinger(client, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
			unix.Close(client) // RST
			runUntil(t, l, 5*time.Second, func() bool { ok, _ := done(); return ok })
			if _, res := done(); !errors.Is(res, unix.ECONNRESET) {
				t.Fatalf("result %v, want ECONNRESET", res)
			}
			if _, err := unix.FcntlInt(uintptr(server), unix.F_GETFD, 0); err == nil {
				t.Fatal("the handler did not close its connection")
			}
		})
	}
}

// TestServers: every server answers a short echoload run over several
// connections, and shuts down with every connection closed.
func TestServers(t *testing.T) {
	models := []string{"stackful", "goroutine"}
	for name := range stacklessHandlers {
		models = append(models, "stackless/"+name)
	}
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			res := runServer(t, model, echoload.Config{Conns: 20, Requests: 2000})
			if res.Requests != 2000 {
				t.Fatalf("%d requests answered", res.Requests)
			}
			t.Log(res)
		})
	}
}

// runServer serves one echoload run with the model and shuts the server
// down; it fails tb if a descriptor is left open.
func runServer(tb testing.TB, model string, cfg echoload.Config) echoload.Result {
	tb.Helper()
	before := openFDs()
	l, err := loop.New()
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	addr, shutdown := startServer(tb, model, l)
	cfg.Addr = addr
	ld, err := echoload.Start(cfg)
	if err != nil {
		shutdown(time.Second)
		tb.Fatal(err)
	}
	res, err := serveUntil(l, ld)
	if serr := shutdown(10 * time.Second); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		tb.Fatal(err)
	}
	l.Close()
	if after := openFDs(); after != before {
		tb.Fatalf("descriptors open: %d before the run, %d after", before, after)
	}
	return res
}

// serveUntil runs l until the load has ended and returns its result.
func serveUntil(l *loop.Loop, ld *echoload.Load) (echoload.Result, error) {
	over := false
	go func() {
		<-ld.Done()
		l.Submit(func() { over = true })
	}()
	if err := l.Run(func() bool { return over }); err != nil {
		return echoload.Result{}, err
	}
	return ld.Wait()
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

//go:build unix

package cohttp_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/internal/httpdiff"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

var models = []string{"stackful", "stackless"}

// testHandler answers /echo with the body and everything else with a
// greeting.
func testHandler(w *ResponseWriter, r *Request) {
	if string(r.Path()) == "/echo" {
		w.Write(r.Body())
		return
	}
	w.AddHeader("Content-Type", "text/plain; charset=utf-8")
	w.WriteString("Hello, World!")
}

// oracleHandler is testHandler for net/http: the body read first, as the
// server reads it before calling its handler (a body it cannot read is a
// 400, a body beyond the limit a 413).
func oracleHandler(maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/echo" {
			w.Write(body)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "Hello, World!")
	})
}

// start serves h in the model on a loop of its own goroutine, until the
// test ends, and returns the address.
func start(t testing.TB, model string, h Handler, lim Limits) string {
	t.Helper()
	addr, shutdown := startShutdown(t, model, h, lim)
	t.Cleanup(func() {
		if err := shutdown(time.Second); err != nil {
			t.Error(err)
		}
	})
	return addr
}

// startShutdown is start returning the server's Shutdown, which the test
// must call: it stops the loop, shuts the server down with the limit given
// and returns the error.
func startShutdown(t testing.TB, model string, h Handler, lim Limits) (string, func(time.Duration) error) {
	t.Helper()
	var s *Server
	return startShutdownServer(t, model, h, lim, &s)
}

// startShutdownServer is startShutdown setting *srv to the server, which
// the test may read once the shutdown has returned.
func startShutdownServer(t testing.TB, model string, h Handler, lim Limits, srv **Server) (string, func(time.Duration) error) {
	t.Helper()
	type started struct {
		addr string
		l    *loop.Loop
		err  error
	}
	ready := make(chan started, 1)
	limits := make(chan time.Duration, 1)
	done := make(chan error, 1)
	quit := false
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l, err := loop.New()
		if err != nil {
			ready <- started{err: err}
			return
		}
		defer l.Close()
		lfd, addr, err := echoload.ListenFD()
		if err != nil {
			ready <- started{err: err}
			return
		}
		var s *Server
		var env *stackful.Env
		if model == "stackful" {
			env = stackful.NewEnvOn(l)
			s = ServeStackful(env, lfd, h, lim)
		} else {
			s = ServeStackless(l, lfd, h, lim)
		}
		*srv = s
		ready <- started{addr: addr, l: l}
		if env != nil {
			err = env.Run(func() bool { return quit })
		} else {
			err = l.Run(func() bool { return quit })
		}
		err = errors.Join(err, s.Shutdown(<-limits))
		if env != nil {
			err = errors.Join(err, env.Close())
		}
		done <- err
	}()
	st := <-ready
	if st.err != nil {
		t.Fatal(st.err)
	}
	var once sync.Once
	var err error
	return st.addr, func(limit time.Duration) error {
		once.Do(func() {
			limits <- limit
			st.l.Submit(func() { quit = true })
			err = <-done
		})
		return err
	}
}

// serverDiffers are the cases where this server answers differently from
// net/http's server (with a handler that reads the body first), and why.
var serverDiffers = map[string]string{
	"cl-and-te": "Content-Length and Transfer-Encoding both: answered (chunked wins, as net/http) with Connection: close and the connection " +
		"closed, as RFC 9112 section 6.1 requires; net/http keeps it open and answers the next request",
	"half-close-mid-body": "a body cut short: this server's 400 says Connection: close; net/http's handler answers 400 and closes without saying so",
}

// TestDifferential: both models answer every byte stream of the suite as
// net/http's server does with the same handler.
func TestDifferential(t *testing.T) {
	oracle := httpdiff.Oracle(t, oracleHandler(DefaultMaxBodyBytes))
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			httpdiff.Run(t, oracle, start(t, model, testHandler, Limits{}), httpdiff.Cases(), serverDiffers)
		})
	}
}

// TestHostile: oversized heads, slowloris, idle connections and a flood
// beyond the connection cap, in both models.
func TestHostile(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			httpdiff.Hostile(t, func(t *testing.T, lim Limits) string { return start(t, model, testHandler, lim) })
		})
	}
}

// FuzzDifferential sends random streams built from the suite's pieces to
// net/http's server and to both models (go test -fuzz FuzzDifferential
// ./cohttp); without -fuzz the seeds run.
func FuzzDifferential(f *testing.F) {
	for _, seed := range [][]byte{{0, 1, 2}, {5, 0x80, 19, 0}, {6, 7, 0x88, 0}, {20, 21, 0}, {9, 0x80 | 9}, []byte("0C"), []byte("020020C")} {
		f.Add(seed)
	}
	oracle := httpdiff.Oracle(f, oracleHandler(DefaultMaxBodyBytes))
	var addrs []string
	for _, model := range models {
		addrs = append(addrs, start(f, model, testHandler, Limits{}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			t.Skip("long streams add nothing the pieces do not")
		}
		for _, addr := range addrs {
			httpdiff.Run(t, oracle, addr, []httpdiff.Case{httpdiff.Stream(data)}, nil)
		}
	})
}

// TestShutdown: Shutdown closes an idle connection at once, lets a request
// whose body is still coming finish (its response says Connection:
// close), and returns once it has; a request stalled past the limit is cut
// off at the limit.
func TestShutdown(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr, shutdown := startShutdown(t, model, testHandler, Limits{})
			idle, idleR := dialSend(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp, err := http.ReadResponse(idleR, nil); err != nil || resp.StatusCode != 200 {
				t.Fatalf("first request: %v", err)
			} else {
				io.Copy(io.Discard, resp.Body)
			}
			busy, busyR := dialSend(t, addr, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
			time.Sleep(50 * time.Millisecond) // the server has the head and half the body
			t0 := time.Now()
			done := make(chan error, 1)
			go func() { done <- shutdown(5 * time.Second) }()
			if _, err := idleR.ReadByte(); err != io.EOF {
				t.Errorf("idle connection: %v, want EOF", err)
			}
			if d := time.Since(t0); d > time.Second {
				t.Errorf("idle connection closed after %v", d)
			}
			io.WriteString(busy, "world")
			resp, err := http.ReadResponse(busyR, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != "helloworld" || !resp.Close {
				t.Errorf("request in flight: %d %q Close=%v", resp.StatusCode, body, resp.Close)
			}
			if err := <-done; err != nil {
				t.Error(err)
			}
			if d := time.Since(t0); d > 4*time.Second {
				t.Errorf("shutdown took %v", d)
			}
			idle.Close()
			busy.Close()
		})
		t.Run(model+"/limit", func(t *testing.T) {
			addr, shutdown := startShutdown(t, model, testHandler, Limits{})
			stalled, stalledR := dialSend(t, addr, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhel")
			defer stalled.Close()
			time.Sleep(50 * time.Millisecond)
			t0 := time.Now()
			if err := shutdown(200 * time.Millisecond); err != nil {
				t.Error(err)
			}
			if d := time.Since(t0); d < 150*time.Millisecond || d > 3*time.Second {
				t.Errorf("shutdown took %v with a limit of 200 ms", d)
			}
			if _, err := stalledR.ReadByte(); err == nil {
				t.Error("the stalled connection got an answer")
			}
		})
	}
}

// dialSend connects to addr and sends req.
func dialSend(t *testing.T, addr, req string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// TestDateHeader: every response carries the Date header of its second
// (the server formats it once per second of its loop's clock): it parses,
// it is within a second of the wall clock, and a response a second and a
// half later carries a later one, on the same connection, pipelined
// answers included.
func TestDateHeader(t *testing.T) {
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			t.Parallel() // each waits 1.5 s
			addr := start(t, model, testHandler, Limits{})
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			br := bufio.NewReader(c)
			get := func(n int) time.Time {
				t.Helper()
				before := time.Now().Truncate(time.Second)
				if _, err := io.WriteString(c, strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", n)); err != nil {
					t.Fatal(err)
				}
				var first time.Time
				for i := range n {
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						t.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					d, err := http.ParseTime(resp.Header.Get("Date"))
					if err != nil {
						t.Fatalf("Date %q: %v", resp.Header.Get("Date"), err)
					}
					if after := time.Now(); d.Before(before) || d.After(after) {
						t.Fatalf("Date %v, not in [%v, %v]", d, before, after)
					}
					if i == 0 {
						first = d
					}
				}
				return first
			}
			d0 := get(1)
			get(8)
			time.Sleep(1500 * time.Millisecond)
			if d1 := get(1); !d1.After(d0) {
				t.Errorf("Date %v 1.5 s after %v", d1, d0)
			}
		})
	}
}

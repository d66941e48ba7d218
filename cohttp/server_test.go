//go:build linux

package cohttp_test

import (
	"errors"
	"io"
	"net/http"
	"runtime"
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
	type started struct {
		addr string
		l    *loop.Loop
		err  error
	}
	ready := make(chan started, 1)
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
		ready <- started{addr: addr, l: l}
		if env != nil {
			err = env.Run(func() bool { return quit })
		} else {
			err = l.Run(func() bool { return quit })
		}
		err = errors.Join(err, s.Shutdown(time.Second))
		if env != nil {
			err = errors.Join(err, env.Close())
		}
		done <- err
	}()
	st := <-ready
	if st.err != nil {
		t.Fatal(st.err)
	}
	t.Cleanup(func() {
		st.l.Submit(func() { quit = true })
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return st.addr
}

// serverDiffers are the cases where this server answers differently from
// net/http's server (with a handler that reads the body first), and why.
var serverDiffers = map[string]string{
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

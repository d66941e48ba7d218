//go:build unix

package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/echo"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/internal/hello"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
)

// HTTPModels are the HTTP hello servers RunHTTP knows. The stackful ones
// run one coroutine per connection that parses requests with
// http.ReadRequest and writes a preformatted response (HelloLoop):
//
//   - "stackful/conet": conet's net.Conn on hooked stackful coroutines,
//     accepted by conet.Serve: blocking-style code on the adapters;
//   - "stackful/co": the coroutine's own Co.Read and Co.Write on the raw
//     descriptor, without the adapters;
//   - "stackful/cohttp", "stackless/cohttp": cohttp's server, whose
//     connection loop is one //co:stackless source, run as it is on
//     stackful coroutines and as the frames cogen generated on stackless
//     tasks, with hello.Handler;
//   - "net/http": Go's server, with HelloHandler.
var HTTPModels = []string{"stackful/conet", "stackful/co", "stackful/cohttp", "stackless/cohttp", "net/http"}

// HTTPWaitModels are the hello servers RunHTTPWait knows, whose handler
// waits hello.DefaultWait (1 ms, a stand-in for a database round trip)
// before answering: "stackful/cohttp" and "stackless/cohttp" with
// hello.Wait (a cohttp.WaitHandler: one //co:stackless source, a timer on
// the loop), "net/http" with WaitingHelloHandler (time.Sleep in the
// connection's goroutine).
var HTTPWaitModels = []string{"stackful/cohttp", "stackless/cohttp", "net/http"}

// helloBody is what every hello server answers.
const helloBody = hello.Body

// HelloHandler is the net/http hello handler: a fixed body with its content
// type set (so that net/http does not sniff it).
func HelloHandler(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Type"] = []string{"text/plain; charset=utf-8"}
	io.WriteString(w, helloBody)
}

// WaitingHelloHandler is HelloHandler after a time.Sleep of
// hello.DefaultWait: net/http's handler that waits.
func WaitingHelloHandler(w http.ResponseWriter, r *http.Request) {
	time.Sleep(hello.DefaultWait)
	HelloHandler(w, r)
}

// HelloLoop is hello.Serve: the loop every stackful HTTP server here runs
// per connection.
func HelloLoop(r io.Reader, w io.Writer) error { return hello.Serve(r, w) }

// coConn reads and writes fd through a stackful coroutine: a call that
// would block suspends the coroutine on the loop. A read (write) deadline
// makes Read (Write) give up with loop.ErrTimeout; CloseWrite half-closes
// fd.
type coConn struct {
	co        *stackful.Co
	fd        int
	deadline  time.Time
	wdeadline time.Time
}

func (c *coConn) Read(p []byte) (int, error) {
	timeout := time.Duration(-1)
	if !c.deadline.IsZero() {
		timeout = max(time.Until(c.deadline), 0)
	}
	n, err := c.co.ReadTimeout(c.fd, p, timeout)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return n, err
}

func (c *coConn) Write(p []byte) (int, error) {
	timeout := time.Duration(-1)
	if !c.wdeadline.IsZero() {
		timeout = max(time.Until(c.wdeadline), 0)
	}
	return c.co.WriteTimeout(c.fd, p, timeout)
}

func (c *coConn) SetReadDeadline(t time.Time) error { c.deadline = t; return nil }

func (c *coConn) SetWriteDeadline(t time.Time) error { c.wdeadline = t; return nil }

// CloseWrite half-closes after what the loop still sends (completion mode).
func (c *coConn) CloseWrite() error { return c.co.Env().Loop().ShutdownWrite(c.fd) }

// StackfulHello serves hello requests on the connection fd in the
// coroutine co with HelloLoop over Co.Read and Co.Write, then closes fd.
func StackfulHello(co *stackful.Co, fd int) error {
	return StackfulHelloLimits(co, fd, cohttp.Limits{})
}

// StackfulHelloLimits is StackfulHello with the limits lim.
func StackfulHelloLimits(co *stackful.Co, fd int, lim cohttp.Limits) error {
	defer co.Close(fd)
	c := &coConn{co: co, fd: fd}
	return hello.ServeLimits(c, c, lim)
}

// stackfulShutdown returns the shutdown of a stackful server on env: close
// the listener (with closeListener), then run the loop until every
// coroutine has finished, for at most limit, and close env.
func stackfulShutdown(env *stackful.Env, closeListener func() error) func(time.Duration) error {
	return func(limit time.Duration) error {
		err := closeListener()
		expired := false
		var guard loop.Timer
		l := env.Loop()
		l.Reset(&guard, limit, func() { expired = true })
		rerr := env.Run(func() bool { return expired || env.Live() == 0 })
		l.CancelTimer(&guard)
		if live := env.Live(); live != 0 {
			rerr = errors.Join(rerr, fmt.Errorf("bench: %d coroutines still running after %v", live, limit))
		}
		return errors.Join(err, rerr, env.Close())
	}
}

// RunHTTP serves one echoload HTTP run (cfg.Addr and cfg.HTTP are filled
// in) with a hello server of the model, shuts the server down, and returns
// what the load client measured.
func RunHTTP(model string, cfg echoload.Config) (LoadResult, error) {
	return runHTTP(model, cfg, false)
}

// RunHTTPWait is RunHTTP with a model of HTTPWaitModels, whose handler
// waits before answering.
func RunHTTPWait(model string, cfg echoload.Config) (LoadResult, error) {
	if !slices.Contains(HTTPWaitModels, model) {
		return LoadResult{}, fmt.Errorf("bench: unknown waiting HTTP model %q", model)
	}
	return runHTTP(model, cfg, true)
}

func runHTTP(model string, cfg echoload.Config, wait bool) (LoadResult, error) {
	cfg.HTTP = true
	lockLoopThread()
	defer runtime.UnlockOSThread()
	switch model {
	case "stackful/co":
		l, err := loop.New()
		if err != nil {
			return LoadResult{}, err
		}
		defer l.Close()
		lfd, addr, err := echoload.ListenFD()
		if err != nil {
			return LoadResult{}, err
		}
		env := stackful.NewEnvOn(l)
		s := echo.ServeStackful(env, lfd, StackfulHello)
		cfg.Addr = addr
		res, err := serveLoad(cfg, func(limit time.Duration) error {
			return errors.Join(s.Shutdown(limit), env.Close())
		}, func(ld *echoload.Load) error { return serveUntil(l, ld) })
		return LoadResult{res, loopWaits(l)}, err
	case "stackful/cohttp", "stackless/cohttp":
		l, err := loop.New()
		if err != nil {
			return LoadResult{}, err
		}
		defer l.Close()
		lfd, addr, err := echoload.ListenFD()
		if err != nil {
			return LoadResult{}, err
		}
		var s *cohttp.Server
		var env *stackful.Env
		h := hello.Handler
		if wait {
			h = hello.Wait.Handler()
		}
		if model == "stackful/cohttp" {
			env = stackful.NewEnvOn(l)
			s = cohttp.ServeStackful(env, lfd, h, cohttp.Limits{})
		} else {
			s = cohttp.ServeStackless(l, lfd, h, cohttp.Limits{})
		}
		cfg.Addr = addr
		res, err := serveLoad(cfg, func(limit time.Duration) error {
			err := s.Shutdown(limit)
			if env != nil {
				err = errors.Join(err, env.Close())
			}
			return err
		}, func(ld *echoload.Load) error { return serveUntil(l, ld) })
		return LoadResult{res, loopWaits(l)}, err
	case "stackful/conet":
		l, err := loop.New()
		if err != nil {
			return LoadResult{}, err
		}
		defer l.Close()
		ln, err := conet.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return LoadResult{}, err
		}
		env := stackful.NewEnvOn(l)
		var serveErr error
		env.Create(func(co *stackful.Co) {
			serveErr = conet.Serve(co, ln, func(_ *stackful.Co, c net.Conn) {
				defer c.Close()
				HelloLoop(c, c)
			}, nil)
		}, nil).Resume()
		cfg.Addr = ln.Addr().String()
		res, err := serveLoad(cfg, stackfulShutdown(env, ln.Close), func(ld *echoload.Load) error { return serveUntil(l, ld) })
		if serveErr != nil && !errors.Is(serveErr, net.ErrClosed) {
			err = errors.Join(err, serveErr)
		}
		return LoadResult{res, loopWaits(l)}, err
	case "net/http":
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return LoadResult{}, err
		}
		srv := &http.Server{Handler: http.HandlerFunc(HelloHandler)}
		if wait {
			srv.Handler = http.HandlerFunc(WaitingHelloHandler)
		}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		cfg.Addr = ln.Addr().String()
		res, err := serveLoad(cfg, func(time.Duration) error {
			err := srv.Close()
			if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
				err = serr
			}
			return err
		}, func(ld *echoload.Load) error { <-ld.Done(); return nil })
		return LoadResult{res, -1}, err
	}
	return LoadResult{}, fmt.Errorf("bench: unknown HTTP model %q", model)
}

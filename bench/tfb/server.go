package tfb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/cogen-go/cogen/client/pg"
	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"
)

// Servers are the servers Serve knows, in the order the tables show them.
var Servers = []string{CohttpStackful, CohttpStackless, CohttpPgx, NetHTTP, FastHTTP}

// The servers.
const (
	// CohttpStackful is cohttp on stackful coroutines with the native
	// client; CohttpStackless the same handler source as generated frames.
	CohttpStackful  = "cohttp stackful"
	CohttpStackless = "cohttp stackless"
	// CohttpPgx is cohttp on stackful coroutines with the stock driver,
	// pgx (pgxpool), run on the env's offload workers.
	CohttpPgx = "cohttp stackful pgx"
	// NetHTTP and FastHTTP run their handlers on goroutines with a pgx
	// pool.
	NetHTTP  = "net/http"
	FastHTTP = "fasthttp"
)

// DefaultPool is every server's number of database conns (each cohttp
// server runs one loop, with one pool).
const DefaultPool = 16

// A Running server answers on Addr until Stop.
type Running struct {
	Addr string
	stop func() error
}

// Stop stops the server and closes its database conns.
func (r *Running) Stop() error { return r.stop() }

// nativeBusy keeps a second native server of the process from replacing
// the first one's pool (nativePool is one per process).
var nativeBusy sync.Mutex

// Serve starts the server kind on 127.0.0.1 (a free port) with a pool of
// poolSize conns to the database at url.
func Serve(kind, url string, poolSize int) (*Running, error) {
	switch kind {
	case CohttpStackful, CohttpStackless:
		cfg, err := pg.ParseURL(url)
		if err != nil {
			return nil, err
		}
		if !nativeBusy.TryLock() {
			return nil, errors.New("tfb: one native cohttp server per process")
		}
		nativePool = pg.NewPool(cfg, poolSize, nativeStmts...)
		r, err := serveLoop(func(l *loop.Loop, lfd int) (func(), func() error) {
			if kind == CohttpStackless {
				s := cohttp.ServeStackless(l, lfd, nativeRouter, serverLimits)
				closer := func() { stackless.Run(l, stackless.Spawn(l, pg.NewPoolCloseFrame(nativePool))) }
				return closer, func() error { return s.Shutdown(time.Second) }
			}
			env := stackful.NewEnvOn(l)
			s := cohttp.ServeStackful(env, lfd, nativeRouter, serverLimits)
			return func() { closePool(env) }, func() error { return errors.Join(s.Shutdown(time.Second), env.Close()) }
		})
		if err != nil {
			nativeBusy.Unlock()
			return nil, err
		}
		stop := r.stop
		r.stop = func() error { defer nativeBusy.Unlock(); return stop() }
		return r, nil
	case CohttpPgx:
		pool, err := goPool(url, poolSize)
		if err != nil {
			return nil, err
		}
		return serveLoop(func(l *loop.Loop, lfd int) (func(), func() error) {
			env := stackful.NewEnvOn(l)
			if watchPgxEnv != nil {
				watchPgxEnv(env)
			}
			s := &conetServer{pool: pool, gate: cosync.NewSemaphore(int64(poolSize))}
			s.wait = cohttp.Waiting(s.query, stackfulOnly)
			srv := cohttp.ServeStackful(env, lfd, s.router, serverLimits)
			return func() {}, func() error {
				err := srv.Shutdown(time.Second)
				pool.Close()
				return errors.Join(err, env.Close())
			}
		})
	case NetHTTP:
		pool, err := goPool(url, poolSize)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			pool.Close()
			return nil, err
		}
		srv := &http.Server{Handler: netHTTPHandler(pool)}
		go srv.Serve(ln)
		return &Running{Addr: ln.Addr().String(), stop: func() error {
			err := srv.Close()
			pool.Close()
			return err
		}}, nil
	case FastHTTP:
		pool, err := goPool(url, poolSize)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			pool.Close()
			return nil, err
		}
		srv := &fasthttp.Server{Handler: fastHTTPHandler(pool), Name: ServerHeader}
		go srv.Serve(ln)
		return &Running{Addr: ln.Addr().String(), stop: func() error {
			err := srv.Shutdown()
			pool.Close()
			return err
		}}, nil
	}
	return nil, fmt.Errorf("tfb: unknown server %q (known: %v)", kind, Servers)
}

// serveLoop runs a cohttp server on a loop of its own goroutine: start
// serves on the listener and returns what to run at the end on the loop
// (closing the pool) and the shutdown.
func serveLoop(start func(l *loop.Loop, lfd int) (func(), func() error)) (*Running, error) {
	type started struct {
		addr string
		l    *loop.Loop
		err  error
	}
	ready := make(chan started, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		l, err := loop.New()
		if err != nil {
			ready <- started{err: err}
			return
		}
		lfd, addr, err := loop.ListenTCP("tcp4", "127.0.0.1:0", false)
		if err != nil {
			l.Close()
			ready <- started{err: err}
			return
		}
		atEnd, shutdown := start(l, lfd)
		ready <- started{addr: addr.String(), l: l}
		err = l.Run(nil)
		atEnd()
		done <- errors.Join(err, shutdown(), l.Close())
	}()
	s := <-ready
	if s.err != nil {
		return nil, s.err
	}
	return &Running{Addr: s.addr, stop: func() error {
		if err := s.l.StopRun(); err != nil {
			return err
		}
		return <-done
	}}, nil
}

// closePool closes the native pool's conns on a coroutine of env and runs
// the loop until it is done.
func closePool(env *stackful.Env) {
	co := env.Create(func(co *stackful.Co) { nativePool.Close(co) }, nil)
	co.Resume()
	if co.Status() != stackful.Dead {
		env.Run(func() bool { return co.Status() == stackful.Dead })
	}
}

// goPool returns a pgxpool of size conns for goroutines (the cohttp pgx
// server's offload workers among them); a dial gives up after the native
// client's default unless the URL's connect_timeout says otherwise.
func goPool(url string, size int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("tfb: %w", err)
	}
	cfg.MaxConns = int32(size)
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = pg.DefaultConnectTimeout
	}
	return pgxpool.NewWithConfig(context.Background(), cfg)
}

func netHTTPHandler(pool *pgxpool.Pool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Server"] = []string{ServerHeader}
		var a answer
		switch r.URL.Path {
		case "/plaintext":
			a = answer{ContentText, []byte(HelloWorld), nil}
		case "/json":
			a = answer{ContentJSON, AppendMessage(nil), nil}
		default:
			var ok bool
			if a, ok = pgxAnswer(r.Context(), pool, r.URL.Path, []byte(r.URL.RequestURI())); !ok {
				w.WriteHeader(404)
				return
			}
		}
		if a.err != nil {
			http.Error(w, a.err.Error(), 500)
			return
		}
		h["Content-Type"] = []string{a.ctype}
		h["Content-Length"] = []string{strconv.Itoa(len(a.body))}
		w.Write(a.body)
	})
}

func fastHTTPHandler(pool *pgxpool.Pool) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		var a answer
		path := string(ctx.Path())
		switch path {
		case "/plaintext":
			a = answer{ContentText, []byte(HelloWorld), nil}
		case "/json":
			a = answer{ContentJSON, AppendMessage(nil), nil}
		default:
			var ok bool
			if a, ok = pgxAnswer(context.Background(), pool, path, ctx.RequestURI()); !ok {
				ctx.SetStatusCode(404)
				return
			}
		}
		if a.err != nil {
			ctx.Error(a.err.Error(), 500)
			return
		}
		ctx.SetContentType(a.ctype)
		ctx.SetBody(a.body)
	}
}

// watchPgxEnv, when set (by tests), sees the env of each CohttpPgx server
// before it serves: to watch it for stalls.
var watchPgxEnv func(*stackful.Env)

// serverLimits are cohttp's defaults but for the connection cap, raised
// above the plaintext test's 16,384 connections.
var serverLimits = cohttp.Limits{MaxConns: 20000}

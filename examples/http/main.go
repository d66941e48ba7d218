//go:build linux

// Command http is a hello-world HTTP/1.1 server on stackful coroutines: the
// connections are conet conns served by coroutines, requests are read with
// http.ReadRequest (through cohttp.RequestReader, which adds net/http's
// server checks and limits), and any http.Handler answers them, unmodified.
//
// Usage:
//
//	http [-addr 127.0.0.1:8080] [-loops N] [-server handler] [-max-header-bytes 1048576]
//	     [-read-header-timeout 10s] [-read-timeout 30s] [-write-timeout 30s]
//	     [-idle-timeout 60s] [-max-body 4194304] [-body-budget 33554432]
//	     [-max-conns 10000] [-shutdown-timeout 5s]
//
// The server is a group of N envs (stackful.Group; N defaults to
// GOMAXPROCS, and -envs is the old name of -loops), each on its own
// goroutine locked to its thread and accepting on the port with a listener
// of its own (SO_REUSEPORT). The limits are cohttp.Limits (a negative value
// turns one off), -max-conns per env. On an interrupt the server shuts down
// gracefully: it stops accepting, closes idle connections, and gives the
// requests in flight -shutdown-timeout to finish.
//
// -server picks the server: "handler" (the default) is the above;
// "cohttp-stackful" and "cohttp-stackless" serve the same routes with
// package cohttp's server, whose connection loop is one //co:stackless
// source run on stackful coroutines or as the stackless frames cogen
// generated from it (a loop group of either model).
//
// The routes: GET / and GET /hello/{name} answer at once; GET
// /sleep/{duration} ("/sleep/10ms", at most 10 s) waits that long before
// answering, while the loop serves every other connection: the http.Handler
// sleeps through its coroutine (stackful.Self), the cohttp servers hand the
// request to a cohttp.WaitHandler written once as a //co:stackless function
// (sleep.go) and run as a coroutine or as its generated frame.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("http: ")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	var loops int
	flag.IntVar(&loops, "loops", 0, "envs (loops, threads) accepting on the address; 0: GOMAXPROCS")
	flag.IntVar(&loops, "envs", 0, "old name of -loops")
	var lim cohttp.Limits
	flag.IntVar(&lim.MaxHeaderBytes, "max-header-bytes", cohttp.DefaultMaxHeaderBytes, "bound of a request head: beyond it, 431")
	flag.DurationVar(&lim.ReadHeaderTimeout, "read-header-timeout", cohttp.DefaultReadHeaderTimeout, "time to read a request head (negative: none)")
	flag.DurationVar(&lim.ReadTimeout, "read-timeout", cohttp.DefaultReadTimeout, "time to read a whole request, head and body (negative: none)")
	flag.DurationVar(&lim.WriteTimeout, "write-timeout", cohttp.DefaultWriteTimeout, "time a client gets to take the answers written to it (negative: none)")
	flag.DurationVar(&lim.IdleTimeout, "idle-timeout", cohttp.DefaultIdleTimeout, "time a keep-alive connection may wait for its next request (negative: none)")
	flag.Int64Var(&lim.MaxBodyBytes, "max-body", cohttp.DefaultMaxBodyBytes, "bound of a request body a handler reads (negative: none)")
	flag.Int64Var(&lim.BodyBudget, "body-budget", cohttp.DefaultBodyBudget, "bytes of request bodies a cohttp server buffers at once, per loop (negative: none)")
	flag.IntVar(&lim.MaxConns, "max-conns", cohttp.DefaultMaxConns, "open connections per env; beyond, accepting pauses (negative: none)")
	grace := flag.Duration("shutdown-timeout", 5*time.Second, "time requests in flight get to finish on an interrupt")
	kind := flag.String("server", "handler", "handler (http.Handler on conet), cohttp-stackful or cohttp-stackless")
	flag.Parse()
	var s *server
	var err error
	if *kind == "handler" {
		s, err = start(*addr, loops, helloMux(), lim)
	} else {
		s, err = startCohttp(*addr, loops, *kind, lim)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving on http://%s with %d loop(s)\n", s.addr, s.g.Len())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	if err := s.shutdown(*grace); err != nil {
		log.Fatal(err)
	}
}

// helloMux is the example's handler: an ordinary http.ServeMux.
func helloMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "Hello, World!\n")
	})
	mux.HandleFunc("GET /hello/{name}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "Hello, %s!\n", r.PathValue("name"))
	})
	mux.HandleFunc("GET /sleep/{d}", func(w http.ResponseWriter, r *http.Request) {
		d, ok := sleepDuration(r.PathValue("d"))
		if !ok {
			http.Error(w, badDuration, http.StatusBadRequest)
			return
		}
		// The handler runs on the connection's coroutine: sleeping through
		// it lets the env serve the other connections meanwhile.
		stackful.Self().Sleep(d)
		fmt.Fprintf(w, "Slept %v\n", d)
	})
	return mux
}

// A server is a group of loops (stackful envs, or stackless loops), each
// accepting on its own SO_REUSEPORT listener and serving every connection
// in a coroutine or task.
type server struct {
	addr string
	g    interface {
		Len() int
		Shutdown(time.Duration) error
	}
}

// An envServer is what one env of a server keeps; only the env's loop
// goroutine touches it.
type envServer struct {
	lim      cohttp.Limits
	conns    map[*connState]struct{}
	draining bool // shutting down: no keep-alive, idle connections closed
}

// start serves h on addr with loops envs (0: GOMAXPROCS) and the limits
// lim.
func start(addr string, loops int, h http.Handler, lim cohttp.Limits) (*server, error) {
	g, err := stackful.NewGroup(loops)
	if err != nil {
		return nil, err
	}
	lim = lim.Normalize()
	envs := make(map[*stackful.Env]*envServer, g.Len()) // read-only once serving
	for i := range g.Len() {
		es := &envServer{lim: lim, conns: map[*connState]struct{}{}}
		envs[g.Env(i)] = es
		g.OnShutdown(i, es.drain)
	}
	a, err := conet.ServeGroupConns(g, "tcp", addr, lim.MaxConns, func(co *stackful.Co, c net.Conn) {
		serveConn(co, c, h, envs[co.Env()])
	}, nil)
	if err != nil {
		g.Shutdown(0)
		return nil, err
	}
	return &server{addr: a.String(), g: g}, nil
}

// startCohttp serves the example's routes with cohttp's server on addr
// with loops loops (0: GOMAXPROCS) of the model kind ("cohttp-stackful" or
// "cohttp-stackless") and the limits lim.
func startCohttp(addr string, loops int, kind string, lim cohttp.Limits) (*server, error) {
	switch kind {
	case "cohttp-stackful":
		g, err := stackful.NewGroup(loops)
		if err != nil {
			return nil, err
		}
		a, err := cohttp.ServeStackfulGroup(g, "tcp", addr, helloRoutes, lim)
		if err != nil {
			g.Shutdown(0)
			return nil, err
		}
		return &server{addr: a.String(), g: g}, nil
	case "cohttp-stackless":
		g, err := stackless.NewGroup(loops)
		if err != nil {
			return nil, err
		}
		a, err := cohttp.ServeStacklessGroup(g, "tcp", addr, helloRoutes, lim)
		if err != nil {
			g.Shutdown(0)
			return nil, err
		}
		return &server{addr: a.String(), g: g}, nil
	}
	return nil, fmt.Errorf("unknown server %q (handler, cohttp-stackful or cohttp-stackless)", kind)
}

// helloRoutes is helloMux for cohttp: GET /, GET /hello/{name}, and GET
// /sleep/{duration}, which it hands to the WaitHandler of sleep.go.
func helloRoutes(w *cohttp.ResponseWriter, r *cohttp.Request) {
	path := r.Path()
	name, isHello := bytes.CutPrefix(path, []byte("/hello/"))
	switch {
	case len(path) == 0:
		// An absolute-form target without a path (GET http://a) or one
		// url.ParseRequestURI takes as opaque (GET a:80): ServeMux
		// redirects to the cleaned path, "/", keeping the query.
		loc := "/"
		if _, q, ok := bytes.Cut(r.URI(), []byte("?")); ok {
			loc += "?" + string(q)
		}
		w.AddHeader("Location", loc)
		w.AddHeader("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusTemporaryRedirect)
		if string(r.Method()) == http.MethodGet || string(r.Method()) == http.MethodHead {
			w.WriteString("<a href=\"" + html.EscapeString(loc) + "\">Temporary Redirect</a>.\n\n")
		}
	case string(r.Method()) != http.MethodGet && string(r.Method()) != http.MethodHead:
		w.AddHeader("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
	case bytes.HasPrefix(path, []byte("/sleep/")):
		w.Wait(sleepHandler)
	case string(path) == "/":
		w.AddHeader("Content-Type", "text/plain; charset=utf-8")
		w.WriteString("Hello, World!\n")
	case isHello && len(name) > 0 && bytes.IndexByte(name, '/') < 0:
		w.WriteString("Hello, ")
		w.Write(name)
		w.WriteString("!\n")
	default:
		w.WriteHeader(http.StatusNotFound)
		w.WriteString("404 page not found\n")
	}
}

// drain starts the env's part of a graceful shutdown: responses from now
// on close their connections, and idle connections close at once.
func (es *envServer) drain() {
	es.draining = true
	for st := range es.conns {
		if st.rr.Idle() {
			st.c.Close()
		}
	}
}

// shutdown stops the server gracefully: the listeners close, idle
// connections close, and connections with a request in flight answer it
// (with Connection: close) and close; after limit, the group cancels what
// is left.
func (s *server) shutdown(limit time.Duration) error { return s.g.Shutdown(limit) }

// stop is shutdown with the default grace of 5 s.
func (s *server) stop() error { return s.shutdown(5 * time.Second) }

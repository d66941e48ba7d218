//go:build linux

// Command http is a hello-world HTTP/1.1 server on stackful coroutines: the
// connections are conet conns served by coroutines, requests are read with
// http.ReadRequest (through cohttp.RequestReader, which adds net/http's
// server checks and limits), and any http.Handler answers them, unmodified.
//
// Usage:
//
//	http [-addr 127.0.0.1:8080] [-loops N] [-max-header-bytes 1048576]
//	     [-read-header-timeout 10s] [-idle-timeout 60s] [-max-body 4194304]
//	     [-max-conns 10000] [-shutdown-timeout 5s]
//
// The server is a group of N envs (stackful.Group; N defaults to
// GOMAXPROCS, and -envs is the old name of -loops), each on its own
// goroutine locked to its thread and accepting on the port with a listener
// of its own (SO_REUSEPORT). The limits are cohttp.Limits (a negative value
// turns one off), -max-conns per env. On an interrupt the server shuts down
// gracefully: it stops accepting, closes idle connections, and gives the
// requests in flight -shutdown-timeout to finish.
package main

import (
	"flag"
	"fmt"
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
	flag.DurationVar(&lim.IdleTimeout, "idle-timeout", cohttp.DefaultIdleTimeout, "time a keep-alive connection may wait for its next request (negative: none)")
	flag.Int64Var(&lim.MaxBodyBytes, "max-body", cohttp.DefaultMaxBodyBytes, "bound of a request body a handler reads (negative: none)")
	flag.IntVar(&lim.MaxConns, "max-conns", cohttp.DefaultMaxConns, "open connections per env; beyond, accepting pauses (negative: none)")
	grace := flag.Duration("shutdown-timeout", 5*time.Second, "time requests in flight get to finish on an interrupt")
	flag.Parse()
	s, err := start(*addr, loops, helloMux(), lim)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving on http://%s with %d env(s)\n", s.addr, s.g.Len())
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
	return mux
}

// A server is a group of envs, each accepting on its own SO_REUSEPORT
// listener and serving every connection in a coroutine.
type server struct {
	addr string
	g    *stackful.Group
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

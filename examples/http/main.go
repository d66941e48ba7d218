//go:build linux

// Command http is a hello-world HTTP/1.1 server on stackful coroutines: the
// connections are conet conns served by coroutines, requests are read with
// http.ReadRequest, and any http.Handler answers them, unmodified.
//
// Usage:
//
//	http [-addr 127.0.0.1:8080] [-loops N]
//
// The server is a group of N envs (stackful.Group; N defaults to
// GOMAXPROCS, and -envs is the old name of -loops), each on its own
// goroutine locked to its thread and accepting on the port with a listener
// of its own (SO_REUSEPORT). On an interrupt it stops accepting and gives
// the requests in flight 5 s to finish.
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
	flag.Parse()
	s, err := start(*addr, loops, helloMux())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving on http://%s with %d env(s)\n", s.addr, s.g.Len())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	if err := s.stop(); err != nil {
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

// shutdownGrace is how long stop lets the requests in flight finish.
const shutdownGrace = 5 * time.Second

// start serves h on addr with loops envs (0: GOMAXPROCS).
func start(addr string, loops int, h http.Handler) (*server, error) {
	g, err := stackful.NewGroup(loops)
	if err != nil {
		return nil, err
	}
	a, err := conet.ServeGroup(g, "tcp", addr, func(co *stackful.Co, c net.Conn) { serveConn(co, c, h) }, nil)
	if err != nil {
		g.Shutdown(0)
		return nil, err
	}
	return &server{addr: a.String(), g: g}, nil
}

// stop closes the listeners, lets the connections being served end for up
// to shutdownGrace, and closes the envs.
func (s *server) stop() error { return s.g.Shutdown(shutdownGrace) }

//go:build linux

// Command http is a hello-world HTTP/1.1 server on stackful coroutines: the
// connections are conet conns served by coroutines, requests are read with
// http.ReadRequest, and any http.Handler answers them, unmodified.
//
// Usage:
//
//	http [-addr 127.0.0.1:8080] [-envs 1]
//
// With -envs N, N envs accept on the port (SO_REUSEPORT), each on its own
// goroutine locked to its thread.
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
	"runtime"
	"sync"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("http: ")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	envs := flag.Int("envs", 1, "envs (threads) accepting on the address")
	flag.Parse()
	s, err := start(*addr, *envs, helloMux())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving on http://%s with %d env(s)\n", s.addr, *envs)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	s.stop()
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

// A server is envs envs, each accepting on its own SO_REUSEPORT listener
// and serving every connection in a coroutine.
type server struct {
	addr string
	lns  []net.Listener
	wg   sync.WaitGroup
}

func start(addr string, envs int, h http.Handler) (*server, error) {
	s := &server{addr: addr}
	for range max(envs, 1) {
		ln, err := conet.ListenReusePort("tcp", s.addr)
		if err != nil {
			s.stop()
			return nil, err
		}
		s.addr = ln.Addr().String() // the port picked for :0, for the next envs
		s.lns = append(s.lns, ln)
	}
	for _, ln := range s.lns {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			env, err := stackful.NewEnv()
			if err != nil {
				log.Print(err)
				return
			}
			defer env.Close()
			stopped := false
			acceptor := env.Create(func(co *stackful.Co) {
				conet.Serve(co, ln, func(co *stackful.Co, c net.Conn) { serveConn(co, c, h) }, nil)
				stopped = true
			}, nil)
			acceptor.Resume()
			env.Run(func() bool { return stopped })
		}()
	}
	return s, nil
}

// stop closes the listeners; each env then ends, closing the connections
// still open.
func (s *server) stop() {
	for _, ln := range s.lns {
		ln.Close()
	}
	s.wg.Wait()
}

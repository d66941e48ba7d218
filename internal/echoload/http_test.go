package echoload

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTP: an HTTP run answers exactly the requested number of keep-alive
// GETs against net/http, over no more connections than configured.
func TestHTTP(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits, conns atomic.Int64
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/hello" || r.Method != "GET" {
				http.NotFound(w, r)
				return
			}
			hits.Add(1)
			w.Write([]byte("Hello, World!"))
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	}
	go srv.Serve(ln)
	defer srv.Close()
	ld, err := Start(Config{Addr: ln.Addr().String(), Conns: 5, Requests: 500, HTTP: true, Path: "/hello"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ld.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 500 || hits.Load() != 500 || conns.Load() != 5 {
		t.Fatalf("result %+v; server saw %d requests on %d connections", res, hits.Load(), conns.Load())
	}
	if n, ok := res.SyscallsPerReq(); !ok || n < 1 {
		t.Fatalf("syscalls per request %v %v (%+v)", n, ok, res)
	}
	t.Log(res)
}

// TestHTTPErrors: a response that is not 200 with a Content-Length fails
// the run.
func TestHTTPErrors(t *testing.T) {
	for _, resp := range []string{
		"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	} {
		br := bufio.NewReader(strings.NewReader(resp))
		if err := readResponse(br); err == nil {
			t.Errorf("%q accepted", resp)
		}
	}
	br := bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\ncontent-length: 5\r\nDate: x\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
	for range 2 {
		if err := readResponse(br); err != nil {
			t.Fatal(err)
		}
	}
	if br.Buffered() != 0 {
		t.Fatalf("%d bytes left", br.Buffered())
	}
}

// TestSyscalls: an echo run against a server that reads and writes (not
// io.Copy, which splices) counts at least one read and one write per request
// in the server's process.
func TestSyscalls(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer ln.Close()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 64)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	ld, err := Start(Config{Addr: ln.Addr().String(), Conns: 4, Requests: 400, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ld.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerReads < 400 || res.ServerWrites < 400 {
		t.Fatalf("%d reads and %d writes for %d requests", res.ServerReads, res.ServerWrites, res.Requests)
	}
	t.Log(res.SyscallsPerReq())
}

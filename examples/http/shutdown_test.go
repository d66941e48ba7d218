//go:build linux

package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// slowHandler answers /slow?ms=N after sleeping N ms on the env's loop.
func slowHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", helloMux())
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		stackful.Self().Sleep(time.Duration(ms) * time.Millisecond)
		io.WriteString(w, "slept")
	})
	return mux
}

// dialSend connects to addr and sends req.
func dialSend(t *testing.T, addr, req string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// TestGracefulShutdown: shutdown stops accepting, closes an idle keep-alive
// connection at once, lets the request in flight finish (its response says
// Connection: close) and returns when it has.
func TestGracefulShutdown(t *testing.T) {
	s, err := start("127.0.0.1:0", 1, slowHandler(), cohttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, idle := dialSend(t, s.addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err := http.ReadResponse(idle, nil); err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("first request: %v %v", resp, err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	_, busy := dialSend(t, s.addr, "GET /slow?ms=300 HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(50 * time.Millisecond) // the slow request is in flight
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- s.shutdown(5 * time.Second) }()

	if _, err := idle.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: %v, want EOF", err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("idle connection closed after %v", d)
	}
	resp, err := http.ReadResponse(busy, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "slept" || !resp.Close {
		t.Errorf("request in flight: %d %q Close=%v", resp.StatusCode, body, resp.Close)
	}
	if _, err := busy.ReadByte(); err != io.EOF {
		t.Errorf("busy connection after its response: %v, want EOF", err)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 3*time.Second {
		t.Errorf("shutdown took %v; the request in flight needed 250 ms more", d)
	}
	if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		c.Close()
		t.Error("a connection was accepted after shutdown")
	}
}

// TestShutdownDeadline: a request that outlasts the shutdown's limit is
// ended at the limit: its wait is canceled, and the connection closes
// (after a response saying Connection: close, if the handler still writes
// one).
func TestShutdownDeadline(t *testing.T) {
	s, err := start("127.0.0.1:0", 1, slowHandler(), cohttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, busy := dialSend(t, s.addr, "GET /slow?ms=5000 HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	s.shutdown(200 * time.Millisecond)
	if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
		t.Errorf("shutdown took %v with a limit of 200 ms", d)
	}
	if resp, err := http.ReadResponse(busy, nil); err == nil {
		io.Copy(io.Discard, resp.Body)
		if !resp.Close {
			t.Errorf("response after the deadline keeps the connection")
		}
	}
	if _, err := busy.ReadByte(); err != io.EOF {
		t.Errorf("connection ended: %v, want EOF", err)
	}
}

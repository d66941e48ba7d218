//go:build linux

package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// slowHandler answers /slow?ms=N after sleeping N ms on the env's loop. It
// counts the slow requests it has started and finished, so that a test
// waits for a request to be in flight instead of guessing how long that
// takes.
type slowHandler struct {
	http.Handler
	started, finished atomic.Int32
}

func newSlowHandler() *slowHandler {
	h := &slowHandler{}
	mux := http.NewServeMux()
	mux.Handle("/", helloMux())
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		h.started.Add(1)
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		stackful.Self().Sleep(time.Duration(ms) * time.Millisecond)
		h.finished.Add(1)
		io.WriteString(w, "slept")
	})
	h.Handler = mux
	return h
}

// awaitStarted waits until a slow request is in the handler.
func (h *slowHandler) awaitStarted(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for h.started.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow request never reached the handler")
		}
		time.Sleep(time.Millisecond)
	}
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
	h := newSlowHandler()
	s, err := start("127.0.0.1:0", 1, h, cohttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, idle := dialSend(t, s.addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err := http.ReadResponse(idle, nil); err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("first request: %v %v", resp, err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	_, busy := dialSend(t, s.addr, "GET /slow?ms=500 HTTP/1.1\r\nHost: x\r\n\r\n")
	h.awaitStarted(t)
	done := make(chan error, 1)
	go func() { done <- s.shutdown(5 * time.Second) }()

	if _, err := idle.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: %v, want EOF", err)
	}
	if h.finished.Load() != 0 {
		t.Errorf("the idle connection was closed only after the request in flight finished")
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
	if err := <-done; err != nil { // not the 5 s limit: the request in flight ended first
		t.Error(err)
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
	h := newSlowHandler()
	s, err := start("127.0.0.1:0", 1, h, cohttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, busy := dialSend(t, s.addr, "GET /slow?ms=5000 HTTP/1.1\r\nHost: x\r\n\r\n")
	h.awaitStarted(t)
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

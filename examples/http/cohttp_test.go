//go:build linux

package main

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
)

// TestCohttpServers: the example's cohttp servers, on groups of two loops,
// answer its routes with keep-alive and shut down cleanly.
func TestCohttpServers(t *testing.T) {
	for _, kind := range []string{"cohttp-stackful", "cohttp-stackless"} {
		t.Run(kind, func(t *testing.T) {
			s, err := startCohttp("127.0.0.1:0", 2, kind, cohttp.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			tr := &http.Transport{}
			client := &http.Client{Timeout: 10 * time.Second, Transport: tr}
			for _, c := range []struct {
				method, path string
				status       int
				body         string
			}{
				{"GET", "/", 200, "Hello, World!\n"},
				{"GET", "/hello/coroutine", 200, "Hello, coroutine!\n"},
				{"GET", "/missing", 404, "404 page not found\n"},
				{"POST", "/", 405, ""},
				{"HEAD", "/", 200, ""},
				{"GET", "/sleep/1ms", 200, "Slept 1ms\n"},
				{"GET", "/sleep/1h", 400, "the duration must be like 10ms, at most 10s\n"},
			} {
				req, _ := http.NewRequest(c.method, "http://"+s.addr+c.path, nil)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.status || string(body) != c.body {
					t.Errorf("%s %s: %d %q", c.method, c.path, resp.StatusCode, body)
				}
			}
			tr.CloseIdleConnections()
			if err := s.shutdown(5 * time.Second); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCohttpGroupShutdown: the group's shutdown drains each loop's server:
// an idle connection closes at once, a request whose body is still coming
// is answered (Connection: close) when it completes, and the shutdown
// returns then.
func TestCohttpGroupShutdown(t *testing.T) {
	for _, kind := range []string{"cohttp-stackful", "cohttp-stackless"} {
		t.Run(kind, func(t *testing.T) {
			s, err := startCohttp("127.0.0.1:0", 1, kind, cohttp.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			_, idle := dialSend(t, s.addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp, err := http.ReadResponse(idle, nil); err != nil {
				t.Fatal(err)
			} else {
				io.Copy(io.Discard, resp.Body)
			}
			busy, busyR := dialSend(t, s.addr, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab")
			time.Sleep(50 * time.Millisecond)
			done := make(chan error, 1)
			go func() { done <- s.shutdown(5 * time.Second) }()
			if _, err := idle.ReadByte(); err != io.EOF {
				t.Errorf("idle connection: %v, want EOF", err)
			}
			io.WriteString(busy, "cd")
			resp, err := http.ReadResponse(busyR, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != 200 || !resp.Close {
				t.Errorf("request in flight: %d, Close=%v", resp.StatusCode, resp.Close)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Error(err)
				}
			case <-time.After(4 * time.Second):
				t.Fatal("shutdown did not return after the last request")
			}
		})
	}
}

//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/httpdiff"
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

// TestCohttpTargetsAsServeMux: the cohttp servers' routes answer targets
// without a path as the example's ServeMux on net/http's server does: an
// absolute-form target with an empty path (GET http://a) and an
// authority-form one (GET a:80, which url.ParseRequestURI takes as
// opaque) are redirected (307) to "/", with the query, the connection kept.
// Before, both were 404.
func TestCohttpTargetsAsServeMux(t *testing.T) {
	oracle := httpdiff.Oracle(t, helloMux())
	reqs := []string{
		"GET http://a HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET http://a?q=1 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET a:80 HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD http://a HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST http://a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"GET http://a HTTP/1.1\r\n\r\n", // no Host: 400 from the server
	}
	var cases []httpdiff.Case
	for i, req := range reqs {
		c := httpdiff.Case{Name: fmt.Sprintf("target-%d", i), Send: []string{req + "GET / HTTP/1.1\r\nHost: x\r\n\r\n"}}
		if strings.HasPrefix(req, "HEAD") {
			c.Methods = []string{"HEAD", "GET"}
		}
		cases = append(cases, c)
	}
	for _, kind := range []string{"cohttp-stackful", "cohttp-stackless"} {
		t.Run(kind, func(t *testing.T) {
			s, err := startCohttp("127.0.0.1:0", 1, kind, cohttp.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.stop()
			httpdiff.Run(t, oracle, s.addr, cases, nil)
			for _, req := range reqs[:3] {
				want, got := location(t, oracle, req), location(t, s.addr, req)
				if got != want {
					t.Errorf("%q: Location %q, net/http's ServeMux %q", req, got, want)
				}
			}
		})
	}
}

// location returns the Location header of the answer to req at addr.
func location(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, req)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	return resp.Header.Get("Location")
}

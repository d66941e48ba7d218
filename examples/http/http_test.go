//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cogen-go/cogen/cohttp"
)

// testHandler is the example's mux plus routes exercising the response
// writer, with an unmodified http.FileServer.
func testHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", helloMux())
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		// As net/http's documentation asks: the body first, then the
		// response (whose header makes the server discard what is left).
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	})
	mux.HandleFunc("GET /panic", func(w http.ResponseWriter, r *http.Request) { panic("handler panic") })
	mux.HandleFunc("GET /close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "bye")
	})
	files := fstest.MapFS{"big.txt": {Data: bytes.Repeat([]byte("0123456789"), 1000), ModTime: time.Unix(1e9, 0)}}
	mux.Handle("GET /files/", http.StripPrefix("/files", http.FileServer(http.FS(files))))
	return mux
}

func TestServer(t *testing.T) {
	g0 := runtime.NumGoroutine()
	s, err := start("127.0.0.1:0", 2, testHandler(), cohttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + s.addr
	tr := &http.Transport{}
	client := &http.Client{Timeout: 10 * time.Second, Transport: tr}

	get := func(path string, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}

	t.Run("hello", func(t *testing.T) {
		resp, body := get("/")
		if resp.StatusCode != 200 || body != "Hello, World!\n" || resp.ContentLength != 14 {
			t.Errorf("%d %q, length %d", resp.StatusCode, body, resp.ContentLength)
		}
		if resp.Header.Get("Date") == "" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("headers %v", resp.Header)
		}
		if _, body := get("/hello/coroutine"); body != "Hello, coroutine!\n" {
			t.Errorf("path value: %q", body)
		}
		if resp, _ := get("/missing"); resp.StatusCode != 404 {
			t.Errorf("missing page: %d", resp.StatusCode)
		}
	})
	t.Run("keepalive", func(t *testing.T) {
		reused := 0
		for range 5 {
			trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
				if i.Reused {
					reused++
				}
			}}
			req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", base+"/", nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if reused < 4 {
			t.Errorf("%d of 5 requests reused a connection", reused)
		}
	})
	t.Run("echo-chunked", func(t *testing.T) {
		payload := bytes.Repeat([]byte("coroutine "), 10000) // 100 KB: more than the buffer
		resp, err := client.Post(base+"/echo", "application/octet-stream", bytes.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if !bytes.Equal(b, payload) {
			t.Errorf("echoed %d bytes, want %d", len(b), len(payload))
		}
		if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Errorf("transfer encoding %v", resp.TransferEncoding)
		}
	})
	t.Run("head", func(t *testing.T) {
		resp, err := client.Head(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength != 14 {
			t.Errorf("HEAD: %d, %d body bytes, length %d", resp.StatusCode, len(b), resp.ContentLength)
		}
	})
	t.Run("fileserver-range", func(t *testing.T) {
		resp, body := get("/files/big.txt", "Range", "bytes=5-14")
		if resp.StatusCode != 206 || body != "5678901234" {
			t.Errorf("range: %d %q", resp.StatusCode, body)
		}
		resp, _ = get("/files/big.txt", "If-Modified-Since", time.Unix(2e9, 0).UTC().Format(http.TimeFormat))
		if resp.StatusCode != 304 {
			t.Errorf("conditional: %d", resp.StatusCode)
		}
	})
	t.Run("close-and-panic", func(t *testing.T) {
		resp, body := get("/close")
		if body != "bye" || !resp.Close {
			t.Errorf("close: %q, Close=%v", body, resp.Close)
		}
		resp, _ = get("/panic")
		if resp.StatusCode != 500 {
			t.Errorf("panic: %d", resp.StatusCode)
		}
	})
	t.Run("http10-and-bad-request", func(t *testing.T) {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET / HTTP/1.0\r\nHost: x\r\n\r\n")
		all, _ := io.ReadAll(c) // HTTP/1.0 without keep-alive: the server closes
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || !resp.Close {
			t.Errorf("HTTP/1.0: %d, Close=%v", resp.StatusCode, resp.Close)
		}
		c2, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		c2.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c2, "NONSENSE\r\n\r\n")
		line, _ := bufio.NewReader(c2).ReadString('\n')
		if !strings.HasPrefix(line, "HTTP/1.1 400") {
			t.Errorf("bad request answered %q", line)
		}
	})
	tr.CloseIdleConnections()
	s.stop()
	for i := 0; i < 200 && runtime.NumGoroutine() > g0; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > g0 {
		t.Errorf("%d goroutines after stop, %d before", n, g0)
	}
}

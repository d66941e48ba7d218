//go:build unix

package hello

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServe: two keep-alive requests get two well-formed responses, the
// second asking to close ends the loop, and what follows is not read.
func TestServe(t *testing.T) {
	in := strings.NewReader("GET / HTTP/1.1\r\nHost: x\r\n\r\n" +
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc" +
		"GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
	var out bytes.Buffer
	if err := Serve(in, &out); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(&out)
	for i := range 2 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != Body || resp.Header.Get("Date") == "" ||
			resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Fatalf("response %d: %d %q %v", i, resp.StatusCode, body, resp.Header)
		}
	}
	if rest, _ := io.ReadAll(br); len(rest) != 0 {
		t.Fatalf("answered past Connection: close: %q", rest)
	}
}

// TestServeBadRequest: a malformed request is answered 400 as net/http
// answers it, after the responses to the valid requests before it.
func TestServeBadRequest(t *testing.T) {
	var out bytes.Buffer
	err := Serve(strings.NewReader("GET / HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP\r\n\r\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(&out)
	for i, want := range []int{200, 400} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != want || (want == 400) != resp.Close {
			t.Fatalf("response %d: %d, Close=%v", i, resp.StatusCode, resp.Close)
		}
	}
}

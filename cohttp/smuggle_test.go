//go:build unix

package cohttp_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/cohttp"
)

// TestContentLengthAndChunked: a request with both Content-Length and
// Transfer-Encoding: chunked is answered as chunked (the body decoded),
// says Connection: close, and the connection closes after the answer: the
// pipelined request after it is not answered (RFC 9112 section 6.1; net/http
// keeps the connection open, a documented difference: serverDiffers). The
// same holds with the headers in the other order and with an HTTP/1.0
// request (whose Transfer-Encoding net/http ignores).
func TestContentLengthAndChunked(t *testing.T) {
	reqs := map[string]string{
		"cl-first": "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"te-first": "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 30\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	}
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			addr := start(t, model, testHandler, Limits{})
			for name, req := range reqs {
				c, r := dialSend(t, addr, req+"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 || string(body) != "hello" || !resp.Close {
					t.Errorf("%s: %d %q Close=%v, want 200 \"hello\" Close=true", name, resp.StatusCode, body, resp.Close)
				}
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				if rest, err := io.ReadAll(r); err != nil || len(rest) > 0 {
					t.Errorf("%s: after the answer: %q, %v; want the connection closed", name, rest, err)
				}
				c.Close()
			}
			c, r := dialSend(t, addr, "POST /echo HTTP/1.0\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\nhi")
			defer c.Close()
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("HTTP/1.0: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != "hi" || !resp.Close {
				t.Errorf("HTTP/1.0: %d %q Close=%v, want 200 \"hi\" Close=true", resp.StatusCode, body, resp.Close)
			}
		})
	}
}

package cohttp

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNormalize(t *testing.T) {
	got := Limits{ReadHeaderTimeout: -5, MaxConns: 7, MaxBodyBytes: -2, WriteTimeout: -3, BodyBudget: -4}.Normalize()
	want := Limits{MaxHeaderBytes: DefaultMaxHeaderBytes, ReadHeaderTimeout: -1, IdleTimeout: DefaultIdleTimeout, ReadTimeout: DefaultReadTimeout,
		WriteTimeout: -1, MaxBodyBytes: -1, BodyBudget: -1, MaxConns: 7, SlowHandler: DefaultSlowHandler}
	if got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
}

// TestErrorResponse: the answers are net/http's, byte for byte.
func TestErrorResponse(t *testing.T) {
	for e, want := range map[*Error]string{
		errTooLarge:      "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large",
		errMissingHost:   "HTTP/1.1 400 Bad Request: missing required Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: missing required Host header",
		errUnsupportedTE: "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nUnsupported transfer encoding",
	} {
		if got := string(e.Response()); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// deadlineReader records the deadlines set on it.
type deadlineReader struct {
	io.Reader
	set []time.Time
}

func (d *deadlineReader) SetReadDeadline(t time.Time) error { d.set = append(d.set, t); return nil }

// TestRequestReader: requests in order, then the errors net/http's server
// answers, each as an *Error; a clean end is io.EOF; deadlines are set.
func TestRequestReader(t *testing.T) {
	for _, c := range []struct {
		in     string
		status int // of the error after the first request; 0: io.EOF
	}{
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/2.5\r\nHost: x\r\n\r\n", 505},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nA: " + strings.Repeat("a", 6000) + "\r\n\r\n", 431},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nPOST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: br\r\n\r\n", 501},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nA B: c\r\n\r\n", 400},
	} {
		src := &deadlineReader{Reader: strings.NewReader(c.in)}
		rr := NewRequestReader(src, Limits{MaxHeaderBytes: 100})
		req, err := rr.Next()
		if err != nil || req.Method != http.MethodGet || req.Host != "x" {
			t.Fatalf("%q: first request %v %v", c.in, req, err)
		}
		_, err = rr.Next()
		var e *Error
		switch {
		case c.status == 0 && err != io.EOF:
			t.Errorf("%q: %v, want EOF", c.in, err)
		case c.status != 0 && (!errors.As(err, &e) || e.Status != c.status):
			t.Errorf("%q: %v, want %d", c.in, err, c.status)
		}
		if len(src.set) < 3 {
			t.Errorf("%q: %d deadlines set", c.in, len(src.set))
		}
	}
}

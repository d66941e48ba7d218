//go:build unix

// Package hello is the HTTP/1.1 hello server loop that the HTTP benchmarks
// and the net adapters' stress test share: blocking-style code that runs
// unchanged on any io.Reader and io.Writer, a coroutine connection included.
package hello

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cogen-go/cogen/cohttp"
)

// Body is what every hello server answers.
const Body = "Hello, World!"

// maxDiscard is how much of a request body the server reads to keep the
// connection open: net/http's server reads that much of what a handler left.
const maxDiscard = 256 << 10

// Serve is ServeLimits with the default limits.
func Serve(r io.Reader, w io.Writer) error { return ServeLimits(r, w, cohttp.Limits{}) }

// ServeLimits answers HTTP/1.1 requests read from r with a hello response
// written to w in one call, carrying the headers net/http sends
// (Content-Length, Content-Type, Date), until end of file: what net/http's
// server does with a handler that writes Body and ignores the request.
// Requests are read by a cohttp.RequestReader with lim (timeouts apply when
// r has SetReadDeadline, the write timeout when w has SetWriteDeadline); a
// request it refuses is answered with its error response. A body is read and discarded up to 256 KiB; a longer one, an
// Expect: 100-continue (never asked for, since the body is not needed) or a
// request asking to close ends the connection after the response.
// ServeLimits returns nil at end of file, after a refused request and
// after a response that closes; other errors of r and w.
func ServeLimits(r io.Reader, w io.Writer, lim cohttp.Limits) error {
	rr := cohttp.NewRequestReader(r, lim)
	lim = rr.Limits()
	wd, _ := w.(interface{ SetWriteDeadline(time.Time) error })
	resp := make([]byte, 0, 256)
	for {
		req, err := rr.Next()
		if err != nil {
			var e *cohttp.Error
			if errors.As(err, &e) {
				_, err = w.Write(e.Response())
				if err == nil && e.Status == http.StatusRequestHeaderFieldsTooLarge {
					cohttp.CloseWriteAndWait(r)
				}
				return err
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		keep, tooBig := !req.Close, false
		switch v := req.Header.Get("Expect"); {
		case v == "":
		case !strings.Contains(strings.ToLower(v), "100-continue"):
			_, err := w.Write(append(resp[:0], "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"...))
			return err
		case req.ProtoAtLeast(1, 1) && req.ContentLength != 0:
			keep = false // the body is not wanted: close rather than ask for it
		}
		if keep && req.ContentLength != 0 {
			n, err := io.CopyN(io.Discard, req.Body, maxDiscard+1)
			if err == nil || !errors.Is(err, io.EOF) || n > maxDiscard {
				keep, tooBig = false, err == nil
			}
		}
		resp = append(resp[:0], "HTTP/1.1 200 OK\r\n"...)
		if !keep {
			resp = append(resp, "Connection: close\r\n"...)
		} else if !req.ProtoAtLeast(1, 1) {
			resp = append(resp, "Connection: keep-alive\r\n"...)
		}
		resp = append(resp, "Content-Length: "...)
		resp = strconv.AppendInt(resp, int64(len(Body)), 10)
		resp = append(resp, "\r\nContent-Type: text/plain; charset=utf-8\r\nDate: "...)
		now := time.Now()
		resp = now.UTC().AppendFormat(resp, http.TimeFormat)
		resp = append(resp, "\r\n\r\n"...)
		if req.Method != http.MethodHead {
			resp = append(resp, Body...)
		}
		if wd != nil && lim.WriteTimeout >= 0 {
			wd.SetWriteDeadline(now.Add(lim.WriteTimeout))
		}
		if _, err := w.Write(resp); err != nil {
			return err
		}
		if !keep {
			if tooBig {
				cohttp.CloseWriteAndWait(r)
			}
			return nil
		}
	}
}

// Handler is the hello server for cohttp's servers: the response the other
// hello servers write, built by the server from a handler that sets the
// content type and writes Body.
func Handler(w *cohttp.ResponseWriter, r *cohttp.Request) {
	w.AddHeader("Content-Type", "text/plain; charset=utf-8")
	w.WriteString(Body)
}

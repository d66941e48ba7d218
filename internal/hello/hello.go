// Package hello is the HTTP/1.1 hello server loop that the HTTP benchmarks
// and the net adapters' stress test share: blocking-style code that runs
// unchanged on any io.Reader and io.Writer, a coroutine connection included.
package hello

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Body is what every hello server answers.
const Body = "Hello, World!"

// Serve answers HTTP/1.1 requests read from r until end of file: requests
// are parsed by http.ReadRequest; each response, written to w in one call,
// carries the headers net/http sends (Content-Length, Content-Type, Date).
// It returns nil at end of file or after a request asking to close.
func Serve(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 4096)
	resp := make([]byte, 0, 256)
	for {
		req, err := http.ReadRequest(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return err
		}
		resp = append(resp[:0], "HTTP/1.1 200 OK\r\nContent-Length: "...)
		resp = strconv.AppendInt(resp, int64(len(Body)), 10)
		resp = append(resp, "\r\nContent-Type: text/plain; charset=utf-8\r\nDate: "...)
		resp = time.Now().UTC().AppendFormat(resp, http.TimeFormat)
		resp = append(resp, "\r\n\r\n"+Body...)
		if _, err := w.Write(resp); err != nil {
			return err
		}
		if req.Close {
			return nil
		}
	}
}

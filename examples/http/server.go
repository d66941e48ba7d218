//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// serveConn serves HTTP/1.1 on one connection in the coroutine co: it reads
// requests with http.ReadRequest and answers each with h, keeping the
// connection alive as HTTP/1.1 says, until the peer closes it or asks to.
// Responses are buffered: those that fit (4 KiB) get a Content-Length,
// longer ones are sent chunked.
func serveConn(co *stackful.Co, c net.Conn, h http.Handler) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 4<<10)
	bw := bufio.NewWriterSize(c, 4<<10)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isReset(err) {
				io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			}
			return
		}
		req.RemoteAddr = c.RemoteAddr().String()
		w := &responseWriter{req: req, bw: bw, header: make(http.Header)}
		w.keepAlive = keepAlive(req)
		if !serve(w, h) {
			return
		}
		if err := w.finish(); err != nil {
			return
		}
		// Drain what the handler left of the body, within reason.
		if n, _ := io.CopyN(io.Discard, req.Body, 256<<10); n == 256<<10 {
			w.keepAlive = false
		}
		req.Body.Close()
		if br.Buffered() == 0 || !w.keepAlive { // answer pipelined requests in one write
			if bw.Flush() != nil {
				return
			}
		}
		if !w.keepAlive {
			return
		}
	}
}

// serve calls the handler, turning a panic into a 500 as net/http does
// (http.ErrAbortHandler ends the connection silently).
func serve(w *responseWriter, h http.Handler) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ok = false
			if p != http.ErrAbortHandler && !w.wroteHeader {
				w.keepAlive = false
				w.buf.Reset()
				w.header = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
				w.WriteHeader(http.StatusInternalServerError)
				w.finish()
				w.bw.Flush()
			}
		}
	}()
	h.ServeHTTP(w, w.req)
	return true
}

func isReset(err error) bool { return strings.Contains(err.Error(), "connection reset") }

// keepAlive reports whether the request lets the connection stay open.
func keepAlive(r *http.Request) bool {
	if r.Close {
		return false
	}
	if r.ProtoAtLeast(1, 1) {
		return true
	}
	return strings.EqualFold(r.Header.Get("Connection"), "keep-alive")
}

const bufferLimit = 4 << 10

// responseWriter is the http.ResponseWriter of serveConn.
type responseWriter struct {
	req         *http.Request
	bw          *bufio.Writer
	header      http.Header
	status      int
	wroteHeader bool // the handler called WriteHeader or Write
	sentHeader  bool // the header is on the wire (chunked mode)
	chunked     bool
	keepAlive   bool
	buf         bytes.Buffer
	written     int64
	err         error
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	w.wroteHeader = true
	w.status = code
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.err != nil {
		return 0, w.err
	}
	w.written += int64(len(p))
	if !w.chunked && w.buf.Len()+len(p) <= bufferLimit {
		w.buf.Write(p)
		return len(p), nil
	}
	if !w.chunked {
		w.startChunked()
	}
	w.writeChunk(p)
	return len(p), w.err
}

// Flush implements http.Flusher: what has been written goes out now, in
// chunked mode unless the response is complete.
func (w *responseWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if !w.chunked && bodyAllowed(w.status) && w.req.Method != http.MethodHead {
		w.startChunked()
	}
	w.bw.Flush()
}

func (w *responseWriter) startChunked() {
	w.chunked = true
	if w.req.ProtoAtLeast(1, 1) {
		w.header.Del("Content-Length")
		w.header.Set("Transfer-Encoding", "chunked")
	} else {
		w.keepAlive = false // HTTP/1.0: the end of the body is the end of the connection
	}
	w.writeHeader()
	if w.buf.Len() > 0 {
		b := w.buf.Bytes()
		w.buf.Reset()
		w.writeChunk(b)
	}
}

func (w *responseWriter) writeChunk(p []byte) {
	if len(p) == 0 || w.err != nil || w.req.Method == http.MethodHead {
		return
	}
	if w.req.ProtoAtLeast(1, 1) {
		fmt.Fprintf(w.bw, "%x\r\n", len(p))
		w.bw.Write(p)
		_, w.err = w.bw.WriteString("\r\n")
	} else {
		_, w.err = w.bw.Write(p)
	}
}

// finish completes the response after the handler returned.
func (w *responseWriter) finish() error {
	w.WriteHeader(http.StatusOK)
	if w.chunked {
		if w.req.ProtoAtLeast(1, 1) && w.req.Method != http.MethodHead {
			w.bw.WriteString("0\r\n\r\n")
		}
		return w.err
	}
	if bodyAllowed(w.status) {
		if _, set := w.header["Content-Length"]; !set {
			w.header.Set("Content-Length", strconv.Itoa(w.buf.Len()))
		}
	}
	w.writeHeader()
	if w.req.Method != http.MethodHead {
		w.bw.Write(w.buf.Bytes())
	}
	w.buf.Reset()
	return w.err
}

func (w *responseWriter) writeHeader() {
	if w.sentHeader {
		return
	}
	w.sentHeader = true
	h := w.header
	if bodyAllowed(w.status) && h.Get("Content-Type") == "" && w.buf.Len() > 0 {
		h.Set("Content-Type", http.DetectContentType(w.buf.Bytes()))
	}
	if h.Get("Date") == "" {
		h.Set("Date", httpDate())
	}
	if strings.EqualFold(h.Get("Connection"), "close") {
		w.keepAlive = false
	}
	if !w.keepAlive {
		h.Set("Connection", "close")
	} else if !w.req.ProtoAtLeast(1, 1) {
		h.Set("Connection", "keep-alive")
	}
	bw := w.bw
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(strconv.Itoa(w.status))
	bw.WriteByte(' ')
	bw.WriteString(http.StatusText(w.status))
	bw.WriteString("\r\n")
	h.Write(bw)
	_, w.err = bw.WriteString("\r\n")
}

func bodyAllowed(status int) bool {
	return !(status >= 100 && status < 200) && status != http.StatusNoContent && status != http.StatusNotModified
}

// httpDate is the Date header, formatted once per second.
func httpDate() string {
	now := time.Now().Unix()
	if d := cachedDate.Load(); d != nil && d.sec == now {
		return d.s
	}
	d := &dateCache{sec: now, s: time.Unix(now, 0).UTC().Format(http.TimeFormat)}
	cachedDate.Store(d)
	return d.s
}

type dateCache struct {
	sec int64
	s   string
}

var cachedDate atomic.Pointer[dateCache]

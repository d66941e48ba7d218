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

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// maxPostHandlerReadBytes is how much of a body the handler left unread the
// server reads to keep the connection, as net/http's server does.
const maxPostHandlerReadBytes = 256 << 10

// A connState is a connection of an envServer: the shutdown closes it if it
// is idle, between requests.
type connState struct {
	c  net.Conn
	rr *cohttp.RequestReader
}

// serveConn serves HTTP/1.1 on one connection in the coroutine co, with the
// semantics of net/http's server: requests read by cohttp.RequestReader
// (http.ReadRequest plus net/http's limits and checks), each answered by h,
// the connection kept alive as HTTP/1.1 says, until the peer closes it,
// asks to, errs, or the env drains. Responses are buffered: those that fit
// (4 KiB) get a Content-Length, longer ones are sent chunked; what is
// buffered goes out before the server waits to read.
func serveConn(co *stackful.Co, c net.Conn, h http.Handler, es *envServer) {
	defer c.Close()
	bw := bufio.NewWriterSize(timedWriter{c, es.lim.WriteTimeout}, 4<<10)
	rr := cohttp.NewRequestReader(flushingReader{c, bw}, es.lim)
	st := &connState{c: c, rr: rr}
	es.conns[st] = struct{}{}
	defer delete(es.conns, st)
	for !es.draining || rr.Buffered() > 0 {
		req, err := rr.Next()
		if err != nil {
			var e *cohttp.Error
			if errors.As(err, &e) {
				bw.Write(e.Response())
				if bw.Flush() == nil && e.Status == http.StatusRequestHeaderFieldsTooLarge {
					cohttp.CloseWriteAndWait(c)
				}
			}
			return
		}
		req.RemoteAddr = c.RemoteAddr().String()
		w := &responseWriter{req: req, bw: bw, header: make(http.Header), es: es}
		w.keepAlive = keepAlive(req) && !es.draining
		w.track = &trackedBody{rc: req.Body}
		req.Body = w.track
		if v := req.Header.Get("Expect"); v != "" {
			if !strings.Contains(strings.ToLower(v), "100-continue") {
				w.keepAlive = false
				w.header.Set("Connection", "close")
				w.WriteHeader(http.StatusExpectationFailed)
				w.finish()
				bw.Flush()
				return
			}
			if req.ProtoAtLeast(1, 1) && req.ContentLength != 0 {
				w.cont = &continueReader{body: req.Body, bw: bw}
				req.Body = w.cont
			}
		}
		if n := rr.Limits().MaxBodyBytes; n >= 0 {
			w.max = &maxBodyReader{ReadCloser: req.Body, remain: n, limit: n}
			req.Body = w.max
		}
		handler := h
		if req.RequestURI == "*" && req.Method == http.MethodOptions {
			handler = http.HandlerFunc(globalOptions)
		}
		if !serve(w, handler) {
			return
		}
		if err := w.finish(); err != nil {
			return
		}
		if !w.keepAlive {
			if bw.Flush() == nil && w.tooBig {
				cohttp.CloseWriteAndWait(c)
			}
			return
		}
	}
	bw.Flush()
}

// timedWriter writes to the connection within the write timeout d (<0:
// none) per write: a client that stops reading its answers is cut off
// after it.
type timedWriter struct {
	net.Conn
	d time.Duration
}

func (w timedWriter) Write(p []byte) (int, error) {
	if w.d >= 0 {
		w.SetWriteDeadline(time.Now().Add(w.d))
	}
	return w.Conn.Write(p)
}

// flushingReader is the connection as the request reader sees it: the
// responses buffered so far go out before a read, so a client is never kept
// waiting for an answer while the server waits for it. A batch of
// pipelined requests is answered in one write.
type flushingReader struct {
	net.Conn
	bw *bufio.Writer
}

func (f flushingReader) Read(p []byte) (int, error) {
	if f.bw.Buffered() > 0 {
		if err := f.bw.Flush(); err != nil {
			return 0, err
		}
	}
	return f.Conn.Read(p)
}

// continueReader answers Expect: 100-continue on the handler's first read
// of the body, as net/http does.
type continueReader struct {
	body   io.ReadCloser
	bw     *bufio.Writer
	sent   bool
	sawEOF bool
}

func (r *continueReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		r.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
		if err := r.bw.Flush(); err != nil {
			return 0, err
		}
	}
	n, err := r.body.Read(p)
	if err == io.EOF {
		r.sawEOF = true
	}
	return n, err
}

func (r *continueReader) Close() error { return r.body.Close() }

// maxBodyReader is http.MaxBytesReader for this server: reading past the
// limit fails with *http.MaxBytesError.
type maxBodyReader struct {
	io.ReadCloser
	remain, limit int64
}

func (r *maxBodyReader) Read(p []byte) (int, error) {
	if r.remain < 0 {
		return 0, &http.MaxBytesError{Limit: r.limit}
	}
	if int64(len(p)) > r.remain+1 {
		p = p[:r.remain+1]
	}
	n, err := r.ReadCloser.Read(p)
	if int64(n) > r.remain {
		n = int(r.remain)
		r.remain = -1
		return n, &http.MaxBytesError{Limit: r.limit}
	}
	r.remain -= int64(n)
	return n, err
}

// serve calls the handler, turning a panic into a 500 as net/http does
// (http.ErrAbortHandler ends the connection silently).
func serve(w *responseWriter, h http.Handler) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if stackful.Unwinding(p) {
				panic(p)
			}
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

// keepAlive reports whether the request lets the connection stay open.
// (http.ReadRequest's Close is net/http's shouldClose: an HTTP/1.0 request
// without a keep-alive token, or any request with a close token.)
func keepAlive(r *http.Request) bool { return !r.Close }

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
	es          *envServer
	tooBig      bool            // the handler left more than maxPostHandlerReadBytes of body unread
	silentClose bool            // the connection closes after the response without saying so, as net/http does when the body cannot be finished
	track       *trackedBody    // the request body under the wrappers
	cont        *continueReader // the body's 100-continue wrapper, if any
	max         *maxBodyReader
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
	if w.es.draining {
		w.keepAlive = false
	}
	w.discardBody()
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
	if !w.keepAlive && !w.silentClose {
		h.Set("Connection", "close")
	} else if w.keepAlive && !w.req.ProtoAtLeast(1, 1) {
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

// discardBody reads what the handler left of the request body before the
// response goes out, as net/http does: up to maxPostHandlerReadBytes, to
// keep the connection; beyond that, or when the body is broken, over its
// limit, or still waiting for a 100 Continue, the response closes the
// connection.
func (w *responseWriter) discardBody() {
	if w.req.ContentLength == 0 || !w.keepAlive {
		return
	}
	switch {
	case w.max != nil && w.max.remain < 0: // as net/http's requestTooLarge
		w.keepAlive, w.tooBig = false, true
		return
	case w.cont != nil && !w.cont.sawEOF, errors.Is(w.track.err, io.ErrUnexpectedEOF):
		// As observed of net/http: a body never asked for, or cut short by
		// the client, closes the connection without a Connection header.
		w.keepAlive, w.silentClose = false, true
		return
	case w.track.err != nil, w.track.early, w.track.closed && !w.track.sawEOF:
		w.keepAlive = false
		return
	case w.track.closed:
		return
	}
	_, err := io.CopyN(io.Discard, w.track, maxPostHandlerReadBytes+1)
	switch {
	case err == nil:
		w.tooBig = true
		w.keepAlive = false
	case errors.Is(err, io.EOF):
	case errors.Is(err, io.ErrUnexpectedEOF):
		w.keepAlive, w.silentClose = false, true
	default:
		w.keepAlive = false
	}
}

// trackedBody is the request body as the server sees it: whether it was
// read to its end, whether it broke (a malformed chunk or trailer), and
// whether the handler closed it early — what decides, as in net/http,
// whether the connection can be kept.
type trackedBody struct {
	rc     io.ReadCloser
	sawEOF bool
	err    error // the first error other than io.EOF
	closed bool
	early  bool // closed with more than maxPostHandlerReadBytes unread
}

func (b *trackedBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.sawEOF = true
	case err != nil && b.err == nil:
		b.err = err
	}
	return n, err
}

// Close is net/http's early close of a server request body: the rest is
// read up to maxPostHandlerReadBytes; if more is left, the connection will
// close. (The underlying body's Close would read all of it.)
func (b *trackedBody) Close() error {
	if b.closed {
		return nil
	}
	if !b.sawEOF && b.err == nil {
		n, _ := io.CopyN(io.Discard, struct{ io.Reader }{b}, maxPostHandlerReadBytes)
		b.early = n == maxPostHandlerReadBytes
	}
	b.closed = true
	return nil
}

// globalOptions answers "OPTIONS *" as net/http's server does: an empty 200,
// having read at most 4 KiB of a body.
func globalOptions(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "0")
	if r.ContentLength != 0 {
		mb := http.MaxBytesReader(w, r.Body, 4<<10)
		io.Copy(io.Discard, mb)
	}
}

//go:build unix

package cohttp

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// A Handler answers one request of a [Server] by filling w. It runs inside
// the connection's coroutine or task and must not wait: it is called once
// the whole request, body included, has been read. r and w, and the byte
// slices they return, are valid only during the call.
type Handler func(w *ResponseWriter, r *Request)

// A Request is a request as the server read it: slices of the connection's
// buffer, valid during the handler's call.
type Request struct {
	c *conn
}

// Method returns the request method.
func (r *Request) Method() []byte { return r.c.bytes(r.c.h.method) }

// URI returns the request target as sent (an origin-form path and query,
// usually).
func (r *Request) URI() []byte { return r.c.bytes(r.c.h.uri) }

// Path returns the request target up to its query.
func (r *Request) Path() []byte {
	u := r.URI()
	for i, c := range u {
		if c == '?' {
			return u[:i]
		}
	}
	return u
}

// Proto returns the protocol version, such as "HTTP/1.1".
func (r *Request) Proto() []byte { return r.c.bytes(r.c.h.proto) }

// ProtoAtLeast reports whether the request's version is at least
// major.minor.
func (r *Request) ProtoAtLeast(major, minor int) bool {
	return r.c.h.major > major || r.c.h.major == major && r.c.h.minor >= minor
}

// Header returns the value of the first header field named name (ignoring
// case), trimmed, with folded lines joined by a space; nil if there is
// none.
func (r *Request) Header(name string) []byte {
	for _, f := range r.c.h.fields {
		if equalFold(r.c.bytes(f.name), name) {
			return r.c.bytes(f.value)
		}
	}
	return nil
}

// VisitHeaders calls fn for every header field in order.
func (r *Request) VisitHeaders(fn func(name, value []byte)) {
	for _, f := range r.c.h.fields {
		fn(r.c.bytes(f.name), r.c.bytes(f.value))
	}
}

// Body returns the request body, dechunked.
func (r *Request) Body() []byte { return r.c.buf[r.c.bodyStart:r.c.bodyEnd] }

// A ResponseWriter builds the response to one request. The server adds
// Date, Content-Length (for statuses that allow a body), Content-Type when
// the handler set none and the body is not empty (sniffed as net/http
// does), and Connection when the connection closes; the response goes out
// in one write with the others of a pipelined batch.
type ResponseWriter struct {
	status  int
	header  []byte // header lines, each ending in "\r\n"
	body    []byte
	ctype   bool // the handler set Content-Type
	closing bool // the handler asked to close the connection
}

func (w *ResponseWriter) reset() {
	w.status, w.header, w.body, w.ctype, w.closing = http.StatusOK, w.header[:0], w.body[:0], false, false
}

// WriteHeader sets the status code (200 unless set).
func (w *ResponseWriter) WriteHeader(status int) {
	if status < 100 || status > 999 {
		panic("cohttp: invalid status code " + strconv.Itoa(status))
	}
	w.status = status
}

// AddHeader adds a header field. A Connection: close field makes the server
// close the connection after the response; Content-Length and Date are the
// server's and must not be added.
func (w *ResponseWriter) AddHeader(name, value string) {
	switch {
	case equalFold([]byte(name), "Content-Type"):
		w.ctype = true
	case equalFold([]byte(name), "Connection") && containsToken([]byte(value), "close"):
		w.closing = true
		return // the server writes it
	}
	w.header = append(append(append(append(w.header, name...), ": "...), value...), "\r\n"...)
}

// Write appends p to the body.
func (w *ResponseWriter) Write(p []byte) (int, error) {
	w.body = append(w.body, p...)
	return len(p), nil
}

// WriteString appends s to the body.
func (w *ResponseWriter) WriteString(s string) (int, error) {
	w.body = append(w.body, s...)
	return len(s), nil
}

// bodyAllowed reports whether a response with status may carry a body.
func bodyAllowed(status int) bool {
	return (status < 100 || status >= 200) && status != http.StatusNoContent && status != http.StatusNotModified
}

// appendDate appends the Date header's value, formatted once per second.
func appendDate(b []byte) []byte {
	now := time.Now().Unix()
	d := cachedDate.Load()
	if d == nil || d.sec != now {
		d = &dateCache{sec: now}
		d.b = time.Unix(now, 0).UTC().AppendFormat(d.b[:0], http.TimeFormat)
		cachedDate.Store(d)
	}
	return append(b, d.b...)
}

type dateCache struct {
	sec int64
	b   []byte
}

var cachedDate atomic.Pointer[dateCache]

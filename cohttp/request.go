//go:build unix

package cohttp

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// A Handler answers one request of a [Server] by filling w. It runs inside
// the connection's coroutine or task, on the loop, and must not wait: it is
// called once the whole request, body included, has been read, and every
// connection of the loop waits while it runs. A request whose answer needs
// waiting (a database, another service, a timer) is handed to a
// [WaitHandler] with [ResponseWriter.Wait]. r and w, and the byte slices
// they return, are valid only during the call.
type Handler func(w *ResponseWriter, r *Request)

// A Request is a request as the server read it: slices of the connection's
// buffer, valid during the handler's call.
type Request struct {
	c *conn
}

// Method returns the request method.
func (r *Request) Method() []byte { return r.c.bytes(r.c.h.method) }

// URI returns the request target as sent: an origin-form path and query
// usually; an absolute URI (RFC 9112 section 3.2.2: "http://host/path",
// which a proxy sends and a server must accept), an authority for CONNECT,
// or "*" otherwise.
func (r *Request) URI() []byte { return r.c.bytes(r.c.h.uri) }

// Path returns the path of the request target, escaped as sent: the
// target up to its query, the path of an absolute URI ("" if it has none),
// "" for a CONNECT authority. It is what net/http's URL.EscapedPath gives
// (URL.Path unescaped), so routes see the same path whichever form the
// client used.
func (r *Request) Path() []byte {
	if r.isConnect() {
		return nil
	}
	path, _ := splitTarget(r.URI())
	return path
}

// Host returns the host the request is for, as net/http's Request.Host:
// the authority of an absolute URI or CONNECT target, else the Host header
// (nil if there is none).
func (r *Request) Host() []byte {
	if r.isConnect() {
		return r.URI()
	}
	if _, host := splitTarget(r.URI()); host != nil {
		return host
	}
	return r.Header("Host")
}

// isConnect reports whether the target is a CONNECT authority.
func (r *Request) isConnect() bool {
	u := r.URI()
	return string(r.Method()) == http.MethodConnect && (len(u) == 0 || u[0] != '/')
}

// splitTarget splits a request target into its path (up to the query) and
// the host of its authority, as url.ParseRequestURI does: an origin-form
// target or "*" is all path; an absolute URI is scheme ":" ["//" authority]
// path-and-query, its userinfo left out of the host.
func splitTarget(u []byte) (path, host []byte) {
	if len(u) == 0 || u[0] == '/' || len(u) == 1 && u[0] == '*' {
		return cutQuery(u), nil
	}
	colon := bytes.IndexByte(u, ':')
	if colon <= 0 || !validScheme(u[:colon]) {
		return nil, nil // not a request target url.ParseRequestURI accepts
	}
	rest := u[colon+1:]
	if !bytes.HasPrefix(rest, []byte("//")) {
		if len(rest) > 0 && rest[0] == '/' {
			return cutQuery(rest), nil
		}
		return nil, nil // opaque
	}
	rest = rest[2:]
	end := bytes.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	host = rest[:end]
	if at := bytes.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	return cutQuery(rest[end:]), host
}

func cutQuery(u []byte) []byte {
	if i := bytes.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

// validScheme reports whether s is a URI scheme: a letter, then letters,
// digits, '+', '-' and '.'.
func validScheme(s []byte) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
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
	status   int
	header   []byte // header lines, each ending in "\r\n"
	body     []byte
	ctype    bool         // the handler set Content-Type
	closing  bool         // the handler asked to close the connection
	waiting  *WaitHandler // the handler handed the request to it (Wait)
	panicked bool         // a handler panicked: the answer is a 500
}

func (w *ResponseWriter) reset() {
	w.status, w.header, w.body, w.ctype, w.closing = http.StatusOK, w.header[:0], w.body[:0], false, false
	w.waiting, w.panicked = nil, false
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

// appendDate appends the Date header's value at now, on the loop's clock:
// the wall clock is read and formatted once per second of it (s.date holds
// the value until s.dateEnd), not per response.
func (s *Server) appendDate(b []byte, now time.Duration) []byte {
	if now >= s.dateEnd || len(s.date) == 0 {
		t := time.Now()
		s.date = t.UTC().AppendFormat(s.date[:0], http.TimeFormat)
		s.dateEnd = now + time.Second - time.Duration(t.Nanosecond())
	}
	return append(b, s.date...)
}

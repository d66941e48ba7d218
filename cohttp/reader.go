package cohttp

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// A RequestReader reads HTTP/1.1 requests from a connection with
// http.ReadRequest and applies what net/http's server adds around it: the
// limits (head size, read-header and idle timeouts), the version and Host
// checks, the tolerance of stray CRLF after a POST, and net/http's mapping
// of failures to error statuses. The servers built on http.ReadRequest
// (examples/http and the benchmarks' hello loops) share it.
//
// Timeouts need a source with SetReadDeadline (a net.Conn, or any reader
// offering it); on other sources they do not apply.
type RequestReader struct {
	lim      Limits
	src      io.Reader
	dl       interface{ SetReadDeadline(time.Time) error }
	remain   int   // bytes the limit still allows; <0: no limit
	srcErr   error // the last error of src: a transport failure, not a malformed request
	br       *bufio.Reader
	lastPOST bool
	served   bool // a request has been read: the next waits within the idle timeout
	idle     bool
	reqEnd   time.Time // the read timeout's deadline for the request being read; zero: none
}

// NewRequestReader returns a reader of requests from src with the limits
// lim (normalized here) and a 4 KiB buffer.
func NewRequestReader(src io.Reader, lim Limits) *RequestReader {
	rr := &RequestReader{lim: lim.Normalize(), src: src, remain: -1}
	rr.dl, _ = src.(interface{ SetReadDeadline(time.Time) error })
	rr.br = bufio.NewReaderSize((*limitedSource)(rr), 4<<10)
	return rr
}

// Limits returns the limits in force.
func (rr *RequestReader) Limits() Limits { return rr.lim }

// Buffered returns the number of bytes read from the connection and not
// consumed yet: the start of a pipelined request when it is not 0.
func (rr *RequestReader) Buffered() int { return rr.br.Buffered() }

// Idle reports whether the reader is waiting for the first byte of a
// request: a connection in that state can be closed without losing one.
func (rr *RequestReader) Idle() bool { return rr.idle }

// Next reads a request's head and checks it as net/http's server does:
// within the read-header timeout from the start of the connection for the
// first request, from its first bytes for the others, which must arrive
// within the idle timeout; and within the head size limit. The body is
// left to be read through req.Body, within the read timeout, which runs
// from the same start as the read-header timeout: a read of the body after
// it fails with the source's timeout error.
//
// Errors: an *Error for a request the server must answer with
// [Error.Response] before closing; anything else (io.EOF, a timeout, a
// reset) means the connection is over and nothing is to be answered.
func (rr *RequestReader) Next() (*http.Request, error) {
	if rr.served && rr.br.Buffered() < 4 {
		// As net/http: between requests, wait for 4 bytes (or the end)
		// within the idle timeout before the head's time starts.
		rr.idle = true
		rr.deadline(rr.lim.IdleTimeout)
		_, err := rr.br.Peek(4)
		rr.idle = false
		if err != nil {
			return nil, err // as net/http: even with 1 to 3 bytes of a request
		}
	}
	now := time.Now()
	rr.reqEnd = time.Time{}
	if rr.lim.ReadTimeout >= 0 {
		rr.reqEnd = now.Add(rr.lim.ReadTimeout)
	}
	head := rr.reqEnd
	if rr.lim.ReadHeaderTimeout >= 0 && (head.IsZero() || rr.lim.ReadHeaderTimeout < rr.lim.ReadTimeout) {
		head = now.Add(rr.lim.ReadHeaderTimeout)
	}
	rr.setDeadline(head)
	if !rr.served && rr.br.Buffered() == 0 {
		rr.idle = true // a new connection: closing it loses no request
		_, err := rr.br.Peek(1)
		rr.idle = false
		if err != nil {
			return nil, err
		}
	}
	rr.served = true
	rr.remain = rr.lim.headLimit() - rr.br.Buffered()
	rr.srcErr = nil
	if rr.lastPOST { // RFC 7230 section 3: tolerance for old buggy clients
		peek, _ := rr.br.Peek(4)
		n := 0
		for n < len(peek) && (peek[n] == '\r' || peek[n] == '\n') {
			n++
		}
		rr.br.Discard(n)
	}
	req, err := http.ReadRequest(rr.br)
	hit := rr.remain == 0
	rr.remain = -1
	rr.setDeadline(rr.reqEnd)
	if err != nil {
		switch {
		case hit:
			return nil, errTooLarge
		case rr.srcErr != nil && (errors.Is(err, rr.srcErr) || errors.Is(err, io.ErrUnexpectedEOF)):
			return nil, rr.srcErr
		case errors.Is(err, io.EOF):
			return nil, err
		case strings.HasPrefix(err.Error(), "unsupported transfer encoding"),
			strings.HasPrefix(err.Error(), "too many transfer encodings"):
			return nil, errUnsupportedTE
		}
		return nil, errBadRequest
	}
	rr.lastPOST = req.Method == http.MethodPost
	if e := CheckRequest(req); e != nil {
		return nil, e
	}
	return req, nil
}

// deadline sets the source's read deadline d from now (d < 0: none).
func (rr *RequestReader) deadline(d time.Duration) {
	var t time.Time
	if d >= 0 {
		t = time.Now().Add(d)
	}
	rr.setDeadline(t)
}

// setDeadline sets the source's read deadline (zero: none).
func (rr *RequestReader) setDeadline(t time.Time) {
	if rr.dl != nil {
		rr.dl.SetReadDeadline(t)
	}
}

// limitedSource is the RequestReader seen as the reader under its buffer:
// src, cut off at the head limit while a head is read.
type limitedSource RequestReader

func (ls *limitedSource) Read(p []byte) (int, error) {
	if ls.remain == 0 {
		return 0, io.EOF
	}
	if ls.remain > 0 && len(p) > ls.remain {
		p = p[:ls.remain]
	}
	n, err := ls.src.Read(p)
	if ls.remain > 0 {
		ls.remain -= n
	}
	if err != nil && err != io.EOF {
		ls.srcErr = err
	}
	return n, err
}

// CheckRequest applies net/http's server checks to a request parsed by
// http.ReadRequest: the version must be HTTP/1.x and an HTTP/1.1 request
// needs a valid Host. It returns the error to answer, or nil.
//
// http.ReadRequest removes the Host header, so a request with an absolute
// URI and no Host header passes (net/http's server: 400), and a Host
// header with an empty value fails (net/http: accepted).
func CheckRequest(req *http.Request) *Error {
	if req.ProtoMajor != 1 {
		return errVersion
	}
	if req.Host == "" && req.ProtoAtLeast(1, 1) && req.Method != http.MethodConnect {
		return errMissingHost
	}
	if req.URL.Host == "" && !ValidHost(req.Host) {
		return errMalformedHost
	}
	for k, vv := range req.Header {
		if !validName(k) {
			return errHeaderName
		}
		for _, v := range vv {
			if !validValue(v) {
				return errHeaderValue
			}
		}
	}
	return nil
}

// validName reports whether k is an HTTP token (RFC 7230 section 3.2.6).
func validName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !tokenByte[k[i]] {
			return false
		}
	}
	return true
}

// validValue reports whether v holds no control byte other than tab.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// tokenByte is the set of bytes of an HTTP token.
var tokenByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// ValidHost reports whether h is a valid Host header value, with the rule
// of net/http's server (golang.org/x/net/http/httpguts.ValidHostHeader):
// only the bytes a host, port or IP literal may hold.
func ValidHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if !validHostByte[h[i]] {
			return false
		}
	}
	return true
}

// validHostByte is httpguts's table.
var validHostByte = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true,
	'8': true, '9': true,

	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true,
	'i': true, 'j': true, 'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true,
	'q': true, 'r': true, 's': true, 't': true, 'u': true, 'v': true, 'w': true, 'x': true,
	'y': true, 'z': true,

	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true,
	'I': true, 'J': true, 'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true,
	'Q': true, 'R': true, 'S': true, 'T': true, 'U': true, 'V': true, 'W': true, 'X': true,
	'Y': true, 'Z': true,

	'!':  true, // sub-delims
	'$':  true, // sub-delims
	'%':  true, // pct-encoded (and used in IPv6 zones)
	'&':  true, // sub-delims
	'(':  true, // sub-delims
	')':  true, // sub-delims
	'*':  true, // sub-delims
	'+':  true, // sub-delims
	',':  true, // sub-delims
	'-':  true, // unreserved
	'.':  true, // unreserved
	':':  true, // IPv6address + Host expression's optional port
	';':  true, // sub-delims
	'=':  true, // sub-delims
	'[':  true,
	'\'': true, // sub-delims
	']':  true,
	'_':  true, // unreserved
	'~':  true, // unreserved
}

// CloseWriteAndWait ends a connection whose client may still be sending (a
// head or a body the server did not read) as net/http does: it half-closes
// c (if c has CloseWrite), then reads and discards until the client closes
// or 500 ms have passed (if c has SetReadDeadline), so that the final close
// does not reset the connection before the client has read the answer.
// (net/http waits the 500 ms without reading.) The caller closes c.
func CloseWriteAndWait(c io.Reader) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	if d, ok := c.(interface{ SetReadDeadline(time.Time) error }); ok {
		d.SetReadDeadline(time.Now().Add(lingerTime))
		io.Copy(io.Discard, c)
	}
}

// lingerTime bounds the read-and-discard before a close with the client
// still sending: net/http's rstAvoidanceDelay.
const lingerTime = 500 * time.Millisecond

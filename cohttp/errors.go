package cohttp

import (
	"net/http"
	"strconv"
)

// An Error is a request the server answers with an error status and then
// closes the connection: what net/http's server answers for the same bytes.
type Error struct {
	Status int    // the HTTP status code
	Text   string // detail after the status text, as net/http gives it ("" for none)
	body   string // the response body when it is not the status line's text
}

// Error returns the status and its detail.
func (e *Error) Error() string {
	s := "cohttp: " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Text != "" {
		s += ": " + e.Text
	}
	return s
}

// Response returns the response net/http's server writes for e, byte for
// byte: a status line, Content-Type and Connection: close, and a short text
// body. It closes the body with the connection (no Content-Length), as
// net/http does.
func (e *Error) Response() []byte {
	return e.AppendResponse(nil)
}

// AppendResponse appends [Error.Response] to b.
func (e *Error) AppendResponse(b []byte) []byte {
	status := strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Text != "" {
		status += ": " + e.Text
	}
	b = append(b, "HTTP/1.1 "...)
	b = append(b, status...)
	b = append(b, "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"...)
	if e.body != "" {
		return append(b, e.body...)
	}
	return append(b, status...)
}

// The errors the servers answer, as net/http's server words them.
var (
	errTooLarge       = &Error{Status: http.StatusRequestHeaderFieldsTooLarge}
	errBadRequest     = &Error{Status: http.StatusBadRequest}
	errVersion        = &Error{Status: http.StatusHTTPVersionNotSupported, Text: "unsupported protocol version"}
	errMissingHost    = &Error{Status: http.StatusBadRequest, Text: "missing required Host header"}
	errMalformedHost  = &Error{Status: http.StatusBadRequest, Text: "malformed Host header"}
	errHeaderName     = &Error{Status: http.StatusBadRequest, Text: "invalid header name"}
	errHeaderValue    = &Error{Status: http.StatusBadRequest, Text: "invalid header value"}
	errUnsupportedTE  = &Error{Status: http.StatusNotImplemented, body: "Unsupported transfer encoding"}
	errBodyTooLarge   = &Error{Status: http.StatusRequestEntityTooLarge}
	errExpectationBad = &Error{Status: http.StatusExpectationFailed}
	errRequestTimeout = &Error{Status: http.StatusRequestTimeout}
)

package httpdiff

import "strings"

const get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"

// Cases is the table of byte streams. Every server is expected to answer
// them as net/http's server answers them, with the same handler: "GET /"
// answers without reading a body, "POST /echo" reads the whole body and
// answers with it (cases comparing bodies rely on it: they show what path
// the handler saw).
func Cases() []Case {
	big := strings.Repeat("a", 300<<10) // more than the 256 KiB a server reads for a handler
	return []Case{
		{Name: "get", Send: []string{get}},
		{Name: "pipelined-3", Send: []string{get + get + get}},
		{Name: "pipelined-split", Send: []string{get + "GET / HT", "TP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "valid-then-garbage", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n"}},
		{Name: "valid-then-garbage-split", Send: []string{get, "GARBAGE\r\n\r\n"}},
		{Name: "head", Send: []string{"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + get}, Methods: []string{"HEAD", "GET"}},
		{Name: "connection-close", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" + get}},
		{Name: "http10", Send: []string{"GET / HTTP/1.0\r\n\r\n" + get}},
		{Name: "http10-keepalive", Send: []string{"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + get}},
		{Name: "http11-no-host", Send: []string{"GET / HTTP/1.1\r\n\r\n"}},
		{Name: "http10-no-host", Send: []string{"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"}},
		{Name: "bad-host", Send: []string{"GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"}},
		{Name: "two-hosts", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"}},
		{Name: "empty-host", Send: []string{"GET / HTTP/1.1\r\nHost:\r\n\r\n"}},
		{Name: "absolute-uri-no-host", Send: []string{"GET http://x/ HTTP/1.1\r\n\r\n"}},
		{Name: "absolute-uri", Send: []string{"GET http://x/ HTTP/1.1\r\nHost: y\r\n\r\n"}},
		// Absolute-form targets route by their path, as origin-form ones.
		{Name: "absolute-uri-route", Bodies: true, Send: []string{"POST http://x/echo HTTP/1.1\r\nHost: y\r\nContent-Length: 5\r\n\r\nhello"}},
		{Name: "absolute-uri-route-query", Bodies: true, Send: []string{"POST http://u@x:80/echo?q=/a HTTP/1.1\r\nHost: y\r\nContent-Length: 2\r\n\r\nhi"}},
		{Name: "absolute-uri-route-https", Bodies: true, Send: []string{"POST HTTPS://x/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"}},
		{Name: "origin-route", Bodies: true, Send: []string{"POST /echo?x HTTP/1.1\r\nHost: y\r\nContent-Length: 2\r\n\r\nhi"}},
		{Name: "version-9.9", Send: []string{"GET / HTTP/9.9\r\nHost: x\r\n\r\n"}},
		{Name: "version-2.0", Send: []string{"GET / HTTP/2.0\r\nHost: x\r\n\r\n"}},
		{Name: "version-lowercase", Send: []string{"GET / http/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "version-missing", Send: []string{"GET /\r\nHost: x\r\n\r\n"}},
		{Name: "version-1.2", Send: []string{"GET / HTTP/1.2\r\nHost: x\r\n\r\n"}},
		{Name: "bad-method", Send: []string{"G(T / HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "double-space", Send: []string{"GET  / HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "bad-uri", Send: []string{"GET x HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "bare-lf", Send: []string{"GET / HTTP/1.1\nHost: x\n\n"}},
		{Name: "leading-crlf", Send: []string{"\r\n" + get}},
		{Name: "crlf-after-post", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab\r\n" + get}},
		{Name: "header-no-colon", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"}},
		{Name: "header-space-name", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n"}},
		{Name: "header-space-before-colon", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nName : v\r\n\r\n"}},
		{Name: "header-ctl-value", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nName: a\x01b\r\n\r\n"}},
		{Name: "obs-fold", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"}},
		{Name: "obs-fold-first", Send: []string{"GET / HTTP/1.1\r\n Host: x\r\n\r\n"}},
		{Name: "post-cl", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" + get}},
		{Name: "post-cl-unread", Send: []string{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" + get}},
		{Name: "post-cl-split", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhe", "llo" + get}},
		{Name: "post-chunked", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n" + get}},
		{Name: "post-chunked-unread", Send: []string{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + get}},
		{Name: "post-chunked-trailer", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n" + get}},
		{Name: "post-chunked-malformed", Send: []string{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n" + get}},
		{Name: "post-chunked-malformed-read", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n" + get}},
		{Name: "post-chunked-overflow", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\nhello\r\n0\r\n\r\n"}},
		{Name: "post-big-unread", Send: []string{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + itoa(len(big)) + "\r\n\r\n" + big + get}},
		{Name: "post-big-read", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + itoa(len(big)) + "\r\n\r\n" + big + get}},
		{Name: "cl-and-te", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + get}},
		{Name: "te-gzip", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" + get}},
		{Name: "te-gzip-chunked", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + get}},
		{Name: "te-twice", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get}},
		{Name: "te-http10", Send: []string{"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"}},
		{Name: "cl-duplicate-same", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc" + get}},
		{Name: "cl-duplicate-differ", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd" + get}},
		{Name: "cl-list", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc" + get}},
		{Name: "cl-negative", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n" + get}},
		{Name: "cl-plus", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc" + get}},
		{Name: "cl-huge", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n"}},
		{Name: "cl-on-get", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" + get}},
		{Name: "expect-continue-read", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", "hello" + get}},
		{Name: "expect-continue-unread", Send: []string{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"}},
		{Name: "expect-continue-empty", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nExpect: 100-continue\r\n\r\n" + get}},
		{Name: "expect-continue-http10", Send: []string{"POST /echo HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello"}},
		{Name: "expect-other", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n" + get}},
		{Name: "half-close-after-request", Send: []string{get}, HalfClose: true},
		{Name: "half-close-mid-head", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\n"}, HalfClose: true},
		{Name: "half-close-mid-body", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"}, HalfClose: true},
		{Name: "half-close-empty", HalfClose: true},
		{Name: "oversized-head", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 1<<20+8192) + "\r\n\r\n"}},
		{Name: "long-but-allowed-head", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 1<<20-100) + "\r\n\r\n"}},
		{Name: "options-star", Send: []string{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "connect", Send: []string{"CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n"}},
		{Name: "nul-in-line", Send: []string{"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n"}},
		// Finer points of the parsers.
		{Name: "chunk-size-space", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n" + get}},
		{Name: "chunk-size-upper", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n" + get}},
		{Name: "chunk-ext-quoted", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"b;c\"\r\nhello\r\n0\r\n\r\n" + get}},
		{Name: "chunk-bare-lf", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n" + get}},
		{Name: "chunk-data-no-crlf", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n" + get}},
		{Name: "chunk-last-ext", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0;x=y\r\n\r\n" + get}},
		{Name: "chunk-trailer-bad", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n" + get}},
		{Name: "chunk-trailer-lf", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\n" + get}},
		{Name: "chunked-case", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n" + get}},
		{Name: "chunked-bad-cl", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get}},
		{Name: "cl-leading-zeros", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 003\r\n\r\nabc" + get}},
		{Name: "cl-spaces", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length:  3 \r\n\r\nabc" + get}},
		{Name: "cl-empty", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n" + get}},
		{Name: "head-with-cl", Send: []string{"HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" + get}, Methods: []string{"HEAD", "GET"}},
		{Name: "value-obs-text", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-A: caf\xc3\xa9\r\n\r\n"}},
		{Name: "value-tab", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-A:\ta\tb\t\r\n\r\n"}},
		{Name: "value-cr", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"}},
		{Name: "uri-escapes", Send: []string{"GET /a%20b?q=%41 HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "uri-bad-escape", Send: []string{"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "uri-fragment", Send: []string{"GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "uri-odd-bytes", Send: []string{"GET /a\"b{c}|\xff HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "uri-star-get", Send: []string{"GET * HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "method-lowercase", Send: []string{"get / HTTP/1.1\r\nHost: x\r\n\r\n"}},
		{Name: "proto-trailing-space", Send: []string{"GET / HTTP/1.1 \r\nHost: x\r\n\r\n"}},
		{Name: "line-cr-cr-lf", Send: []string{"GET / HTTP/1.1\r\r\nHost: x\r\n\r\n"}},
		{Name: "connection-tokens", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Close\r\n\r\n" + get}},
		{Name: "connection-two-lines", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n" + get}},
		{Name: "http10-keepalive-list", Send: []string{"GET / HTTP/1.0\r\nConnection: foo, Keep-Alive\r\n\r\n" + get}},
		{Name: "host-ipv6-port", Send: []string{"GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"}},
		{Name: "host-underscore", Send: []string{"GET / HTTP/1.1\r\nHost: a_b.example\r\n\r\n"}},
		{Name: "host-space-inside", Send: []string{"GET / HTTP/1.1\r\nHost: a b\r\n\r\n"}},
		{Name: "expect-case", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-Continue\r\n\r\n", "ab"}},
		{Name: "expect-list", Send: []string{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: foo, 100-continue\r\n\r\n", "ab"}},
		{Name: "bad-line-unfinished-head", Send: []string{get + "Host: x\r\n"}},
		{Name: "no-colon-unfinished-head", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n"}},
		{Name: "fold-first-unfinished-head", Send: []string{"GET / HTTP/1.1\r\n Host: x\r\n"}},
		{Name: "many-headers", Send: []string{"GET / HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-Many: v\r\n", 2000) + "\r\n"}},
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// ReadRequestDiffers are the cases where the servers built on
// http.ReadRequest (with cohttp.RequestReader) answer differently from
// net/http's server, and why.
var ReadRequestDiffers = map[string]string{
	"empty-host":           "http.ReadRequest drops the Host header, so an empty one looks missing: 400 (net/http: 200)",
	"absolute-uri-no-host": "http.ReadRequest drops the Host header, so the URI's host hides its absence: 200 (net/http: 400)",
	"expect-continue-unread": "a 100-continue body the handler never asked for: the server closes at once (the hello loops also say " +
		"Connection: close); net/http keeps the connection while it waits up to 500 ms for the body, then closes",
}

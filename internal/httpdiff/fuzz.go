package httpdiff

// Pieces are the fragments random streams are built from: whole requests
// of every framing, broken and partial ones, and stray bytes. None of them
// is a case a server is listed as answering differently.
var Pieces = []string{
	get,
	"GET / HTTP/1.0\r\n\r\n",
	"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
	"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nab",
	"GET / HTTP/1.1\r\nHost: x\r\nExpect: nothing\r\n\r\n",
	"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
	"GET / HTTP/1.1\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
	// Content-Length beside chunked: a malformed one (400 everywhere); a
	// valid one closes cohttp's connections (case cl-and-te).
	"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: x3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	"GARBAGE\r\n\r\n",
	"\r\n",
	"GET / HT",
	"TP/1.1\r\nHost: x\r\n\r\n",
	"Host: x\r\n",
	"\r\n\r\n",
}

// Stream is the case that data describes: each byte picks a piece (modulo
// their number); a byte with its top bit set also starts a new write, and
// an odd-length data half-closes at the end.
func Stream(data []byte) Case {
	c := Case{Name: "fuzz", HalfClose: len(data)%2 == 1}
	cur := ""
	for _, b := range data {
		if b&0x80 != 0 && cur != "" {
			c.Send = append(c.Send, cur)
			cur = ""
		}
		cur += Pieces[int(b&0x7f)%len(Pieces)]
	}
	if cur != "" {
		c.Send = append(c.Send, cur)
	}
	return c
}

package cohttp

import (
	"bytes"
	"net/url"
)

// A span is a piece of a connection's buffer by offsets, which survive the
// buffer's growth; a folded header value is a span of the scratch buffer.
type span struct {
	off, n  int32
	scratch bool
}

// A field is a header line: its name and its value, trimmed.
type field struct{ name, value span }

// A head is a parsed request head, with net/http's reading of it.
type head struct {
	method, uri, proto span
	major, minor       int
	fields             []field
	length             int64 // of the body; -1: chunked
	close              bool  // the request ends the connection (Connection: close, HTTP/1.0 without keep-alive)
	keepAlive10        bool  // an HTTP/1.0 request asking for keep-alive
	expect             uint8 // expectNone, expectContinue or expectOther
	size               int   // bytes of the head, blank line included
}

const (
	expectNone = iota
	expectContinue
	expectOther
)

// headEnd returns the length of the head at the start of b, blank line
// included, or 0 if b does not hold a complete head yet. A head ends at
// the first empty line ("\r\n" or "\n"), as textproto reads it; an empty
// first line is a (malformed) head by itself. from is where the search
// resumes (the next return of a previous call); next is where the next
// search should resume.
func headEnd(b []byte, from int) (n, next int) {
	i := from
	for {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return 0, i
		}
		if j == 0 || j == 1 && b[i] == '\r' {
			return i + j + 1, 0
		}
		i += j + 1
	}
}

// nextLine cuts the first line off b, without its "\n" or "\r\n".
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// parseHead parses the complete head b, found at offset base of the
// connection's buffer, into h, with the checks of net/http's server in its
// order: the request line, the header fields, the framing of the body (501
// for codings other than chunked), then the version (505) and the Host.
// Folded header values go to scratch. It returns the error to answer, or
// nil.
func parseHead(b []byte, base int, h *head, scratch *[]byte) *Error {
	*h = head{fields: h.fields[:0], size: len(b)}
	*scratch = (*scratch)[:0]
	line, rest := nextLine(b)
	method, uri, proto, major, minor, ok := parseRequestLine(line)
	if !ok {
		return errBadRequest
	}
	h.major, h.minor = major, minor
	h.method, h.uri, h.proto = spanOf(base, b, method), spanOf(base, b, uri), spanOf(base, b, proto)

	// The fields, as textproto.ReadMIMEHeader reads them.
	if len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
		return errBadRequest
	}
	var host, connection, expect []byte
	hosts, lengths, codings := 0, 0, 0
	var firstLength []byte
	var coding []byte
	for {
		line, rest = nextLine(rest)
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 || !validToken(line[:colon]) {
			return errBadRequest
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		f := field{name: spanOf(base, b, name), value: spanOf(base, b, value)}
		if len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') { // obs-fold: joined with a space
			s0 := len(*scratch)
			*scratch = append(*scratch, value...)
			for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
				var cont []byte
				cont, rest = nextLine(rest)
				*scratch = append(append(*scratch, ' '), trimOWS(cont)...)
			}
			value = (*scratch)[s0:]
			f.value = span{off: int32(s0), n: int32(len(value)), scratch: true}
		}
		for _, c := range value {
			if c < ' ' && c != '\t' || c == 0x7f {
				return errBadRequest
			}
		}
		h.fields = append(h.fields, f)
		switch {
		case equalFold(name, "Host"):
			hosts++
			host = value
		case equalFold(name, "Content-Length"):
			lengths++
			if lengths == 1 {
				firstLength = trimSpace(value)
			} else if !bytes.Equal(firstLength, trimSpace(value)) {
				lengths = -1 << 30 // differing values: refused below
			}
		case equalFold(name, "Transfer-Encoding"):
			codings++
			coding = value
		case equalFold(name, "Connection"):
			if connection == nil {
				connection = value
			} else { // several lines: their tokens count together
				s0 := len(*scratch)
				*scratch = append(append(append(*scratch, connection...), ','), value...)
				connection = (*scratch)[s0:]
			}
		case equalFold(name, "Expect"):
			if expect == nil {
				expect = value
			}
		}
	}
	if hosts > 1 {
		return errBadRequest // "too many Host headers"
	}
	// The body's framing, as readTransfer: an HTTP/1.0 request's
	// Transfer-Encoding is ignored; the Content-Length is checked even when
	// chunked wins.
	chunked := false
	if codings > 0 && (h.major > 1 || h.major == 1 && h.minor >= 1) {
		if codings != 1 || !equalFold(coding, "chunked") {
			return errUnsupportedTE
		}
		chunked = true
	}
	switch {
	case lengths < 0:
		return errBadRequest
	case lengths > 0:
		n, ok := parseLength(firstLength)
		if !ok {
			return errBadRequest
		}
		h.length = n
	}
	if chunked {
		h.length = -1
	}

	if h.major != 1 {
		return errVersion
	}
	if h.minor >= 1 && hosts == 0 && string(method) != "CONNECT" {
		return errMissingHost
	}
	if hosts == 1 && !validHostBytes(host) {
		return errMalformedHost
	}
	hasClose := containsToken(connection, "close")
	if h.minor == 0 {
		h.keepAlive10 = containsToken(connection, "keep-alive")
		h.close = hasClose || !h.keepAlive10
	} else {
		h.close = hasClose
	}
	if codings > 0 && lengths != 0 {
		// Both framings: the request is answered (chunked wins, as above),
		// and the connection closes after the answer, as RFC 9112 section
		// 6.1 requires of a server (net/http keeps it open): a front end
		// that took the Content-Length would read what follows the chunked
		// body differently, the shape of request smuggling.
		h.close = true
	}
	switch {
	case hasToken(expect, "100-continue"):
		h.expect = expectContinue
	case len(expect) > 0:
		h.expect = expectOther
	}
	return nil
}

// parseRequestLine splits and checks a request line as readRequest does:
// a method token, a target url.ParseRequestURI accepts, an HTTP/x.y
// version.
func parseRequestLine(line []byte) (method, uri, proto []byte, major, minor int, ok bool) {
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 < 0 {
		return
	}
	sp2 := bytes.IndexByte(line[sp1+1:], ' ')
	if sp2 < 0 {
		return
	}
	sp2 += sp1 + 1
	method, uri, proto = line[:sp1], line[sp1+1:sp2], line[sp2+1:]
	if !validToken(method) {
		return
	}
	if major, minor, ok = parseVersion(proto); !ok {
		return
	}
	ok = validURI(method, uri)
	return
}

// prefixOK reports whether the complete lines of an unfinished head,
// b[*from:], pass the checks net/http makes on them before the head is
// over: the request line, a first field line that is not a continuation,
// field lines with a colon. *from (a line start) and *lines (the lines
// checked) carry the progress from call to call, so that a head arriving
// byte by byte is checked once.
func prefixOK(b []byte, from, lines *int) bool {
	for {
		i := bytes.IndexByte(b[*from:], '\n')
		if i < 0 {
			return true
		}
		line, _ := nextLine(b[*from : *from+i+1])
		switch {
		case *lines == 0:
			if _, _, _, _, _, ok := parseRequestLine(line); !ok {
				return false
			}
		case len(line) == 0:
			return true // the end of the head: parseHead checks it all
		case line[0] == ' ' || line[0] == '\t':
			if *lines == 1 {
				return false
			}
		case bytes.IndexByte(line, ':') < 0:
			return false
		}
		*from += i + 1
		*lines++
	}
}

// spanOf locates piece, a subslice of b, in the buffer where b starts at
// base.
func spanOf(base int, b, piece []byte) span {
	return span{off: int32(base + cap(b) - cap(piece)), n: int32(len(piece))}
}

// parseLength is strconv.ParseUint(s, 10, 63) without allocating.
func parseLength(s []byte) (int64, bool) {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return int64(n), n < 1<<63
}

// parseVersion is http.ParseHTTPVersion.
func parseVersion(v []byte) (major, minor int, ok bool) {
	if len(v) != len("HTTP/X.Y") || string(v[:5]) != "HTTP/" || v[6] != '.' {
		return 0, 0, false
	}
	if v[5] < '0' || v[5] > '9' || v[7] < '0' || v[7] > '9' {
		return 0, 0, false
	}
	return int(v[5] - '0'), int(v[7] - '0'), true
}

// validURI reports whether url.ParseRequestURI accepts the request target
// (as readRequest treats it: a CONNECT target without a slash is an
// authority). Common paths are checked without allocating; others are
// given to package url.
func validURI(method, uri []byte) bool {
	if len(uri) > 0 && uri[0] == '/' {
		plain := true
		for _, c := range uri {
			if !plainURIByte[c] {
				plain = false
				break
			}
		}
		if plain {
			return true
		}
	}
	raw := string(uri)
	justAuthority := string(method) == "CONNECT" && (len(uri) == 0 || uri[0] != '/')
	if justAuthority {
		raw = "http://" + raw
	}
	_, err := url.ParseRequestURI(raw)
	return err == nil
}

// plainURIByte are the bytes of a path and query that url.ParseRequestURI
// takes as they are: unreserved, sub-delims, ':', '@', '/' and '?'. ('%'
// is not: its escapes need checking.)
var plainURIByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "-._~!$&'()*+,;=:@/?" {
		t[c] = true
	}
	return t
}()

func validToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tokenByte[c] {
			return false
		}
	}
	return true
}

func validHostBytes(h []byte) bool {
	for _, c := range h {
		if !validHostByte[c] {
			return false
		}
	}
	return true
}

// trimOWS trims spaces and tabs at both ends, as textproto's trim.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// trimSpace is textproto.TrimString: ASCII white space at both ends.
func trimSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold reports whether b equals the ASCII string s, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// containsToken is httpguts.HeaderValuesContainsToken for one value: a
// comma-separated list holding token, ignoring case and white space.
func containsToken(v []byte, token string) bool {
	for len(v) > 0 {
		item := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			item, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		if equalFold(trimOWS(item), token) {
			return true
		}
	}
	return false
}

// hasToken is net/http's hasToken: token appears in v between boundaries
// (start, end, space, comma, tab), ignoring case.
func hasToken(v []byte, token string) bool {
	if len(token) > len(v) {
		return false
	}
	boundary := func(c byte) bool { return c == ' ' || c == ',' || c == '\t' }
	for sp := 0; sp <= len(v)-len(token); sp++ {
		if sp > 0 && !boundary(v[sp-1]) {
			continue
		}
		if end := sp + len(token); end != len(v) && !boundary(v[end]) {
			continue
		}
		if equalFold(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

package cohttp

import "bytes"

// A dechunker decodes a chunked body in place in a connection's buffer, as
// net/http's chunked reader and trailer reader accept it: the data of each
// chunk moves down over the framing, so that the body ends up contiguous.
type dechunker struct {
	r, w   int    // read position (framing and data) and end of the decoded data
	left   uint64 // data bytes of the current chunk still to come
	state  uint8
	excess int64 // framing beyond what the data justifies, as net/http counts it
}

const (
	chunkSize = iota
	chunkData
	chunkDataEnd
	chunkTrailer
	chunkDone
)

// maxChunkLine is net/http's bound on a chunk-size line.
const maxChunkLine = 4096

// decode advances over buf[d.r:end]. It returns done once the body and its
// trailer are over, or ok=false on a malformed body; otherwise more bytes
// are needed.
func (d *dechunker) decode(buf []byte, end int) (done, ok bool) {
	for {
		switch d.state {
		case chunkSize:
			j := bytes.IndexByte(buf[d.r:end], '\n')
			if j < 0 {
				return false, end-d.r < maxChunkLine
			}
			line := buf[d.r : d.r+j+1]
			if cr := bytes.IndexByte(line, '\r'); cr != len(line)-2 {
				return false, false // bare LF, or a CR inside the line
			}
			p := line[:len(line)-2]
			if len(p) >= maxChunkLine {
				return false, false
			}
			d.excess += int64(len(p)) + 2
			for len(p) > 0 && (p[len(p)-1] == ' ' || p[len(p)-1] == '\t') {
				p = p[:len(p)-1]
			}
			if i := bytes.IndexByte(p, ';'); i >= 0 {
				p = p[:i]
			}
			n, ok := parseHex(p)
			if !ok {
				return false, false
			}
			d.excess = max(d.excess-16-2*int64(n), 0)
			if d.excess > 16<<10 {
				return false, false // "chunked encoding contains too much non-data"
			}
			d.r += j + 1
			if n == 0 {
				d.state = chunkTrailer
			} else {
				d.left, d.state = n, chunkData
			}
		case chunkData:
			avail := uint64(end - d.r)
			if avail == 0 {
				return false, true
			}
			n := int(min(avail, d.left))
			copy(buf[d.w:], buf[d.r:d.r+n])
			d.w += n
			d.r += n
			d.left -= uint64(n)
			if d.left > 0 {
				return false, true
			}
			d.state = chunkDataEnd
		case chunkDataEnd:
			if end-d.r < 2 {
				return false, true
			}
			if buf[d.r] != '\r' || buf[d.r+1] != '\n' {
				return false, false
			}
			d.r += 2
			d.state = chunkSize
		case chunkTrailer:
			if end-d.r < 2 {
				return false, true
			}
			if buf[d.r] == '\r' && buf[d.r+1] == '\n' {
				d.r += 2
				d.state = chunkDone
				continue
			}
			// A trailer, read as net/http reads it: a "\r\n\r\n" must come
			// within 4 KiB (its "suspiciously long trailer" check), then
			// textproto reads field lines up to the first empty one (which
			// may be a bare "\n", ending before that "\r\n\r\n").
			win := buf[d.r:min(end, d.r+4096)]
			if !bytes.Contains(win, []byte("\r\n\r\n")) {
				return false, len(win) < 4096
			}
			n, ok := trailerEnd(buf[d.r:end])
			if !ok {
				return false, false
			}
			d.r += n
			d.state = chunkDone
		case chunkDone:
			return true, true
		}
	}
}

// trailerEnd returns the length of the trailer at the start of b, up to
// and including its empty line, if textproto.ReadMIMEHeader reads it as
// header fields (names of token bytes and spaces, values without control
// bytes, continuation lines after a first field).
func trailerEnd(b []byte) (int, bool) {
	if len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		return 0, false
	}
	n := 0
	for {
		i := bytes.IndexByte(b[n:], '\n')
		if i < 0 {
			return 0, false
		}
		line := b[n : n+i]
		n += i + 1
		if l := len(line); l > 0 && line[l-1] == '\r' {
			line = line[:l-1]
		}
		if len(line) == 0 {
			return n, true
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // a continuation of the previous field
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, false
		}
		for _, c := range line[:colon] {
			if !tokenByte[c] && c != ' ' {
				return 0, false
			}
		}
		for _, c := range line[colon+1:] {
			if c < ' ' && c != '\t' || c == 0x7f {
				return 0, false
			}
		}
	}
}

// parseHex is net/http's parseHexUint: 1 to 16 hex digits.
func parseHex(v []byte) (uint64, bool) {
	if len(v) == 0 || len(v) > 16 {
		return 0, false
	}
	var n uint64
	for _, b := range v {
		switch {
		case '0' <= b && b <= '9':
			b -= '0'
		case 'a' <= b && b <= 'f':
			b = b - 'a' + 10
		case 'A' <= b && b <= 'F':
			b = b - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(b)
	}
	return n, true
}

package resp

//go:generate go tool cogen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// A Kind is the type of a reply.
type Kind byte

// Reply kinds, by their RESP2 type byte; Null is a null bulk string or
// array ($-1, *-1).
const (
	SimpleString Kind = '+'
	Error        Kind = '-'
	Integer      Kind = ':'
	BulkString   Kind = '$'
	Array        Kind = '*'
	Null         Kind = '_'
)

// A Value is one reply. Str is the text of a simple string, bulk string or
// error; it points into the conn's read buffer and stays valid until the
// next Receive on the conn. Array holds the elements of an array (scalars
// only: nested arrays are an error).
type Value struct {
	Kind  Kind
	Str   []byte
	Int   int64
	Array []Value
}

// A ServerError is an error reply ("-ERR ..."), returned by Receive with
// the Value.
type ServerError string

func (e ServerError) Error() string { return "resp: server error: " + string(e) }

// ErrProtocol is wrapped by errors about replies that are not RESP2.
var ErrProtocol = errors.New("resp: protocol error")

// A Conn is a RESP connection on a connected, non-blocking stream socket:
// commands are buffered by Append and written by Flush, replies are read
// in order by Receive; Do is the three for one command. A Conn is used by
// one coroutine (or task) at a time.
type Conn struct {
	fd      int
	rbuf    []byte
	r, w    int // the unread bytes are rbuf[r:w]
	wbuf    []byte
	pending int // commands appended or written whose replies are not read
}

// NewConn returns a conn on fd, with a read buffer of 16 KiB that grows
// for larger replies.
func NewConn(fd int) *Conn {
	return &Conn{fd: fd, rbuf: make([]byte, 16<<10), wbuf: make([]byte, 0, 4<<10)}
}

// Dial connects to a server at addr (an IP address and port, "127.0.0.1:6379")
// and returns a conn on a new non-blocking socket with TCP_NODELAY.
//
//co:stackless
func Dial(co *stackful.Co, addr string) (*Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("resp: dial %s: %w", addr, err)
	}
	fd, sa, err := loop.TCPSocket(ap)
	if err != nil {
		return nil, fmt.Errorf("resp: dial %s: %w", addr, err)
	}
	if err := co.Connect(fd, sa); err != nil {
		co.Close(fd)
		return nil, fmt.Errorf("resp: dial %s: %w", addr, err)
	}
	return NewConn(fd), nil
}

// FD returns the conn's socket; close it with the handle's Close
// (co.Close(c.FD())), which also drops its registration with the loop.
func (c *Conn) FD() int { return c.fd }

// Pending returns the number of commands whose replies have not been
// received.
func (c *Conn) Pending() int { return c.pending }

// Append buffers a command; it is written by the next Flush. Appending
// several commands before a Flush pipelines them.
func (c *Conn) Append(args ...string) {
	c.wbuf = append(c.wbuf, '*')
	c.wbuf = strconv.AppendInt(c.wbuf, int64(len(args)), 10)
	c.wbuf = append(c.wbuf, '\r', '\n')
	for _, a := range args {
		c.wbuf = append(c.wbuf, '$')
		c.wbuf = strconv.AppendInt(c.wbuf, int64(len(a)), 10)
		c.wbuf = append(c.wbuf, '\r', '\n')
		c.wbuf = append(c.wbuf, a...)
		c.wbuf = append(c.wbuf, '\r', '\n')
	}
	c.pending++
}

// Flush writes the buffered commands.
//
//co:stackless
func (c *Conn) Flush(co *stackful.Co) error {
	if len(c.wbuf) == 0 {
		return nil
	}
	_, err := co.Write(c.fd, c.wbuf)
	c.wbuf = c.wbuf[:0]
	if err != nil {
		return fmt.Errorf("resp: write: %w", err)
	}
	return nil
}

// Receive reads the next reply. An error reply is returned as a Value of
// kind Error and a [ServerError]; a failure to read or parse ends the
// conn's usefulness (its replies would be out of step).
//
//co:stackless
func (c *Conn) Receive(co *stackful.Co) (Value, error) {
	if c.pending == 0 {
		return Value{}, errors.New("resp: Receive without a pending command")
	}
	c.compact()
	v, err := c.value(co)
	if err != nil {
		return v, err
	}
	c.pending--
	if v.Kind == Array && v.Int > 0 {
		v.Array = make([]Value, 0, v.Int)
		for range v.Int {
			e, err := c.value(co)
			if err != nil {
				return v, err
			}
			if e.Kind == Array {
				return v, fmt.Errorf("%w: nested array", ErrProtocol)
			}
			v.Array = append(v.Array, e)
		}
	}
	if v.Kind == Error {
		return v, ServerError(v.Str)
	}
	return v, nil
}

// Do sends one command and receives its reply; commands appended before
// must have had their replies received.
//
//co:stackless
func (c *Conn) Do(co *stackful.Co, args ...string) (Value, error) {
	if c.pending != 0 {
		return Value{}, errors.New("resp: Do with replies pending")
	}
	c.Append(args...)
	if err := c.Flush(co); err != nil {
		return Value{}, err
	}
	return c.Receive(co)
}

// value reads one value; an array's elements are left to the caller (Int
// is their count).
//
//co:stackless
func (c *Conn) value(co *stackful.Co) (Value, error) {
	line, err := c.line(co)
	if err != nil {
		return Value{}, err
	}
	if len(line) == 0 {
		return Value{}, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	v := Value{Kind: Kind(line[0])}
	switch v.Kind {
	case SimpleString, Error:
		v.Str = line[1:]
		return v, nil
	case Integer, BulkString, Array:
		n, err := strconv.ParseInt(string(line[1:]), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%w: %q", ErrProtocol, line)
		}
		v.Int = n
		if n < 0 && v.Kind != Integer {
			return Value{Kind: Null}, nil
		}
		if v.Kind != BulkString {
			return v, nil
		}
		for c.w-c.r < int(n)+2 {
			if err := c.fill(co); err != nil {
				return Value{}, err
			}
		}
		v.Str = c.rbuf[c.r : c.r+int(n) : c.r+int(n)]
		c.r += int(n) + 2
		return v, nil
	}
	return Value{}, fmt.Errorf("%w: %q", ErrProtocol, line)
}

// line returns the next line without its CRLF.
//
//co:stackless
func (c *Conn) line(co *stackful.Co) ([]byte, error) {
	for {
		if i := bytes.Index(c.rbuf[c.r:c.w], crlf); i >= 0 {
			l := c.rbuf[c.r : c.r+i : c.r+i]
			c.r += i + 2
			return l, nil
		}
		if err := c.fill(co); err != nil {
			return nil, err
		}
	}
}

var crlf = []byte("\r\n")

// fill reads more into the buffer. It never moves bytes a Value of the
// current reply points to: a full buffer is replaced by a larger one.
//
//co:stackless
func (c *Conn) fill(co *stackful.Co) error {
	if c.w == len(c.rbuf) {
		nb := make([]byte, 2*len(c.rbuf))
		c.w = copy(nb, c.rbuf[c.r:c.w])
		c.r = 0
		c.rbuf = nb
	}
	n, err := co.Read(c.fd, c.rbuf[c.w:])
	if err != nil {
		return fmt.Errorf("resp: read: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("resp: read: %w", io.ErrUnexpectedEOF)
	}
	c.w += n
	return nil
}

// compact moves the unread bytes to the front of the buffer, between
// replies.
func (c *Conn) compact() {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.r > len(c.rbuf)/2 {
		c.w = copy(c.rbuf, c.rbuf[c.r:c.w])
		c.r = 0
	}
}

// GetLoop sends GET key and reads its reply, one at a time, until the
// clock passes until or a command fails, and returns how many round trips it made: the db group
// of cmd/cobench runs it in both models.
//
//co:stackless
func GetLoop(co *stackful.Co, c *Conn, key string, until time.Time) (int, error) {
	n := 0
	for time.Now().Before(until) {
		v, err := c.Do(co, "GET", key)
		if err != nil {
			return n, err
		}
		if v.Kind != BulkString {
			return n, fmt.Errorf("resp: GET %s: a reply of kind %c", key, v.Kind)
		}
		n++
	}
	return n, nil
}

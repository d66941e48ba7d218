package cotest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// An Endpoint is one side of a stream connection as a coroutine uses it:
// the hooked calls on a descriptor, or a conet net.Conn.
type Endpoint interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	// SetTimeout bounds every later Read and Write by d.
	SetTimeout(d time.Duration) error
	CloseWrite() error
	Close() error
}

// An ErrKind classifies an operation's error as the model sees it.
type ErrKind uint8

// Error kinds.
const (
	KindNone     ErrKind = iota // no error
	KindTimeout                 // the timeout passed (EAGAIN for SO_RCVTIMEO, os.ErrDeadlineExceeded)
	KindEOF                     // end of stream (io.EOF, or a 0-byte read with no error)
	KindClosed                  // the endpoint itself is closed (EBADF, net.ErrClosed)
	KindPeerGone                // the peer is gone or the write side is shut (EPIPE, ECONNRESET, ENOTCONN)
	KindOther
)

var kindNames = [...]string{"none", "timeout", "eof", "closed", "peer gone", "other"}

func (k ErrKind) String() string { return kindNames[k] }

// Classify maps an error to its kind.
func Classify(err error) ErrKind {
	switch {
	case err == nil:
		return KindNone
	case errors.Is(err, io.EOF):
		return KindEOF
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.ETIMEDOUT):
		return KindTimeout
	case errors.Is(err, net.ErrClosed), errors.Is(err, syscall.EBADF):
		return KindClosed
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ENOTCONN):
		return KindPeerGone
	}
	return KindOther
}

// StreamOps is a fuzzed script of operations on both ends of a stream
// connection, each end run by its own coroutine of one env, checked against
// a model of two byte streams: every byte read is the next one the peer
// wrote, end of stream comes only after the peer shut its write side and
// every byte was read, operations on a closed end fail as closed, writes
// after shutting the write side fail, and the whole script ends (every
// blocking operation runs under a timeout of at most 20 ms).
//
// immediate says that a written byte is readable by the peer at once (a
// socketpair), so a read that times out while the model holds unread
// bytes is a lost wake-up; over TCP delivery may lag, so it is allowed.
type StreamOps struct {
	Script    []byte
	Immediate bool
}

// the model of one direction of the stream
type streamDir struct {
	written  int  // bytes the writer's Write calls reported written
	read     int  // bytes the reader consumed
	shut     bool // the writer shut its write side or closed
	readShut bool // the reader closed: writes may fail with EPIPE
}

// pattern is the byte at position i of every stream.
func pattern(i int) byte { return byte(i*7 + i>>8) }

const maxOps = 64

// Run runs the script on a and b (a's writes go to b and back) in two
// coroutines of e and returns the first violation of the model.
func (s StreamOps) Run(t testing.TB, e *stackful.Env, a, b Endpoint) error {
	var dirs [2]streamDir // 0: a->b, 1: b->a
	var scripts [2][]byte
	for i := 0; i+1 < len(s.Script) && i/2 < maxOps; i += 2 {
		side := s.Script[i] & 1
		scripts[side] = append(scripts[side], s.Script[i]>>1, s.Script[i+1])
	}
	var errs [2]error
	done := 0
	ends := [2]Endpoint{a, b}
	for side := range 2 {
		out, in := &dirs[side], &dirs[1-side]
		ep := ends[side]
		script := scripts[side]
		Spawn(e, func(co *stackful.Co) {
			defer func() { done++ }()
			errs[side] = runSide(co, ep, script, out, in, s.Immediate)
		})
	}
	RunUntil(t, e, 20*time.Second, func() bool { return done == 2 })
	return errors.Join(errs[0], errs[1])
}

// runSide runs one end's part of the script. out is the direction it
// writes, in the one it reads.
func runSide(co *stackful.Co, ep Endpoint, script []byte, out, in *streamDir, immediate bool) error {
	closed, wshut := false, false
	if err := ep.SetTimeout(20 * time.Millisecond); err != nil {
		return fmt.Errorf("set timeout: %w", err)
	}
	buf := make([]byte, 70_000)
	var trace strings.Builder
	fail := func(format string, args ...any) error {
		return fmt.Errorf(format+"\nops so far: %s", append(args, trace.String())...)
	}
	for i := 0; i+1 < len(script); i += 2 {
		op, arg := script[i]%6, int(script[i+1])
		switch op {
		case 0: // write
			n := 1 + arg*arg*3%65_000
			p := buf[:n]
			for j := range p {
				p[j] = pattern(out.written + j)
			}
			got, err := ep.Write(p)
			fmt.Fprintf(&trace, "write(%d)=%d,%v ", n, got, err)
			k := Classify(err)
			switch {
			case got < 0 || got > n:
				return fail("write of %d returned %d", n, got)
			case closed && k != KindClosed:
				return fail("write on a closed end: %v (%s), want closed", err, k)
			case !closed && wshut && k != KindPeerGone && k != KindClosed:
				return fail("write after CloseWrite: %v (%s), want EPIPE", err, k)
			case !closed && !wshut && k != KindNone && k != KindTimeout && !(k == KindPeerGone && out.readShut):
				return fail("write: unexpected %v (%s)", err, k)
			case k == KindNone && got != n:
				return fail("write of %d returned %d and no error", n, got)
			}
			if !closed && !wshut {
				out.written += got
			}
		case 1: // read
			n := 1 + arg*arg*3%65_000
			avail := in.written - in.read // a write during the wait may race with its timeout
			got, err := ep.Read(buf[:n])
			fmt.Fprintf(&trace, "read(%d)=%d,%v ", n, got, err)
			k := Classify(err)
			if got == 0 && err == nil {
				k = KindEOF
			}
			switch {
			case got < 0 || got > n:
				return fail("read of %d returned %d", n, got)
			case closed:
				if k != KindClosed {
					return fail("read on a closed end: %d, %v (%s), want closed", got, err, k)
				}
				continue
			case k == KindEOF && (!in.shut || in.read != in.written):
				return fail("end of stream with the peer shut=%v and %d of %d bytes read", in.shut, in.read, in.written)
			case k == KindTimeout && immediate && avail > 0:
				return fail("read timed out with %d unread bytes available when it began", avail)
			case k != KindNone && k != KindEOF && k != KindTimeout && !(k == KindPeerGone && in.shut):
				return fail("read: unexpected %v (%s)", err, k)
			}
			for j := range got {
				if buf[j] != pattern(in.read+j) {
					return fail("byte %d of the stream is %d, want %d", in.read+j, buf[j], pattern(in.read+j))
				}
			}
			in.read += got
			if in.read > in.written {
				return fail("read %d bytes, only %d were written", in.read, in.written)
			}
		case 2: // a shorter or longer timeout
			d := time.Duration(1+arg%20) * time.Millisecond
			err := ep.SetTimeout(d)
			fmt.Fprintf(&trace, "timeout(%v)=%v ", d, err)
			if err != nil && !closed {
				return fail("set timeout: %v", err)
			}
		case 3: // shut the write side
			err := ep.CloseWrite()
			fmt.Fprintf(&trace, "closewrite=%v ", err)
			if !closed {
				// Shutting a TCP write side again, or after the peer is gone,
				// fails with ENOTCONN, as it does on a plain socket.
				if err != nil && !(Classify(err) == KindPeerGone && (wshut || out.readShut || in.shut)) {
					return fail("CloseWrite: %v", err)
				}
				wshut, out.shut = true, true
			}
		case 4: // close, at most once the model's way; a second Close fails
			err := ep.Close()
			fmt.Fprintf(&trace, "close=%v ", err)
			if closed && err == nil {
				return fail("a second Close succeeded")
			}
			if !closed && err != nil {
				return fail("Close: %v", err)
			}
			closed, out.shut, in.readShut = true, true, true
		case 5: // let the other side run
			co.Sleep(time.Duration(arg%3) * time.Millisecond)
			trace.WriteString("sleep ")
		}
	}
	if !closed {
		ep.Close()
		out.shut, in.readShut = true, true
	}
	return nil
}

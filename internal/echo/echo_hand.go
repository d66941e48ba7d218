package echo

import "github.com/cogen-go/cogen/runtime/stackless"

// HandEchoFrame is [Echo] written by hand as a stackless frame, in the shape
// cogen generates: the fields are the parameters, the result and the values
// live across a suspension (buf and n: a Write that suspends is retried with
// buf[:n]); err is not live across one, so it stays a local of Step. Each
// suspending call is the first statement of its state, followed by the
// Blocked check, so that the retry after a wake-up re-runs it.
//
// A suspended HandEchoFrame is 128 bytes, and its task another 128.
type HandEchoFrame struct {
	stackless.Base
	fd  int
	r   error // the result
	buf [MsgSize]byte
	n   int
}

// NewHandEchoFrame returns the frame of a call Echo(co, fd).
func NewHandEchoFrame(fd int) *HandEchoFrame { return &HandEchoFrame{fd: fd} }

// Result returns what Echo returned, once the frame is Done.
func (f *HandEchoFrame) Result() error { return f.r }

// Step runs the frame to its next suspension or to its return.
func (f *HandEchoFrame) Step(co *stackless.Task) stackless.Status {
	for {
		switch f.PC {
		case 0: // n, err := co.Read(fd, buf[:])
			n, err := co.Read(f.fd, f.buf[:])
			if co.Blocked() {
				return stackless.Suspend
			}
			if err != nil {
				co.Close(f.fd)
				f.r = err
				return stackless.Done
			}
			if n == 0 {
				f.r = co.Close(f.fd)
				return stackless.Done
			}
			f.n = n
			f.PC = 1
			fallthrough
		case 1: // _, err := co.Write(fd, buf[:n])
			_, err := co.Write(f.fd, f.buf[:f.n])
			if co.Blocked() {
				return stackless.Suspend
			}
			if err != nil {
				co.Close(f.fd)
				f.r = err
				return stackless.Done
			}
			f.PC = 0
		}
	}
}

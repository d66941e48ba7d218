//go:build linux

package hook

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// A blockCase is a hooked call that has to wait until a trigger, run by
// another coroutine 30 ms later, lets it complete.
type blockCase struct {
	name  string
	setup func(t *testing.T) (op, trigger func(co *stackful.Co) error)
}

func expect(got []byte, want string) error {
	if string(got) != want {
		return fmt.Errorf("got %q, want %q", got, want)
	}
	return nil
}

// writeCase fills a stream socket's buffer; op then writes 256 KiB more
// with the call under test, which must wait until the trigger reads
// everything on the other side.
func writeCase(name string, call func(fd int, p []byte) (int, error)) blockCase {
	return blockCase{name, func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		a, b := socketpair(t, unix.SOCK_STREAM)
		filled := fillSendBuffer(t, a)
		payload := bytes.Repeat([]byte("x"), 256<<10)
		op = func(co *stackful.Co) error {
			n, err := call(a, payload)
			if err != nil || n != len(payload) {
				return fmt.Errorf("wrote %d, %v; want %d, nil", n, err, len(payload))
			}
			return nil
		}
		trigger = func(co *stackful.Co) error {
			buf := make([]byte, 64<<10)
			for got, want := 0, filled+len(payload); got < want; {
				n, err := Read(b, buf)
				if err != nil {
					return err
				}
				got += n
			}
			return nil
		}
		return op, trigger
	}}
}

func readCase(name string, typ int, call func(fd int, p []byte) (int, error)) blockCase {
	return blockCase{name, func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		a, b := socketpair(t, typ)
		op = func(co *stackful.Co) error {
			buf := make([]byte, 16)
			n, err := call(a, buf)
			if err != nil {
				return err
			}
			return expect(buf[:n], "ping")
		}
		trigger = func(co *stackful.Co) error {
			_, err := Write(b, []byte("ping"))
			return err
		}
		return op, trigger
	}}
}

var blockCases = []blockCase{
	readCase("read", unix.SOCK_STREAM, Read),
	readCase("readv", unix.SOCK_STREAM, func(fd int, p []byte) (int, error) {
		n, err := Readv(fd, [][]byte{p[:2], p[2:]})
		return n, err
	}),
	readCase("recv", unix.SOCK_STREAM, func(fd int, p []byte) (int, error) { return Recv(fd, p, 0) }),
	readCase("recvfrom", unix.SOCK_DGRAM, func(fd int, p []byte) (int, error) {
		n, _, err := Recvfrom(fd, p, 0)
		return n, err
	}),
	readCase("recvmsg", unix.SOCK_DGRAM, func(fd int, p []byte) (int, error) {
		n, _, _, _, err := Recvmsg(fd, p, nil, 0)
		return n, err
	}),
	writeCase("write", Write),
	writeCase("writev", func(fd int, p []byte) (int, error) {
		return Writev(fd, [][]byte{p[:1000], p[1000:]})
	}),
	writeCase("send", func(fd int, p []byte) (int, error) { return Send(fd, p, 0) }),
	writeCase("sendto", func(fd int, p []byte) (int, error) {
		if err := Sendto(fd, p, 0, nil); err != nil {
			return 0, err
		}
		return len(p), nil
	}),
	writeCase("sendmsg", func(fd int, p []byte) (int, error) {
		if err := Sendmsg(fd, p, nil, nil, 0); err != nil {
			return 0, err
		}
		return len(p), nil
	}),
	{"accept", func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		lfd, sa := listen(t, 8)
		op = func(co *stackful.Co) error {
			nfd, from, err := Accept(lfd)
			if err != nil {
				return err
			}
			defer Close(nfd)
			if _, ok := from.(*unix.SockaddrInet4); !ok {
				return fmt.Errorf("peer address %T", from)
			}
			return nil
		}
		trigger = func(co *stackful.Co) error {
			fd, err := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
			if err != nil {
				return err
			}
			defer Close(fd)
			return Connect(fd, sa)
		}
		return op, trigger
	}},
	{"poll", func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		a, b := socketpair(t, unix.SOCK_STREAM)
		c, _ := socketpair(t, unix.SOCK_STREAM)
		op = func(co *stackful.Co) error {
			fds := []unix.PollFd{{Fd: int32(c), Events: unix.POLLIN}, {Fd: int32(a), Events: unix.POLLIN}}
			n, err := Poll(fds, -1)
			if err != nil {
				return err
			}
			if n != 1 || fds[0].Revents != 0 || fds[1].Revents&unix.POLLIN == 0 {
				return fmt.Errorf("poll = %d, revents %#x %#x", n, fds[0].Revents, fds[1].Revents)
			}
			return nil
		}
		trigger = func(co *stackful.Co) error {
			_, err := Write(b, []byte("x"))
			return err
		}
		return op, trigger
	}},
	{"usleep", func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		return func(co *stackful.Co) error { return Usleep(40000) }, nil
	}},
	{"nanosleep", func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		return func(co *stackful.Co) error {
			var left unix.Timespec
			err := Nanosleep(&unix.Timespec{Nsec: 40e6}, &left)
			if left != (unix.Timespec{}) {
				return fmt.Errorf("leftover %v after a full sleep", left)
			}
			return err
		}, nil
	}},
	{"offload", func(t *testing.T) (op, trigger func(co *stackful.Co) error) {
		return func(co *stackful.Co) error {
			var v int
			Offload(func() { time.Sleep(40 * time.Millisecond); v = 42 })
			if v != 42 {
				return fmt.Errorf("offloaded func's result %d", v)
			}
			return nil
		}, nil
	}},
}

// TestHookedCallsYield checks that each hooked call, waiting in a
// coroutine, lets the env's other coroutines run: a ticker keeps ticking.
func TestHookedCallsYield(t *testing.T) {
	for _, c := range blockCases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			op, trigger := c.setup(t)
			tk := startTicker(e)
			var opErr, trigErr error
			opDone, trigDone := false, trigger == nil
			var ticks int
			var took time.Duration
			spawn(e, func(co *stackful.Co) {
				t0, n0 := time.Now(), tk.N
				opErr = op(co)
				took, ticks = time.Since(t0), tk.N-n0
				opDone = true
			})
			if trigger != nil {
				spawn(e, func(co *stackful.Co) {
					co.Sleep(30 * time.Millisecond)
					trigErr = trigger(co)
					trigDone = true
				})
			}
			runUntil(t, e, 10*time.Second, func() bool { return opDone && trigDone })
			tk.Stop = true
			runUntil(t, e, time.Second, func() bool { return tk.Done })
			if opErr != nil {
				t.Fatalf("call: %v", opErr)
			}
			if trigErr != nil {
				t.Fatalf("trigger: %v", trigErr)
			}
			if took < 25*time.Millisecond {
				t.Errorf("call returned after %v, before it could complete", took)
			}
			// A call that blocked the env's thread would let no other
			// coroutine run while it waited. One tick is what a loaded
			// machine guarantees: a loop that gets no core for the whole
			// wait fires the ticker's timer and the call's in one
			// iteration, the ticker's first.
			if ticks < 1 {
				t.Errorf("ticker advanced %d times while the call waited %v: the call blocked the env", ticks, took)
			}
		})
	}
}

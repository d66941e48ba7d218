//go:build linux

package stackless_test

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// greetFrame writes "hello" to its connection and closes it: in the shape
// cogen generates,
//
//	func greet(co *stackless.Task, fd int) {
//		co.Write(fd, []byte("hello"))
//		co.Close(fd)
//	}
type greetFrame struct {
	stackless.Base
	fd int
}

func (f *greetFrame) Step(t *stackless.Task) stackless.Status {
	t.Write(f.fd, []byte("hello"))
	if t.Blocked() {
		return stackless.Suspend
	}
	t.Close(f.fd)
	return stackless.Done
}

// A server on one loop: a client reads its greeting, then the server shuts
// down, waiting up to a second for its connections.
func ExampleServeTCP() {
	l, err := loop.New()
	if err != nil {
		panic(err)
	}
	defer l.Close()
	s, err := stackless.ServeTCP(l, "tcp4", "127.0.0.1:0", func(fd int) stackless.Frame { return &greetFrame{fd: fd} })
	if err != nil {
		panic(err)
	}
	done := make(chan string, 1)
	go func() {
		c, err := net.Dial("tcp4", s.Addr().String())
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(c)
		c.Close()
		done <- string(b)
		l.Wake()
	}()
	var reply string
	l.Run(func() bool {
		select {
		case reply = <-done:
			return true
		default:
			return false
		}
	})
	fmt.Println(reply)
	fmt.Println(s.Shutdown(time.Second))
	// Output:
	// hello
	// <nil>
}

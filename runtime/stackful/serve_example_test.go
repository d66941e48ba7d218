//go:build linux

package stackful_test

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// An echo server on one env: a client exchanges a line, then the server
// shuts down, waiting up to a second for its connections.
func ExampleEnv_ServeTCP() {
	env, err := stackful.NewEnv()
	if err != nil {
		panic(err)
	}
	defer env.Close()
	s, err := env.ServeTCP("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		var buf [64]byte
		for {
			n, err := co.Read(fd, buf[:])
			if err != nil || n == 0 {
				return
			}
			if _, err := co.Write(fd, buf[:n]); err != nil {
				return
			}
		}
	})
	if err != nil {
		panic(err)
	}
	done := make(chan string, 1)
	go func() {
		c, err := net.Dial("tcp4", s.Addr().String())
		if err != nil {
			panic(err)
		}
		c.Write([]byte("hello"))
		buf := make([]byte, 5)
		io.ReadFull(c, buf)
		c.Close()
		done <- string(buf)
		env.Wake()
	}()
	var reply string
	env.Run(func() bool {
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

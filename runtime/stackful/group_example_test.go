//go:build linux

package stackful_test

import (
	"bufio"
	"fmt"
	"net"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// A group runs one env per core (here two), each on a goroutine locked to
// its thread. ServeTCP gives every env an SO_REUSEPORT listener on the same
// port and a coroutine per connection; Shutdown closes the listeners, lets
// the connections finish for up to a second, and closes the envs.
func ExampleGroup_ServeTCP() {
	g, err := stackful.NewGroup(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	addr, err := g.ServeTCP("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		buf := make([]byte, 64)
		n, err := co.Read(fd, buf)
		if err == nil {
			co.Write(fd, append([]byte("hello, "), buf[:n]...))
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _ := net.Dial("tcp", addr.String())
	fmt.Fprint(c, "gopher\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	fmt.Print(line)

	// Go starts a coroutine on a chosen env (GoNext: round-robin).
	done := make(chan string, 1) // buffered: the coroutine's send never waits
	g.Go(1, func(co *stackful.Co) {
		co.Sleep(time.Millisecond)
		done <- fmt.Sprint("env 1 is ", co.Env() == g.Env(1))
	})
	fmt.Println(<-done)
	fmt.Println(g.Shutdown(time.Second))
	// Output:
	// hello, gopher
	// env 1 is true
	// <nil>
}

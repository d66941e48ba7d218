//go:build linux

package conet_test

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
)

// A line-upcasing server and a client, written against net.Conn with bufio,
// running as coroutines of one env.
func Example() {
	env, _ := stackful.NewEnv()
	defer env.Close()
	ln, _ := conet.Listen("tcp", "127.0.0.1:0")

	server := env.Create(func(co *stackful.Co) {
		conet.Serve(co, ln, func(co *stackful.Co, c net.Conn) {
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() { // waits on the loop
				fmt.Fprintln(c, strings.ToUpper(sc.Text()))
			}
		}, nil)
	}, nil)
	server.Resume()

	var replies []string
	client := env.Create(func(co *stackful.Co) {
		co.EnableHook()
		c, err := conet.Dial("tcp", ln.Addr().String())
		if err != nil {
			panic(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		for _, line := range []string{"hello", "coroutines"} {
			fmt.Fprintln(c, line)
			reply, _ := r.ReadString('\n')
			replies = append(replies, strings.TrimSpace(reply))
		}
	}, nil)
	client.Resume()

	env.Run(func() bool { return client.Status() == stackful.Dead })
	ln.Close()
	fmt.Println(strings.Join(replies, " "))
	// Output: HELLO COROUTINES
}

// Multi-core: one env per goroutine, each with its own SO_REUSEPORT
// listener on the same port.
func ExampleListenReusePort() {
	first, _ := conet.ListenReusePort("tcp4", "127.0.0.1:0")
	second, _ := conet.ListenReusePort("tcp4", first.Addr().String())
	fmt.Println(first.Addr().String() == second.Addr().String())
	first.Close()
	second.Close()
	// Output: true
}

// A server that serves at most 100 connections at once and drops a client
// silent for 30 seconds: the bound pauses accepting, a deadline bounds each
// wait for a line.
func ExampleServeConns() {
	env, _ := stackful.NewEnv()
	defer env.Close()
	ln, _ := conet.Listen("tcp", "127.0.0.1:0")
	env.Create(func(co *stackful.Co) {
		conet.ServeConns(co, ln, 100, func(co *stackful.Co, c net.Conn) {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				line, err := r.ReadString('\n') // fails with os.ErrDeadlineExceeded when idle
				if err != nil {
					return
				}
				c.Write([]byte(strings.ToUpper(line)))
			}
		}, nil)
	}, nil).Resume()
	ln.Close() // the server ends with its listener
	env.Run(func() bool { return env.Live() == 0 })
	fmt.Println("served")
	// Output: served
}

// Multi-core with a group: one env per core, each serving net.Conn
// connections from its own SO_REUSEPORT listener; Shutdown closes the
// listeners and lets open connections finish for up to a second.
func ExampleServeGroup() {
	g, err := stackful.NewGroup(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	addr, _ := conet.ServeGroup(g, "tcp4", "127.0.0.1:0", func(co *stackful.Co, c net.Conn) {
		defer c.Close()
		line, err := bufio.NewReader(c).ReadString('\n')
		if err == nil {
			c.Write([]byte(strings.ToUpper(line)))
		}
	}, nil)
	c, _ := net.Dial("tcp4", addr.String())
	fmt.Fprint(c, "hello\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	fmt.Print(line)
	fmt.Println(g.Shutdown(time.Second))
	// Output:
	// HELLO
	// <nil>
}

//go:build linux

package loop_test

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// A group runs one loop per core, each on a goroutine locked to its thread.
// Here every loop keeps a counter that only its own goroutine touches; work
// is spread round-robin from the outside with Next and Submit, and loop 0
// hands a result over to loop 1 the same way.
func ExampleGroup() {
	const n = 2
	counts := make([]int, n)
	g, err := loop.StartGroup(loop.GroupConfig{Loops: n})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 10 {
		i := g.Next()
		g.Submit(i, func() { counts[i]++ })
	}
	done := make(chan string)
	g.Submit(0, func() {
		sum := counts[0]
		g.Submit(1, func() { done <- fmt.Sprint("loop 0 counted ", sum, ", loop 1 ", counts[1]) })
	})
	fmt.Println(<-done)
	fmt.Println(g.Shutdown(time.Second))
	// Output:
	// loop 0 counted 5, loop 1 5
	// <nil>
}

// ListenTCP with reusePort lets every loop of a group listen on one port:
// bind the first to port 0, the others to the port it got.
func ExampleListenTCP() {
	first, addr, err := loop.ListenTCP("tcp4", "127.0.0.1:0", true)
	if err != nil {
		fmt.Println(err)
		return
	}
	second, addr2, err := loop.ListenTCP("tcp4", addr.String(), true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(addr.Port == addr2.Port, addr.Port != 0)
	unix.Close(first)
	unix.Close(second)
	// Output: true true
}

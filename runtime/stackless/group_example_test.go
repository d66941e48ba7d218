//go:build linux

package stackless_test

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// countFrame is the stackless form of
//
//	func count(t *stackless.Task, n int, out chan<- int) {
//		for i := 0; i < n; i++ {
//			t.Gosched()
//		}
//		out <- n // the channel has room: it does not block the loop
//	}
type countFrame struct {
	stackless.Base
	i, n int
	out  chan<- int
}

func (f *countFrame) Step(t *stackless.Task) stackless.Status {
	for ; f.i < f.n; f.i++ {
		t.Gosched() // retried on wake-up, which it then consumes
		if t.Blocked() {
			return stackless.Suspend
		}
	}
	f.out <- f.n
	return stackless.Done
}

// A group runs one loop per core (here two), each on a goroutine locked to
// its thread; SpawnNext places tasks round-robin, and Shutdown waits for
// them before closing the loops.
func ExampleGroup() {
	g, err := stackless.NewGroup(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make(chan int, 4)
	for n := range 4 {
		i, _ := g.SpawnNext(&countFrame{n: 10 * n, out: out})
		fmt.Println("task", n, "on loop", i)
	}
	fmt.Println(g.Shutdown(time.Second))
	close(out)
	sum := 0
	for n := range out {
		sum += n
	}
	fmt.Println("counted", sum)
	// Output:
	// task 0 on loop 0
	// task 1 on loop 1
	// task 2 on loop 0
	// task 3 on loop 1
	// <nil>
	// counted 60
}

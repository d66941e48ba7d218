package sleep

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run sleeps in a loop and calls a child that yields the loop.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	sum := 0
	n := 3 + t.Rand.Intn(3)
	for i := 0; i < n; i++ {
		co.Sleep(time.Duration(t.Rand.Intn(2)) * time.Millisecond)
		sum += double(co, i)
		t.Printf("tick %d sum %d", i, sum)
	}
	t.Printf("done %d", sum)
}

//co:stackless
func double(co *stackful.Co, x int) int {
	co.Gosched()
	return 2 * x
}

package rangefuncpanic

import (
	"fmt"
	"iter"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// count yields 0..n-1 and reports when it finishes, as its own deferred
// call: a panic in the loop body unwinds the iterator function first.
func count(t *trace.T, name string, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer t.Printf("iterator %s cleans up", name)
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// Run covers panics that leave range-over-func loops whose bodies suspend:
// the iterators (nested ones innermost first) finish before the frame's
// deferred calls run, and the function that recovers goes on.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for k := 0; k < 3; k++ {
		t.Printf("loops(%d) = %s", k, loops(co, t, k+t.Rand.Intn(2)))
		co.Gosched()
	}
}

//co:stackless
func loops(co *stackful.Co, t *trace.T, k int) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprint("recovered ", r)
		}
	}()
	defer t.Printf("frame's deferred call")
	for i := range count(t, "outer", 3) {
		for j := range count(t, "inner", 3) {
			co.Gosched()
			if i+j == k {
				panic(fmt.Sprint("at ", i, j))
			}
		}
	}
	return "no panic"
}

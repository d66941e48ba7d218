package panicunwind

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers a panic unwinding a deep chain of recursive frames, each with
// deferred calls that run innermost first, some recovering and panicking
// again with a new value on the way up.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	depth := 3 + t.Rand.Intn(3)
	t.Printf("result %q", top(co, t, depth))
}

//co:stackless
func top(co *stackful.Co, t *trace.T, depth int) (s string) {
	defer func() { s = fmt.Sprint("top recovered: ", recover()) }()
	down(co, t, depth)
	return "no panic"
}

//co:stackless
func down(co *stackful.Co, t *trace.T, n int) {
	defer t.Printf("unwinding level %d", n)
	if n%3 == 0 {
		defer func() {
			r := recover()
			panic(fmt.Sprintf("level %d saw [%v]", n, r))
		}()
	}
	co.Gosched()
	if n == 0 {
		panic("bottom")
	}
	down(co, t, n-1)
	t.Printf("not reached %d", n)
}

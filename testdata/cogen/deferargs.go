package deferargs

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers the evaluation at a defer statement: the function value and
// then the arguments, in order, with their side effects then and not at
// the call; a deferred function variable reassigned after the defer; a
// deferred method on a value receiver copied at the defer; and a deferred
// builtin.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	n := 0
	arg := func(name string) int {
		n++
		t.Printf("evaluating %s (%d)", name, n)
		return n
	}
	get := func(name string) func(a, b int) {
		t.Printf("evaluating function %s", name)
		return func(a, b int) { t.Printf("called %s(%d, %d)", name, a, b) }
	}
	defer get("f")(arg("a"), arg("b"))
	fv := func() { t.Printf("first function value") }
	defer fv()
	fv = func() { t.Printf("second function value") }
	c := counter{t: t}
	defer c.show()
	c.n = 100
	ch := make(chan int, 1)
	defer close(ch)
	co.Gosched()
	t.Printf("body ends, n %d", arg("c"))
	fv()
}

type counter struct {
	t *trace.T
	n int
}

func (c counter) show() { c.t.Printf("counter copy %d", c.n) }

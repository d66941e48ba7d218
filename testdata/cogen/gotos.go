package gotos

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers goto forward and backward across suspension points, and a
// variable captured by address in a loop made of goto.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	i := 0
	var ptrs []*int
again:
	x := i * 10
	ptrs = append(ptrs, &x)
	co.Gosched()
	i++
	if i < 3 {
		goto again
	}
	for _, p := range ptrs {
		t.Printf("goto loop var %d", *p)
	}
	n := t.Rand.Intn(4)
	if n == 0 {
		goto zero
	}
	co.Gosched()
	t.Printf("nonzero %d", n)
	goto end
zero:
	co.Gosched()
	t.Printf("zero")
end:
	for j := 0; j < 3; j++ {
		if j == 1 {
			goto skip
		}
		t.Printf("j %d", j)
	}
skip:
	t.Printf("done")
}

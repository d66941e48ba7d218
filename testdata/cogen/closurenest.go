package closurenest

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers closures that suspend nested three deep, each level with its
// own variables captured by the levels inside it, handle parameters with
// other names, and results passed back up.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	x := t.Rand.Intn(5)
	outer := func(c1 *stackful.Co) int {
		y := x * 2
		middle := func(c2 *stackful.Co) int {
			z := y + 1
			inner := func() int {
				c2.Gosched()
				x++
				y++
				z++
				return x + y + z
			}
			r := inner()
			c2.Sleep(0)
			return r + inner()
		}
		r := middle(c1)
		t.Printf("outer sees y %d", y)
		return r
	}
	t.Printf("result %d, x %d", outer(co), x)
	t.Printf("shadow %d", shadow(co, t))
}

// shadow has a local named like the constructor of its literal's frame:
// the generated names do not capture it.
//
//co:stackless
func shadow(co *stackful.Co, t *trace.T) int {
	newShadowFunc1Frame := 2
	f := func() int {
		co.Gosched()
		return newShadowFunc1Frame * 3
	}
	return f()
}

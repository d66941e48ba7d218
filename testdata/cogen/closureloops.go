package closureloops

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers closures that suspend defined inside loops: each iteration's
// closure captures that iteration's variables (Go 1.22 loop variables
// included), is called after suspensions in the same iteration, and
// changes variables of the function that outlive the loop.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var seen []int
	for i := range 3 {
		v := i * t.Rand.Intn(4)
		bump := func(d int) int {
			co.Gosched()
			v += d
			seen = append(seen, v)
			return v
		}
		co.Gosched()
		bump(1)
		t.Printf("iteration %d: %d", i, bump(i))
	}
	t.Printf("seen %v", seen)
	words := []string{"a", "bb", "ccc"}
	total := 0
	for _, w := range words {
		func(c *stackful.Co) {
			for j := 0; j < len(w); j++ {
				c.Gosched()
				total += j
			}
		}(co)
	}
	t.Printf("total %d", total)
}

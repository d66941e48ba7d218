package terminating

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers functions that end in terminating statements other than
// return: an infinite loop left by return, and a panic.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	t.Printf("loop %d", loop(co, t.Rand.Intn(5)))
	t.Printf("sign %d", sign(co, t.Rand.Intn(3)-1))
}

//co:stackless
func loop(co *stackful.Co, n int) int {
	i := 0
	for {
		co.Gosched()
		if i >= n {
			return i
		}
		i++
	}
}

//co:stackless
func sign(co *stackful.Co, x int) int {
	co.Gosched()
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	case x == 0:
		return 0
	}
	panic("unreachable")
}

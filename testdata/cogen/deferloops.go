package deferloops

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type resource struct {
	name string
	t    *trace.T
}

func (r *resource) Close() error {
	r.t.Printf("close %s", r.name)
	return nil
}

func open(t *trace.T, name string) *resource {
	t.Printf("open %s", name)
	return &resource{name, t}
}

// Run covers defers in loops whose bodies suspend, defers of method values
// (a receiver evaluated at the defer), deferred calls whose arguments
// suspend, and a defer that reads a variable changed after suspensions.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	n := 2 + t.Rand.Intn(3)
	for i := 0; i < n; i++ {
		r := open(t, fmt.Sprint("r", i))
		defer r.Close()
		co.Gosched()
		if i == 1 {
			r = open(t, "replacement") // the deferred call keeps the old receiver
		}
	}
	count := 0
	defer func() { t.Printf("count at exit %d", count) }()
	for _, w := range []string{"x", "y"} {
		defer t.Printf("deferred %s with %d", w, nested(co, t, len(w)))
		count++
		co.Sleep(0)
	}
	t.Printf("body done, %d resources", process(co, t, n))
}

// nested suspends; its result is an argument of a deferred call.
//
//co:stackless
func nested(co *stackful.Co, t *trace.T, k int) int {
	co.Gosched()
	return k * 7
}

// process opens and closes resources around suspensions, returning early
// from inside a loop: every deferred Close runs once.
//
//co:stackless
func process(co *stackful.Co, t *trace.T, n int) (opened int) {
	defer func() { t.Printf("process returns %d", opened) }()
	for i := 0; ; i++ {
		r := open(t, fmt.Sprint("p", i))
		defer r.Close()
		opened++
		co.Gosched()
		if opened == n {
			return
		}
	}
}

package namedresults

import (
	"errors"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers deferred closures and named results: a result assigned by
// return and changed by several deferred closures in order, results shared
// with a closure that suspends, an error wrapped on the way out, and bare
// returns after suspensions.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	a, b := order(co, t.Rand.Intn(10))
	t.Printf("order %d %s", a, b)
	t.Printf("wrap: %v", wrap(co, true))
	t.Printf("wrap: %v", wrap(co, false))
	t.Printf("shared %d", shared(co, 3))
}

//co:stackless
func order(co *stackful.Co, x int) (n int, s string) {
	defer func() { n *= 2; s += "-first" }()
	defer func() { n++; s += "-second" }()
	co.Gosched()
	return x, "ret"
}

var errBase = errors.New("base")

//co:stackless
func wrap(co *stackful.Co, fail bool) (err error) {
	defer func() {
		if err != nil {
			err = errors.Join(errors.New("wrapped"), err)
		}
	}()
	co.Sleep(0)
	if fail {
		return errBase
	}
	return
}

//co:stackless
func shared(co *stackful.Co, k int) (total int) {
	add := func(d int) {
		co.Gosched()
		total += d
	}
	defer func() { total = -total }()
	for i := 0; i < k; i++ {
		add(i + 1)
	}
	return
}

package closurecapture

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run checks suspending literals that call other suspending literals
// capturing variables the caller does not name itself: the caller suspends
// through them (even without a suspension point of its own) and passes
// them what they capture.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	counter := 0
	next := func() int {
		co.Gosched()
		counter++
		return counter
	}
	pair := func() (int, int) {
		return next(), next()
	}
	a, b := pair()
	t.Printf("pair %d %d counter %d", a, b, counter)
	// twice does not suspend itself but calls add, which does.
	total := 0
	add := func(n int) {
		co.Gosched()
		total += n
	}
	twice := func(n int) {
		add(n)
		add(n * 10)
	}
	twice(2)
	t.Printf("total %d", total)
	// Three levels.
	depth := 0
	inner := func() {
		co.Gosched()
		depth++
	}
	middle := func() {
		inner()
		inner()
	}
	outer := func() {
		middle()
		co.Gosched()
		middle()
	}
	outer()
	t.Printf("depth %d", depth)
	// The caller suspends itself too.
	calls := 0
	tick := func() int {
		co.Gosched()
		calls++
		return calls
	}
	both := func() (int, int) {
		co.Gosched()
		return tick(), tick()
	}
	x, y := both()
	t.Printf("both %d %d calls %d", x, y, calls)
}

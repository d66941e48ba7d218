package suspclosures

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers function literals that suspend: called at once or through a
// local variable, capturing the handle or taking it as first parameter,
// with results, sharing the variables they capture with the function (and
// with each other) by reference, per loop iteration, nested, and with
// defers of their own.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	total := 0
	step := func(d int) int {
		co.Gosched()
		total += d
		return total
	}
	for i := 0; i < 3; i++ {
		t.Printf("step %d", step(i+t.Rand.Intn(3)))
	}
	t.Printf("total %d", total)

	// Taking the handle as parameter.
	sleepy := func(c *stackful.Co, name string) (string, error) {
		c.Sleep(0)
		return name + "!", nil
	}
	s, err := sleepy(co, "hi")
	t.Printf("sleepy %s %v", s, err)

	// Called at once, capturing a loop variable per iteration.
	for i := 0; i < 3; i++ {
		v := i * 10
		func() {
			co.Gosched()
			v++
			t.Printf("iteration %d v %d", i, v)
		}()
		t.Printf("after literal v %d", v)
	}

	// Two literals share a variable; a nested literal suspends too.
	n := 0
	inc := func() {
		co.Gosched()
		n++
	}
	twice := func() {
		inc()
		inner := func(k int) {
			co.Sleep(0)
			n += k
		}
		inner(100)
		inc()
	}
	twice()
	t.Printf("n %d", n)

	// A literal with its own defer and a named result.
	r := func() (out int) {
		defer func() { out *= 2 }()
		co.Gosched()
		return n
	}()
	t.Printf("r %d", r)

	// A literal that changes a parameter and a result of the function.
	t.Printf("param %d", param(co, t, 5))
}

//co:stackless
func param(co *stackful.Co, t *trace.T, p int) (res int) {
	bump := func() {
		co.Gosched()
		p++
		res = p * 2
	}
	bump()
	bump()
	return
}

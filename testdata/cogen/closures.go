package closures

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers closures that do not suspend but capture variables living
// across suspensions, in loops (one variable per iteration) and outside.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	total := 0
	add := func(d int) { total += d }
	for i := 0; i < 3; i++ {
		co.Gosched()
		add(i)
	}
	t.Printf("total %d", total)
	var getters []func() int
	for i := 0; i < 3; i++ {
		v := i * t.Rand.Intn(5)
		getters = append(getters, func() int { return v })
		co.Gosched()
		v++
	}
	for _, g := range getters {
		t.Printf("getter %d", g())
	}
	x := 1
	inc := func() { x++ }
	co.Gosched()
	inc()
	inc()
	t.Printf("x %d", x)
	y := 10
	py := &y
	co.Gosched()
	y = 20
	t.Printf("through pointer %d", *py)
	counter := func() func() int {
		n := 0
		return func() int { n++; return n }
	}()
	co.Gosched()
	counter()
	t.Printf("counter %d", counter())
}

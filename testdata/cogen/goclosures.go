// Package goclosures ports $GOROOT/test/closure.go (closures capture
// variables, not values: assignments after the closure is made, inside it
// and in nested closures are all seen; accumulator generators keep their
// own state) with suspensions between the captures and the calls, and in
// suspending closures. The original sends the values on a channel checked
// by main; the port records them.
package goclosures

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var got []int
	c := func(v int) { got = append(got, v) }
	f(co, c)
	t.Printf("f: %v (want [1 4 5 4])", got)

	got = nil
	a := accum(0)
	b := accum(1)
	g(co, c, a, b)
	t.Printf("g: %v (want [2 4 6 9])", got)

	got = nil
	h(co, c)
	t.Printf("h: %v (want [100 200 101 201 500 101 201 500])", got)

	x, y := newfunc(), newfunc()
	co.Gosched()
	t.Printf("newfunc: %d %d (want 1 2)", x(1), y(2))

	got = nil
	loops(co, c)
	t.Printf("loops: %v (want [0 1 2 0 10 20])", got)
}

//co:stackless
func f(co *stackful.Co, c func(int)) {
	var i, j int

	i = 1
	j = 2
	f := func() {
		c(i)
		i = 4
		g := func() {
			c(i)
			c(j)
		}
		g()
		c(i)
	}
	co.Gosched()
	j = 5
	f()
}

// accum is an accumulator generator.
func accum(n int) func(int) int {
	return func(i int) int {
		n += i
		return n
	}
}

//co:stackless
func g(co *stackful.Co, c func(int), a, b func(int) int) {
	c(a(2))
	co.Gosched()
	c(b(3))
	c(a(4))
	co.Gosched()
	c(b(5))
}

//co:stackless
func h(co *stackful.Co, c func(int)) {
	var x8 byte = 100
	var x64 int64 = 200

	c(int(x8))
	c(int(x64))
	f := func(co *stackful.Co, z int) {
		g := func() {
			c(int(x8))
			c(int(x64))
			c(z)
		}
		co.Gosched()
		g()
		c(int(x8))
		c(int(x64))
		c(int(z))
	}
	co.Gosched()
	x8 = 101
	x64 = 201
	f(co, 500)
}

func newfunc() func(int) int { return func(x int) int { return x } }

// loops: each iteration's variable is a new one (Go 1.22), captured by
// closures made before a suspension and called after the loop.
//
//co:stackless
func loops(co *stackful.Co, c func(int)) {
	var fs []func()
	for i := 0; i < 3; i++ {
		fs = append(fs, func() { c(i) })
		co.Gosched()
	}
	for _, v := range []int{0, 10, 20} {
		co.Gosched()
		fs = append(fs, func() { c(v) })
	}
	for _, f := range fs {
		f()
	}
}

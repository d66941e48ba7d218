// Package goreorder is $GOROOT/test/reorder.go (the two phases of an
// assignment: index and indirection operands on the left and the values on
// the right first, in order, then the stores from left to right) with
// suspensions in the operands. Where the original panics on a wrong
// result, the port records the result: the differential test compares it
// between the models, and the golden trace shows the values gc gives.
package goreorder

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs every case of reorder.go.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	p1(co, t)
	p2(co, t)
	p3(co, t)
	p4(co, t)
	p5(co, t)
	p6(co, t)
	p7(co, t)
	p8(co, t)
	p9(co, t)
	p10(co, t)
	p11(co, t)
}

// num returns v after a suspension.
//
//co:stackless
func num(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

// truth returns v after a suspension.
//
//co:stackless
func truth(co *stackful.Co, v bool) bool {
	co.Gosched()
	return v
}

func check(t *trace.T, name string, x []int, x0, x1, x2 int) {
	t.Printf("%s: %v (want %d,%d,%d)", name, x, x0, x1, x2)
}

func check3(t *trace.T, name string, x, y, z, xx, yy, zz int) {
	t.Printf("%s: %d,%d,%d (want %d,%d,%d)", name, x, y, z, xx, yy, zz)
}

//co:stackless
func p1(co *stackful.Co, t *trace.T) {
	x := []int{1, 2, 3}
	i := 0
	i, x[i] = 1, num(co, 100)
	_ = i
	check(t, "p1", x, 100, 2, 3)
}

//co:stackless
func p2(co *stackful.Co, t *trace.T) {
	x := []int{1, 2, 3}
	i := 0
	x[i], i = num(co, 100), 1
	_ = i
	check(t, "p2", x, 100, 2, 3)
}

// gx is per run: both models run at once.
func f(gx []int, i int) int {
	return gx[i]
}

//co:stackless
func p3(co *stackful.Co, t *trace.T) {
	x := []int{1, 2, 3}
	y := x
	gx := x
	x[1], y[0] = f(gx, 0), num(co, f(gx, 1))
	check(t, "p3", x, 2, 1, 3)
	x = []int{1, 2, 3}
	y = x
	gx = x
	x[1], y[0] = num(co, f(gx, 0)), f(gx, 1)
	check(t, "p3 (suspension first)", x, 2, 1, 3)
}

//co:stackless
func p4(co *stackful.Co, t *trace.T) {
	x := []int{1, 2, 3}
	y := x
	gx := x
	x[1], y[0] = gx[0], num(co, gx[1])
	check(t, "p4", x, 2, 1, 3)
	x = []int{1, 2, 3}
	y = x
	gx = x
	x[num(co, 1)], y[0] = gx[0], gx[1]
	check(t, "p4 (suspending index)", x, 2, 1, 3)
}

//co:stackless
func p5(co *stackful.Co, t *trace.T) {
	x := []int{1, 2, 3}
	y := x
	p := &x[0]
	q := &x[1]
	*p, *q = x[1], num(co, y[0])
	check(t, "p5", x, 2, 1, 3)
}

//co:stackless
func p6(co *stackful.Co, t *trace.T) {
	x := 1
	y := 2
	z := 3
	px := &x
	py := &y
	*px, *py = y, num(co, x)
	check3(t, "p6", x, y, z, 2, 1, 3)
}

func f1(x, y, z int) (xx, yy, zz int) {
	return x, y, z
}

//co:stackless
func f2(co *stackful.Co) (x, y, z int) {
	co.Gosched()
	return f1(2, 1, 3)
}

//co:stackless
func p7(co *stackful.Co, t *trace.T) {
	x, y, z := f2(co)
	check3(t, "p7", x, y, z, 2, 1, 3)
}

//co:stackless
func p8(co *stackful.Co, t *trace.T) {
	m := make(map[int]int)
	m[0] = num(co, len(m))
	t.Printf("p8: m[0] = %d (want 0)", m[0])
	m[num(co, 1)] = len(m)
	t.Printf("p8: m[1] = %d (want 1)", m[1])
}

//co:stackless
func fn(co *stackful.Co) (bool, bool) {
	co.Gosched()
	return false, true
}

// p9: issue 13433, the left-to-right assignment of OAS2XXX nodes.
//
//co:stackless
func p9(co *stackful.Co, t *trace.T) {
	var x bool

	// OAS2FUNC
	x, x = fn(co)
	t.Printf("p9: x, x = fn() gives %v (want true)", x)

	// OAS2RECV
	var c = make(chan bool, 10)
	c <- truth(co, false) //co:blocking
	x, x = <-c            //co:blocking
	t.Printf("p9: x, x = <-c gives %v (want true)", x)

	// OAS2MAPR
	var m = map[int]bool{0: truth(co, false)}
	x, x = m[0]
	t.Printf("p9: x, x = m[0] gives %v (want true)", x)

	// OAS2DOTTYPE
	var i interface{} = truth(co, false)
	x, x = i.(bool)
	t.Printf("p9: x, x = i.(bool) gives %v (want true)", x)
}

//co:stackless
func fp(co *stackful.Co) (*int, int) {
	co.Gosched()
	return nil, 42
}

//co:stackless
func p10(co *stackful.Co, t *trace.T) {
	p := new(int)
	old := p
	p, *p = fp(co)
	t.Printf("p10: p == nil %v, *old = %d (want true, 42)", p == nil, *old)
}

//co:stackless
func p11(co *stackful.Co, t *trace.T) {
	var i interface{}
	p := new(bool)
	*p = truth(co, true)
	old := p
	p, *p = i.(*bool)
	t.Printf("p11: p == nil %v, *old = %v (want true, false)", p == nil, *old)
}

// Package goescape ports $GOROOT/test/escape.go (a pointer to a local, a
// parameter, a select or range variable or a result outlives its function,
// each call's variable is a new one, and the variables declared outside a
// loop are one variable for all iterations) with a suspension between
// taking each address and returning it: the stackless frame keeps such
// variables in boxes that must be as distinct, or as shared, as gc's. The
// goroutines of the original are gone (the values are in buffered
// channels); where it prints "BUG", the port records what it checked.
package goescape

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// checker is escape.go's allptr and bad, per run: both models run at once.
type checker struct {
	t      *trace.T
	allptr []*int
}

func (c *checker) noalias(p, q *int, s string) {
	n := len(c.allptr)
	*p = -(n + 1)
	*q = -(n + 2)
	c.allptr = append(c.allptr, p, q)
	n += 2
	for i := 0; i < n; i++ {
		if c.allptr[i] != nil && *c.allptr[i] != -(i+1) {
			c.t.Printf("aliased pointers %d %d after %s", -(i + 1), *c.allptr[i], s)
			c.allptr[i] = nil
		}
	}
}

func (c *checker) val(p, q *int, v int, s string) {
	c.t.Printf("%s: %d %d (want %d %d)", s, *p, *q, v, v+1)
}

func (c *checker) chk(p, q *int, v int, s string) {
	c.val(p, q, v, s)
	c.noalias(p, q, s)
}

func (c *checker) chkalias(p, q *int, v int, s string) {
	c.t.Printf("%s: aliased %v, %d (want true %d)", s, p == q, *q, v+1)
}

//co:stackless
func iEscapes(co *stackful.Co, x int) *int {
	var i int
	i = x
	co.Gosched()
	return &i
}

//co:stackless
func jEscapes(co *stackful.Co, x int) *int {
	var j int = x
	p := &j
	co.Gosched()
	j = x
	return p
}

//co:stackless
func kEscapes(co *stackful.Co, x int) *int {
	k := x
	co.Gosched()
	return &k
}

//co:stackless
func inEscapes(co *stackful.Co, x int) *int {
	p := &x
	co.Gosched()
	return p
}

//co:stackless
func selectEscapes(co *stackful.Co, x int) *int {
	c := make(chan int, 1)
	c <- x //co:blocking
	co.Gosched()
	var p *int
	select { //co:blocking
	case req := <-c:
		p = &req
	}
	co.Gosched() // (a select with a suspension in it is refused)
	return p
}

//co:stackless
func selectEscapes1(co *stackful.Co, x int, y int) (*int, *int) {
	c := make(chan int, 1)
	var a [2]int
	var p [2]*int
	a[0] = x
	a[1] = y
	for i := 0; i < 2; i++ {
		c <- a[i] //co:blocking
		select {  //co:blocking
		case req := <-c:
			p[i] = &req
		}
		co.Gosched()
	}
	return p[0], p[1]
}

//co:stackless
func rangeEscapes(co *stackful.Co, x int) *int {
	var a [1]int
	a[0] = x
	for _, v := range a {
		co.Gosched()
		return &v
	}
	return nil
}

// rangeEscapes2: k and v are declared outside the loop: *is* aliased.
//
//co:stackless
func rangeEscapes2(co *stackful.Co, x, y int) (*int, *int) {
	var a [2]int
	var p [2]*int
	a[0] = x
	a[1] = y
	var k, v int
	for k, v = range a {
		p[k] = &v
		co.Gosched()
	}
	return p[0], p[1]
}

// rangeEscapes3: k and v are the loop's: one per iteration.
//
//co:stackless
func rangeEscapes3(co *stackful.Co, x, y int) (*int, *int) {
	var p [2]*int
	for k, v := range [2]int{x, y} {
		co.Gosched()
		p[k] = &v
	}
	return p[0], p[1]
}

// forEscapes2: i is declared before the loop: *is* aliased.
//
//co:stackless
func forEscapes2(co *stackful.Co, x int, y int) (*int, *int) {
	var p [2]*int
	n := 0
	i := x
	for ; n < 2; i = y {
		p[n] = &i
		co.Gosched()
		n++
	}
	return p[0], p[1]
}

//co:stackless
func forEscapes3(co *stackful.Co, x int, y int) (*int, *int) {
	var f [2]func() *int
	n := 0
	for i := x; n < 2; i = y {
		p := new(int)
		*p = i
		co.Gosched()
		f[n] = func() *int { return p }
		n++
	}
	return f[0](), f[1]()
}

// forEscapes4: i is the loop's: one per iteration, each with the value
// the post statement gave the copy.
//
//co:stackless
func forEscapes4(co *stackful.Co, x int) (*int, *int) {
	var p [2]*int
	for i := x; i < x+2; i++ {
		co.Gosched()
		p[i-x] = &i
	}
	return p[0], p[1]
}

//co:stackless
func outEscapes(co *stackful.Co, i int) (x int, p *int) {
	x = i
	p = &x
	co.Gosched()
	return
}

//co:stackless
func outEscapes2(co *stackful.Co, i int) (x int, p *int) {
	x = i
	co.Gosched()
	return x, &x
}

//co:stackless
func defer1(co *stackful.Co, i int) (x int) {
	f := func() { x = i }
	co.Gosched()
	defer f()
	return
}

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	c := &checker{t: t}
	p, q := iEscapes(co, 1), iEscapes(co, 2)
	c.chk(p, q, 1, "i_escapes")

	p, q = jEscapes(co, 3), jEscapes(co, 4)
	c.chk(p, q, 3, "j_escapes")

	p, q = kEscapes(co, 5), kEscapes(co, 6)
	c.chk(p, q, 5, "k_escapes")

	p, q = inEscapes(co, 7), inEscapes(co, 8)
	c.chk(p, q, 7, "in_escapes")

	p, q = selectEscapes(co, 9), selectEscapes(co, 10)
	c.chk(p, q, 9, "select_escapes")

	p, q = selectEscapes1(co, 11, 12)
	c.chk(p, q, 11, "select_escapes1")

	p, q = rangeEscapes(co, 13), rangeEscapes(co, 14)
	c.chk(p, q, 13, "range_escapes")

	p, q = rangeEscapes2(co, 101, 102)
	c.chkalias(p, q, 101, "range_escapes2")

	p, q = rangeEscapes3(co, 21, 22)
	c.chk(p, q, 21, "range_escapes3")

	p, q = forEscapes2(co, 103, 104)
	c.chkalias(p, q, 103, "for_escapes2")

	p, q = forEscapes3(co, 105, 106)
	c.chk(p, q, 105, "for_escapes3")

	p, q = forEscapes4(co, 107)
	c.chk(p, q, 107, "for_escapes4")

	_, p = outEscapes(co, 15)
	_, q = outEscapes(co, 16)
	c.chk(p, q, 15, "out_escapes")

	_, p = outEscapes2(co, 17)
	_, q = outEscapes2(co, 18)
	c.chk(p, q, 17, "out_escapes_2")

	t.Printf("defer1: %d (want 20)", defer1(co, 20))
}

// Package goranges ports $GOROOT/test/range.go (the expression after
// range is evaluated once, for slices, arrays, pointers to arrays, strings
// and maps; a range over an array ranges over a copy; the index and value
// expressions of a range assignment are evaluated once per iteration, and
// not at all for an empty range; parallel assignment to an index
// expression; range over a channel) with suspending loop bodies and range
// expressions. Where the original panics on a wrong count, the port
// records the counts.
package goranges

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// counter counts the calls of the make functions, per run: both models
// run at once.
type counter struct{ nmake, ncalls int }

func (c *counter) makeslice() []int {
	c.nmake++
	return []int{1, 2, 3, 4, 5}
}

func (c *counter) makearray() [5]int {
	c.nmake++
	return [5]int{1, 2, 3, 4, 5}
}

func (c *counter) makearrayptr() *[5]int {
	c.nmake++
	return &[5]int{1, 2, 3, 4, 5}
}

func (c *counter) makestring() string {
	c.nmake++
	return "abcd☺"
}

func (c *counter) makemap() map[int]int {
	c.nmake++
	return map[int]int{0: 'a', 1: 'b', 2: 'c', 3: 'd', 4: '☺'}
}

func (c *counter) getvar(p *int) *int {
	c.ncalls++
	return p
}

// slice returns a fresh slice after a suspension.
//
//co:stackless
func slice(co *stackful.Co, c *counter) []int {
	co.Gosched()
	return c.makeslice()
}

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	c := &counter{}

	s := 0
	for _, v := range slice(co, c) {
		co.Gosched()
		s += v
	}
	t.Printf("slice: nmake %d sum %d (want 1 15)", c.nmake, s)

	x := []int{10, 20}
	y := []int{99}
	i := 1
	for i, x[i] = range y {
		co.Gosched()
		break
	}
	t.Printf("parallel assignment: %d %d %d (want 0 10 99)", i, x[0], x[1])

	c.nmake, s = 0, 0
	for i := range c.makearray() {
		co.Gosched()
		s += i
	}
	t.Printf("array: nmake %d sum %d (want 1 10)", c.nmake, s)

	// A range over an array value ranges over a copy: stores into the
	// array during the loop are not seen.
	arr := [3]int{1, 2, 3}
	s = 0
	for i, v := range arr {
		co.Gosched()
		arr[2] = 100
		s += v
		_ = i
	}
	t.Printf("array copy: sum %d, arr %v (want 6 [1 2 100])", s, arr)
	// ... but a range over a pointer to an array sees them.
	arr = [3]int{1, 2, 3}
	s = 0
	for _, v := range &arr {
		co.Gosched()
		arr[2] = 100
		s += v
	}
	t.Printf("array pointer: sum %d (want 103)", s)

	c.nmake, s = 0, 0
	n := len(c.makearrayptr())
	for _, v := range c.makearrayptr() {
		co.Gosched()
		s += v
	}
	t.Printf("array pointer: len %d nmake %d sum %d (want 5 2 15)", n, c.nmake, s)

	c.nmake = 0
	var runes []rune
	for i, r := range c.makestring() {
		co.Gosched()
		runes = append(runes, rune(i), r)
	}
	t.Printf("string: nmake %d %q", c.nmake, string(runes))

	c.nmake, s = 0, 0
	for k, v := range c.makemap() {
		co.Gosched()
		s += k*1000 + v
	}
	t.Printf("map: nmake %d sum %d", c.nmake, s)

	// A slice that grows in the loop: the length is read once.
	sl := []int{1, 2, 3}
	n = 0
	for range sl {
		co.Gosched()
		sl = append(sl, 0)
		n++
	}
	t.Printf("growing slice: %d iterations, len %d (want 3 6)", n, len(sl))

	// The index and value expressions are evaluated once per iteration,
	// and never for an empty range.
	var iv, vv int
	si, sv := 0, 0
	for *c.getvar(&iv), *c.getvar(&vv) = range [2]int{1, 2} {
		co.Gosched()
		si += iv
		sv += vv
	}
	t.Printf("calls: %d, sums %d %d (want 4, 1 3)", c.ncalls, si, sv)
	c.ncalls = 0
	for *c.getvar(&iv), *c.getvar(&vv) = range [0]int{} {
		co.Gosched()
		t.Printf("loop ran on empty array")
	}
	t.Printf("empty: calls %d (want 0)", c.ncalls)

	// Range over an int and over a closed channel.
	s = 0
	for i := range 4 {
		co.Gosched()
		s += i
	}
	ch := make(chan int, 3)
	ch <- 1 //co:blocking
	ch <- 2 //co:blocking
	close(ch)
	for v := range ch { //co:blocking
		co.Gosched()
		s += v * 10
	}
	t.Printf("int and chan: %d (want 36)", s)
}

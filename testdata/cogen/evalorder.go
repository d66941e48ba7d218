package evalorder

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type rec struct {
	t   *trace.T
	seq int
}

func (r *rec) f(name string, v int) int {
	r.seq++
	r.t.Printf("call %s #%d", name, r.seq)
	return v
}

type point struct{ x, y int }

// Run checks that suspension points inside expressions are evaluated in
// Go's order relative to the other calls: call arguments, composite
// literals, index expressions, operands, and multi-value forwarding.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	r := &rec{t: t}
	a := r.f("a", 1) + step(co, r, "b", 2) + r.f("c", 3)
	t.Printf("sum %d", a)
	s := []int{r.f("d", 4), step(co, r, "e", 5), r.f("g", 6)}
	t.Printf("slice %v", s)
	p := point{x: step(co, r, "h", 7), y: r.f("i", 8)}
	t.Printf("struct %v", p)
	m := map[string]int{fmt.Sprint(r.f("j", 9)): step(co, r, "k", 10)}
	t.Printf("map %v", m)
	s[r.f("l", 0)] = step(co, r, "m", 11)
	t.Printf("index %v", s)
	t.Printf("args %d %d", r.f("n", 12), step(co, r, "o", 13))
	t.Printf("forward %d", add(pair(co, r)))
	v := s[step(co, r, "p", 1)] * step(co, r, "q", 2)
	t.Printf("operands %d", v)
	x := 5
	y := x + bump(co, &x)
	t.Printf("after bump %d %d", x, y)
	ch := make(chan int, 1)
	ch <- step(co, r, "send", 14)
	t.Printf("received %d", <-ch) //co:blocking buffered, never waits
	z := []int{0, 0}
	z[step(co, r, "idx", 1)]++
	t.Printf("incdec %v", z)
}

func add(a, b int) int { return a + b }

//co:stackless
func step(co *stackful.Co, r *rec, name string, v int) int {
	co.Gosched()
	return r.f(name, v)
}

//co:stackless
func pair(co *stackful.Co, r *rec) (int, int) {
	co.Gosched()
	return r.f("pair1", 1), r.f("pair2", 2)
}

//co:stackless
func bump(co *stackful.Co, x *int) int {
	co.Gosched()
	*x += 100
	return 1
}

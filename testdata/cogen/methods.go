package methods

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type counter struct{ n int }

//co:stackless
func (c *counter) Add(co *stackful.Co, d int) int {
	co.Gosched()
	c.n += d
	return c.n
}

//co:stackless
func (c counter) Get(co *stackful.Co) int {
	co.Gosched()
	return c.n
}

type stack[T any] struct{ items []T }

//co:stackless
func (s *stack[T]) Push(co *stackful.Co, v T) {
	co.Gosched()
	s.items = append(s.items, v)
}

//co:stackless
func (s *stack[E]) Pop(co *stackful.Co) (E, bool) {
	co.Gosched()
	var zero E
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

type named struct {
	counter
	label string
}

type wrapped struct {
	*named
}

// Run covers methods with pointer and value receivers, called through
// values and pointers, promoted through embedded fields, and methods of
// generic types.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var c counter
	pc := &counter{n: 100}
	for i := 0; i < 3; i++ {
		d := t.Rand.Intn(10)
		t.Printf("add %d", c.Add(co, d))
		t.Printf("add via pointer %d", pc.Add(co, d))
	}
	t.Printf("get %d %d", c.Get(co), pc.Get(co))
	var s stack[string]
	s.Push(co, "x")
	s.Push(co, "y")
	for {
		v, ok := s.Pop(co)
		if !ok {
			break
		}
		t.Printf("pop %s", v)
	}
	var nm named
	w := wrapped{named: &named{label: "w"}}
	nm.Add(co, 5)
	w.Add(co, 6)
	t.Printf("promoted %d %d %d %d", nm.Get(co), w.Get(co), nm.n, w.n)
	ps := &stack[int]{}
	ps.Push(co, 7)
	v, ok := ps.Pop(co)
	t.Printf("int stack %d %v", v, ok)
}

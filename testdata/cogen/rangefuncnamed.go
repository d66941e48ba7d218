package rangefuncnamed

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Iterators whose yield parameter has a defined type, or whose own type is
// defined, an alias or a type parameter: Go ranges over all of them, and so
// does the generated code (it once converted them to iter.Seq2 and did not
// build).

type yieldFn func(int, int) bool

func seq(yield yieldFn) {
	for i := range 3 {
		if !yield(i, i*i) {
			return
		}
	}
}

type yield1 func(string) bool

// Words is an iterator type of its own, with a defined yield type.
type Words func(yield yield1)

func words(ws ...string) Words {
	return func(yield yield1) {
		for _, w := range ws {
			if !yield(w) {
				return
			}
		}
	}
}

type yield0 = func() bool

type ticker struct{ n int }

// Ticks is a method value iterator whose yield type is an alias.
func (t *ticker) Ticks(yield yield0) {
	for range t.n {
		if !yield() {
			return
		}
	}
}

// kind tells iterators apart by their yield's type: a function given to a
// defined yield type is a value of that type.
func kind(yield any) string { return fmt.Sprintf("%T", yield) }

func typed(yield yield1) {
	yield(kind(yield))
}

// Run ranges over each shape with a body that suspends, and with one that
// does not.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for k, v := range seq {
		co.Gosched()
		t.Printf("seq %d %d", k, v)
	}
	for k := range seq {
		co.Gosched()
		if k == 1 {
			break
		}
		t.Printf("seq key %d", k)
	}
	for k, v := range seq {
		t.Printf("seq without suspension %d %d", k, v)
	}
	for w := range words("a", "b", "c") {
		co.Gosched()
		t.Printf("word %s", w)
	}
	tk := &ticker{n: 2 + t.Rand.Intn(2)}
	n := 0
	for range tk.Ticks {
		co.Gosched()
		n++
	}
	t.Printf("ticks %d", n)
	for s := range typed {
		co.Gosched()
		t.Printf("yield's dynamic type: %s", s)
	}
	t.Printf("sum %d", sum(co, seq))
	t.Printf("sum %d", sum(co, func(yield yieldFn) { yield(10, 20) }))
	t.Printf("keys %d", keys(co, func(yield func(int) bool) { yield(1); yield(2) }))
}

// sum ranges over a type parameter whose core type is an iterator.
//
//co:stackless
func sum[S ~func(yieldFn)](co *stackful.Co, s S) int {
	total := 0
	for k, v := range s {
		co.Gosched()
		total += k + v
	}
	return total
}

// keys ranges over an iterator whose yield's type is a type parameter.
//
//co:stackless
func keys[Y ~func(int) bool](co *stackful.Co, s func(Y)) int {
	total := 0
	for k := range s {
		co.Gosched()
		total += k
	}
	return total
}

// Package goappend ports $GOROOT/test/append.go (append of nothing, of
// elements and of a slice with ..., to empty slices, to sub-slices that
// share an array, of structs and interfaces of local types, and of a slice
// of another named type with the same element type) with suspensions in
// the arguments, also ones that change the slice appended to: its
// operands are read in gc's order (a variable after the calls of the
// elements, a slice expression before them). The local
// types of the original are package-level types behind local aliases: a
// value of a local type cannot live across a suspension (refused, v1). Where the
// original panics on a wrong result, the port records the result.
package goappend

import (
	"fmt"
	"reflect"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// num returns v after a suspension.
//
//co:stackless
func num(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

// grow appends to *s after a suspension and returns v.
//
//co:stackless
func grow(co *stackful.Co, s *[]int, v int) int {
	co.Gosched()
	*s = append(*s, -v)
	return v
}

func verify(t *trace.T, name string, result, expected interface{}) {
	t.Printf("%s: %v %v", name, reflect.DeepEqual(result, expected), result)
}

type T1 []int
type T2 []int

// The types of verifyStruct and verifyInterface, local in the original.
type (
	structT struct{ a, b, c string }
	structS []structT
	ifaceT  interface{}
	ifaceS  []ifaceT
)

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	verify(t, "int b", append([]int{}, num(co, 1)), []int{1})
	verify(t, "int c", append([]int{}, 1, num(co, 2), 3, 4), []int{1, 2, 3, 4})
	verify(t, "int d", append([]int{0, 1, 2}, num(co, 3), 4, 5), []int{0, 1, 2, 3, 4, 5})
	verify(t, "int g", append([]int{}, []int{num(co, 1)}...), []int{1})
	verify(t, "int j", append([]int{1, 0, 1}, []int{1, num(co, 1), 1}...), []int{1, 0, 1, 1, 1, 1})

	// A suspending element changes the slice appended to: gc reads the
	// variable s after the call, and s[:1] before it.
	s := []int{1, 2}
	r := append(s, grow(co, &s, 3))
	t.Printf("append(s, grow(&s)): %v, s %v", r, s)
	s = []int{1, 2}
	r = append(s[:num(co, 1)], grow(co, &s, 4), num(co, 5))
	t.Printf("append(s[:1], grow(&s), ...): %v, s %v", r, s)

	verifyStruct(co, t)
	verifyInterface(co, t)

	t1 := T1{1}
	t2 := T2{num(co, 2)}
	verify(t, "T1", append(t1, t2...), T1{1, 2})
}

//co:stackless
func verifyStruct(co *stackful.Co, t *trace.T) {
	type S = structS // (a local type cannot live across a suspension)
	e := make(S, 10)
	for i := range e {
		e[i] = structT{"foo", fmt.Sprintf("%d", num(co, i)), "bar"}
	}

	verify(t, "struct b", append(S{}, e[num(co, 0)]), e[0:1])
	verify(t, "struct c", append(S{}, e[0], e[num(co, 1)], e[2]), e[0:3])
	verify(t, "struct f", append(e[0:1], e[1], e[2], e[num(co, 3)]), e[0:4])
	verify(t, "struct i", append(e[0:3], e[3], e[4], e[5], e[num(co, 6)]), e[0:7])

	ok := true
	for i := range e {
		co.Gosched()
		ok = ok && reflect.DeepEqual(append(S{}, e[0:i]...), e[0:i])
		input := make(S, i)
		copy(input, e[0:num(co, i)])
		ok = ok && reflect.DeepEqual(append(input, e[i:]...), e)
		ok = ok && reflect.DeepEqual(input, e[0:i])
	}
	t.Printf("struct j, k: %v", ok)

	s := make(S, 10, 20)
	r := make(S, len(s)+len(e))
	for i, x := range e {
		r[len(s)+i] = x
	}
	verify(t, "struct m", append(s, e[:num(co, len(e))]...), r)
	t.Printf("%T", e)
}

//co:stackless
func verifyInterface(co *stackful.Co, t *trace.T) {
	type S = ifaceS
	e := make(S, 12)
	for i := range e {
		switch num(co, i) % 4 {
		case 0:
			e[i] = i
		case 1:
			e[i] = "foo"
		case 2:
			e[i] = fmt.Sprintf("%d", i)
		case 3:
			e[i] = float64(i)
		}
	}

	verify(t, "interface b", append(S{}, e[num(co, 0)]), e[0:1])
	verify(t, "interface f", append(e[0:1], e[1], e[num(co, 2)], e[3]), e[0:4])
	verify(t, "interface i", append(e[0:3], e[3], e[4], e[5], e[num(co, 6)]), e[0:7])

	s := make(S, 10, 20)
	r := make(S, len(s)+len(e))
	for i, x := range e {
		r[len(s)+i] = x
	}
	verify(t, "interface m", append(s, e...), r)
	t.Printf("%T", e)
}

package generics

import (
	"cmp"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type number interface {
	~int | ~int64 | ~float64
}

//co:stackless
func sum[T number](co *stackful.Co, xs ...T) T {
	var total T
	for _, x := range xs {
		co.Gosched()
		total += x
	}
	return total
}

//co:stackless
func maxOf[T cmp.Ordered](co *stackful.Co, a, b T) T {
	co.Gosched()
	if a > b {
		return a
	}
	return b
}

//co:stackless
func zero[T any](co *stackful.Co) T {
	co.Gosched()
	var z T
	return z
}

type myInt int

// Run covers generic marked functions: inferred and explicit type
// arguments, variadic parameters, constraints with unions.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	xs := []int{t.Rand.Intn(10), t.Rand.Intn(10), t.Rand.Intn(10)}
	t.Printf("sum %d", sum(co, xs...))
	t.Printf("sum floats %.1f", sum(co, 1.5, 2.5))
	t.Printf("sum named %d", sum[myInt](co, 1, 2, 3))
	t.Printf("max %d %s", maxOf(co, xs[0], xs[1]), maxOf(co, "a", "b"))
	t.Printf("zero %q %d", zero[string](co), zero[int](co))
	t.Printf("twice %v", twice(co, []string{"p", "q"}))
}

//co:stackless
func twice[S ~[]E, E any](co *stackful.Co, s S) S {
	out := make(S, 0, 2*len(s))
	for _, e := range s {
		co.Gosched()
		out = append(out, e, e)
	}
	return out
}

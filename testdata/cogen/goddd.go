// Package goddd ports $GOROOT/test/ddd.go (variadic functions: no, one and
// several arguments, a slice passed on with ..., closures and methods that
// are variadic, interface arguments, a recursive slice type) with the
// variadic functions suspending and suspensions in their arguments. Where
// the original panics on a wrong sum, the port records it.
package goddd

import (
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

// sum suspends, then adds its arguments.
//
//co:stackless
func sum(co *stackful.Co, args ...int) int {
	co.Gosched()
	s := 0
	for _, v := range args {
		s += v
	}
	return s
}

func plainSum(args ...int) int {
	s := 0
	for _, v := range args {
		s += v
	}
	return s
}

func sumA(args []int) int {
	s := 0
	for _, v := range args {
		s += v
	}
	return s
}

//co:stackless
func sumB(co *stackful.Co, args []int) int { return sum(co, args...) }

//co:stackless
func sum2(co *stackful.Co, args ...int) int { return 2 * sum(co, args...) }

//co:stackless
func sum3(co *stackful.Co, args ...int) int {
	co.Gosched()
	return 3 * sumA(args)
}

//co:stackless
func sum4(co *stackful.Co, args ...int) int { return 4 * sumB(co, args) }

// sumC calls a closure that passes the arguments on.
//
//co:stackless
func sumC(co *stackful.Co, args ...int) int {
	co.Gosched()
	return func() int { return plainSum(args...) }()
}

//co:stackless
func intersum(co *stackful.Co, args ...interface{}) int {
	s := 0
	for _, v := range args {
		co.Gosched()
		s += v.(int)
	}
	return s
}

// bumpFirst stores into its first argument after a suspension.
//
//co:stackless
func bumpFirst(co *stackful.Co, args ...int) {
	co.Gosched()
	args[0] += 100
}

type T []T

//co:stackless
func ln(co *stackful.Co, args ...T) int {
	co.Gosched()
	return len(args)
}

//co:stackless
func ln2(co *stackful.Co, args ...T) int { return 2 * ln(co, args...) }

func (*T) Sum(args ...int) int { return plainSum(args...) }

type U struct {
	*T
}

type I interface {
	Sum(...int) int
}

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	t.Printf("sum 6: %d", sum(co, 1, num(co, 2), 3))
	t.Printf("sum 0: %d", sum(co))
	t.Printf("sum 10: %d", sum(co, num(co, 10)))
	t.Printf("sum 9: %d", sum(co, 1, 8))
	t.Printf("sumC 6: %d", sumC(co, num(co, 4), 2))
	t.Printf("sum2 12: %d", sum2(co, 1, 2, num(co, 3)))
	t.Printf("sum3 18: %d", sum3(co, 1, 2, 3))
	t.Printf("sum4 24: %d", sum4(co, 1, 2, num(co, 3)))
	t.Printf("intersum 6: %d", intersum(co, 1, num(co, 2), 3))
	t.Printf("intersum 0: %d", intersum(co))

	// A slice passed on with ... is the callee's parameter itself, not a
	// copy: a store through it after a suspension shows in the caller.
	s := []int{1, 2, 3}
	t.Printf("sum s...: %d", sum(co, s...))
	bumpFirst(co, s...)
	t.Printf("s after bumpFirst(s...): %v", s)
	bumpFirst(co, s[0], s[1])
	t.Printf("s after bumpFirst(s[0], s[1]): %v", s)
	s = append(s, num(co, 4))
	t.Printf("sum s... after append: %d", sum(co, s...))
	t.Printf("sum s[1:]...: %d", sum(co, s[num(co, 1):]...))

	t.Printf("ln 0: %d", ln(co))
	t.Printf("ln 1: %d", ln(co, nil))
	t.Printf("ln 2: %d", ln(co, nil, T{}))
	t.Printf("ln2 6: %d", ln2(co, nil, T{}, T{T{}}))
	t.Printf("ln T{}...: %d", ln(co, T{}...))

	// Variadic methods through a pointer, an embedded field and an
	// interface.
	var tt T
	var u U
	u.T = &tt
	var i I = u
	t.Printf("method: %d %d %d", tt.Sum(1, num(co, 2)), u.Sum(num(co, 3), 4), i.Sum(5, 6))
	args := []int{num(co, 7), 8}
	t.Printf("method ...: %d %d", u.Sum(args...), i.Sum(args[:num(co, 1)]...))
}

package returns

import (
	"errors"
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers returns: several results, named results, bare returns,
// returns of suspending calls, and recursion.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for i := 0; i < 3; i++ {
		n := t.Rand.Intn(10)
		q, r, err := divmod(co, n, i)
		t.Printf("divmod %d %d = %d %d %v", n, i, q, r, err)
		a, b := named(co, n)
		t.Printf("named %d %d", a, b)
	}
	t.Printf("fib %d", fib(co, 10+t.Rand.Intn(3)))
	v, err := forward(co, 3)
	t.Printf("forward %d %v", v, err)
	t.Printf("even %v", even(co, 7))
}

//co:stackless
func divmod(co *stackful.Co, a, b int) (int, int, error) {
	co.Gosched()
	if b == 0 {
		return 0, 0, errors.New("division by zero")
	}
	return a / b, a % b, nil
}

//co:stackless
func named(co *stackful.Co, n int) (x, y int) {
	x = n
	co.Sleep(time.Duration(n%2) * time.Millisecond)
	if n > 5 {
		y = x * 2
		return
	}
	for i := 0; i < 3; i++ {
		if i == n {
			return i, -i
		}
	}
	return y, x
}

//co:stackless
func fib(co *stackful.Co, n int) int {
	if n < 2 {
		co.Gosched()
		return n
	}
	return fib(co, n-1) + fib(co, n-2)
}

//co:stackless
func forward(co *stackful.Co, n int) (int, error) {
	if n == 0 {
		co.Gosched()
		return 42, nil
	}
	return forward(co, n-1)
}

//co:stackless
func even(co *stackful.Co, n int) bool {
	if n == 0 {
		return true
	}
	co.Gosched()
	return odd(co, n-1)
}

//co:stackless
func odd(co *stackful.Co, n int) bool {
	if n == 0 {
		return false
	}
	return even(co, n-1)
}

package vetclean

import (
	"errors"
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers shapes whose generated code used to fail go vet: returning
// the named results themselves (a self-assignment), code after a panic
// whose argument suspends, and copied switches whose every clause leaves.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	r, err := named(co, 2)
	t.Printf("named %d %v", r, err)
	r, err = named(co, -1)
	t.Printf("named %d %v", r, err)
	a, b := swap(co, 1, 2)
	t.Printf("swap %d %d", a, b)
	t.Printf("pick %d", pick(co, t, 3))
	t.Printf("pick %d", pick(co, t, -3))
	t.Printf("loop %d", loop(co, t))
	func() {
		defer func() { t.Printf("recovered %v", recover()) }()
		fail(co, 5)
	}()
	func() {
		defer func() { t.Printf("recovered %v", recover()) }()
		failValue(co, 6)
	}()
}

//co:stackless
func named(co *stackful.Co, n int) (r int, err error) {
	co.Gosched()
	if n < 0 {
		err = errors.New("negative")
		return r, err
	}
	r = n * 2
	return r, err
}

//co:stackless
func swap(co *stackful.Co, x, y int) (a, b int) {
	a, b = x, y
	co.Gosched()
	return b, a
}

//co:stackless
func pick(co *stackful.Co, t *trace.T, n int) int {
	co.Gosched()
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	default:
		return 0
	}
}

//co:stackless
func loop(co *stackful.Co, t *trace.T) int {
	total := 0
	for i := 0; i < 5; i++ {
		co.Gosched()
		switch i % 3 {
		case 0:
			total += i
			continue
		case 1:
			total -= 1
			continue
		default:
			if i > 3 {
				return total
			}
			continue
		}
	}
	return total
}

//co:stackless
func fail(co *stackful.Co, n int) {
	panic(message(co, n))
}

//co:stackless
func failValue(co *stackful.Co, n int) int {
	co.Gosched()
	panic(fmt.Sprint("value ", message(co, n)))
}

//co:stackless
func message(co *stackful.Co, n int) string {
	co.Gosched()
	return fmt.Sprint("failed ", n)
}

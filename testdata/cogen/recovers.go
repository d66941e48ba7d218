package recovers

import (
	"errors"
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type myErr struct{ code int }

func (e *myErr) Error() string { return fmt.Sprint("code ", e.code) }

// Run covers recover: nil without a panic, panic(nil), error values kept
// through recovery (errors.As), recovery inside a loop that goes on and
// suspends, recover in a closure that suspends, and a panic crossing a
// closure's frame.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	t.Printf("no panic: %v", quiet(co))
	t.Printf("panic(nil): %v", nilPanic(co))
	for i := 0; i < 3; i++ {
		err := attempt(co, t, i+t.Rand.Intn(2))
		var me *myErr
		t.Printf("attempt %d: %v (myErr %v)", i, err, errors.As(err, &me))
		co.Gosched()
	}
	res := func() (out string) {
		defer func() {
			if r := recover(); r != nil {
				out = fmt.Sprint("closure recovered ", r)
			}
		}()
		co.Gosched()
		fail(co, "from a closure")
		return "not reached"
	}()
	t.Printf("%s", res)
	t.Printf("through a closure: %s", through(co))
}

//co:stackless
func quiet(co *stackful.Co) (r any) {
	defer func() { r = recover() }()
	co.Gosched()
	return "unchanged"
}

//co:stackless
func nilPanic(co *stackful.Co) (s string) {
	defer func() { s = fmt.Sprintf("%T", recover()) }()
	co.Gosched()
	panic(nil)
}

//co:stackless
func attempt(co *stackful.Co, t *trace.T, n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	co.Gosched()
	if n%2 == 1 {
		panic(&myErr{n})
	}
	return nil
}

//co:stackless
func fail(co *stackful.Co, msg string) {
	co.Gosched()
	panic(msg)
}

// through: the panic starts in a marked function called by a closure that
// suspends, and is recovered by the function around the closure.
//
//co:stackless
func through(co *stackful.Co) (s string) {
	defer func() { s = fmt.Sprint(recover()) }()
	call := func(c *stackful.Co) {
		defer func() { s = "closure's defer ran" }()
		fail(c, "deep")
	}
	call(co)
	return "not reached"
}

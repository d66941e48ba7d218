package extuser

import (
	"extlib"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Good calls marked functions of another package: child frames.
//
//co:stackless
func Good(co *stackful.Co, c *extlib.Conn) (int, error) {
	n, err := extlib.Marked(co, 1)
	if err != nil {
		return 0, err
	}
	c.Send(co)
	return n, nil
}

// Bad passes the handle to functions of another package without a frame
// cogen could have generated for them.
//
//co:stackless
func Bad(co *stackful.Co) int {
	extlib.Plain(co)              // want `the coroutine handle co may only call its waiting methods`
	extlib.WrongCtor(co, 2)       // want `the coroutine handle co may only call its waiting methods`
	return extlib.WrongResult(co) // want `the coroutine handle co may only call its waiting methods`
}

//go:build linux

package stackless_test

import (
	"fmt"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// waitFrame waits on a cond at "wait.go:12", as a generated frame would
// say with its Where table.
type waitFrame struct {
	stackless.Base
	c *stackless.Cond
}

func (f *waitFrame) Step(t *stackless.Task) stackless.Status {
	f.PC = 1
	t.Wait(f.c, -1)
	if t.Blocked() {
		return stackless.Suspend
	}
	return stackless.Done
}

func (f *waitFrame) Where() string {
	if f.PC == 1 {
		return "example/wait.go:12"
	}
	return "example/wait.go:10"
}

// A suspended task says where it is; loop dumps list it the same way.
func ExampleTask_Where() {
	l, err := loop.New()
	if err != nil {
		panic(err)
	}
	defer l.Close()
	var c stackless.Cond
	t := stackless.Spawn(l, &waitFrame{c: &c})
	fmt.Println(t.Where())
	l.RunOnce()
	fmt.Println(t.Where())
	fmt.Println(t.Describe())
	c.Signal()
	stackless.Run(l, t)
	fmt.Println(t.Where(), t.Done())
	// Output:
	// [example/wait.go:10]
	// [example/wait.go:12]
	// stackless task at example/wait.go:12
	// [] true
}

//go:build linux

package stackless_test

import (
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// pingFrame is the stackless form of
//
//	func ping(t *stackless.Task, name string, n int) int {
//		for i := 0; i < n; i++ {
//			fmt.Println(name, i)
//			t.Gosched()
//		}
//		return n
//	}
type pingFrame struct {
	stackless.Base
	name string
	n, i int
	r    int
}

func (f *pingFrame) Step(t *stackless.Task) stackless.Status {
	for {
		switch f.PC {
		case 0:
			if f.i == f.n {
				f.r = f.n
				return stackless.Done
			}
			fmt.Println(f.name, f.i)
			f.PC = 1
			fallthrough
		case 1:
			t.Gosched()
			if t.Blocked() {
				return stackless.Suspend
			}
			f.i++
			f.PC = 0
		}
	}
}

// sleepyFrame calls ping and sleeps once it has returned:
//
//	func sleepy(t *stackless.Task) { n := ping(t, "child", 2); t.Sleep(time.Millisecond); fmt.Println("child returned", n) }
type sleepyFrame struct {
	stackless.Base
	child *pingFrame
}

func (f *sleepyFrame) Step(t *stackless.Task) stackless.Status {
	switch f.PC {
	case 0:
		f.child = &pingFrame{name: "child", n: 2}
		f.PC = 1
		return t.Call(f.child)
	case 1:
		t.Sleep(time.Millisecond)
		if t.Blocked() {
			return stackless.Suspend
		}
		fmt.Println("child returned", f.child.r)
		return stackless.Done
	}
	panic("bad pc")
}

// Two tasks on one loop: Gosched makes them take turns, and a frame calls
// another with Task.Call and reads its result once it is Done.
func ExampleSpawn() {
	l, err := loop.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	a := stackless.Spawn(l, &pingFrame{name: "a", n: 3})
	b := stackless.Spawn(l, &sleepyFrame{})
	if err := stackless.Run(l, a, b); err != nil {
		fmt.Println(err)
	}
	// Output:
	// a 0
	// child 0
	// a 1
	// child 1
	// a 2
	// child returned 2
}

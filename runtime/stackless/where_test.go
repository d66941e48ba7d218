//go:build linux

package stackless

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// located is a frame that says where it is, as generated frames do.
type located struct {
	fn
	name string
}

func (f *located) Where() string { return fmt.Sprintf("%s:%d", f.name, f.PC) }

func TestWhereListsCallers(t *testing.T) {
	l := newLoop(t)
	var c Cond
	leaf := &located{name: "leaf.go"}
	leaf.step = func(t *Task, pc *int) Status {
		*pc = 7
		t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}
	mid := newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			*pc = 1
			return t.Call(leaf)
		}
		return Done
	})
	top := &located{name: "top.go"}
	top.step = func(t *Task, pc *int) Status {
		if *pc == 0 {
			*pc = 3
			return t.Call(mid)
		}
		return Done
	}
	task := Spawn(l, top)
	if got, want := task.Where(), []string{"top.go:0"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("before the first step: %q, want %q", got, want)
	}
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	want := []string{"leaf.go:7", "*stackless.fn", "top.go:3"}
	if got := task.Where(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Where() = %q, want %q", got, want)
	}
	if d := task.Describe(); d != "stackless task at leaf.go:7 (called from *stackless.fn <- top.go:3)" {
		t.Fatalf("Describe() = %q", d)
	}
	var dump strings.Builder
	l.Dump(&dump)
	if !strings.Contains(dump.String(), "stackless task at leaf.go:7 (called from *stackless.fn <- top.go:3): waiting on cond") {
		t.Errorf("the loop dump does not list the task:\n%s", dump.String())
	}
	c.Signal()
	run(t, l, 5e9, task)
	if w := task.Where(); w != nil {
		t.Fatalf("finished: Where() = %q", w)
	}
	if d := task.Describe(); d != "stackless task (finished)" {
		t.Fatalf("finished: Describe() = %q", d)
	}
}

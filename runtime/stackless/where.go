package stackless

import (
	"fmt"
	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
	"strings"
)

// Where returns where t is, innermost frame first, then each caller at its
// call: one "file:line" per frame (the frame's type for frames that are not
// Locators). It is empty for a finished task. Call it on the loop goroutine
// (or while the loop is not running); it costs nothing until called.
func (t *Task) Where() []string {
	if t.top == nil {
		return nil
	}
	out := []string{where(t.top)}
	if t.ext != nil {
		for i := len(t.ext.callers) - 1; i >= 0; i-- {
			out = append(out, where(t.ext.callers[i]))
		}
	}
	return out
}

func where(f Frame) string {
	if l, ok := f.(cogenrt.Locator); ok {
		return l.Where()
	}
	return fmt.Sprintf("%T", f)
}

// Describe says what t is and where, for loop dumps ([loop.Loop.Dump],
// [loop.DumpAll] list every suspended task with it): the innermost
// position, then its callers.
func (t *Task) Describe() string {
	w := t.Where()
	if len(w) == 0 {
		return "stackless task (finished)"
	}
	s := "stackless task at " + w[0]
	if len(w) > 1 {
		s += " (called from " + strings.Join(w[1:], " <- ") + ")"
	}
	return s
}

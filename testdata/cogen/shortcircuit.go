package shortcircuit

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run checks that && and || evaluate a suspending right operand only when
// the left one does not decide the result.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	calls := 0
	for i := 0; i < 8; i++ {
		a := t.Rand.Intn(2) == 0
		b := t.Rand.Intn(2) == 0
		if a && check(co, b, &calls) {
			t.Printf("and true")
		}
		if a || check(co, b, &calls) {
			t.Printf("or true")
		}
		c := !a && (check(co, b, &calls) || check(co, !b, &calls))
		t.Printf("nested %v calls %d", c, calls)
	}
	x := check(co, true, &calls) && check(co, false, &calls) && check(co, true, &calls)
	t.Printf("chain %v calls %d", x, calls)
}

//co:stackless
func check(co *stackful.Co, v bool, calls *int) bool {
	co.Gosched()
	*calls++
	return v
}

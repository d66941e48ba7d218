package closurecalls

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers calls of closures that suspend in every position: as
// operands of expressions (evaluated in order), in conditions of if and
// for, as arguments of other calls, variadic, declared with var, with the
// handle parameter named differently, and with multiple results.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	calls := 0
	next := func() int {
		co.Gosched()
		calls++
		return calls
	}
	t.Printf("sum %d", next()*10+next())
	if next() > 2 {
		t.Printf("condition after %d calls", calls)
	}
	for next() < 6 {
		t.Printf("loop at %d", calls)
	}
	var sum = func(c *stackful.Co, xs ...int) int {
		c.Sleep(0)
		total := 0
		for _, x := range xs {
			total += x
		}
		return total
	}
	t.Printf("variadic %d", sum(co, 1, 2, next()))
	t.Printf("spread %d", sum(co, []int{4, 5}...))
	pair := func(k int) (int, string) {
		co.Gosched()
		return k, string(rune('a' + k))
	}
	n, s := pair(t.Rand.Intn(5))
	t.Printf("pair %d %s", n, s)
	m := map[int]string{}
	n, m[n] = pair(n + 1)
	t.Printf("map %v n %d", m, n)
	t.Printf("in call %d", max(next(), sum(co, n, n)))
}

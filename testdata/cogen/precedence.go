package precedence

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers expressions the lowering moves into a new context: a switch
// tag compared with case expressions of lower precedence, negated
// conditions, and operands rebuilt around a suspension point.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for i := 0; i < 4; i++ {
		p, q := i&1 != 0, i&2 != 0
		switch true {
		case p && q:
			t.Printf("%d both", i)
		case p || q:
			t.Printf("%d one", i)
		case get(co, false):
			t.Printf("%d never", i)
		default:
			t.Printf("%d none", i)
		}
		switch p {
		case q == p:
			t.Printf("%d equal", i)
		case get(co, true):
			t.Printf("%d p", i)
		}
		x, y := i, i+1
		switch x + y {
		case x | y:
			t.Printf("%d or", i)
		case num(co, 3) << 1:
			t.Printf("%d six", i)
		}
		if !(p && q) == get(co, true) {
			t.Printf("%d not both", i)
		}
		switch pt := (point{x, y}); pt {
		case point{0, 1}:
			t.Printf("%d origin", i)
		case point{num(co, 1), 2}:
			t.Printf("%d one two", i)
		}
		switch w := (*box(co, i)).(type) {
		case int:
			t.Printf("%d boxed int %d", i, w)
		}
		v := -(x - y) * num(co, 2)
		w := (x + y) * num(co, 3) / (y - x)
		t.Printf("%d %d %d", i, v, w)
	}
}

type point struct{ x, y int }

//co:stackless
func box(co *stackful.Co, i int) *any {
	co.Gosched()
	var v any = i
	return &v
}

//co:stackless
func get(co *stackful.Co, b bool) bool {
	co.Gosched()
	return b
}

//co:stackless
func num(co *stackful.Co, n int) int {
	co.Gosched()
	return n
}

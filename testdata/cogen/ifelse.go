package ifelse

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers if/else-if chains with init statements and conditions that
// suspend.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for i := 0; i < 6; i++ {
		v := t.Rand.Intn(10)
		if w := get(co, v); w < 3 {
			t.Printf("small %d", w)
		} else if u := get(co, w*2); u < 12 {
			t.Printf("medium %d %d", w, u)
		} else if get(co, u) > 15 {
			t.Printf("large %d", u)
		} else {
			co.Gosched()
			t.Printf("other %d %d", w, u)
		}
		if v%2 == 0 {
			t.Printf("even without suspension")
		}
	}
}

//co:stackless
func get(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

package importsonly

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run keeps values across suspensions whose types come from packages this
// file does not import (runtime/loop and math/rand, reached through the
// fields of trace.T): the generated file imports them, and go vet with
// cogen as its tool must find that output fresh (issue 23, class 12).
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	l := t.Loop
	r := t.Rand
	co.Gosched()
	t.Printf("loop %v", l != nil)
	t.Printf("rand %d", r.Intn(10))
	for i := range 3 {
		q := next(co, t)
		t.Printf("next %d %v", i, q != nil)
	}
}

//co:stackless
func next(co *stackful.Co, t *trace.T) interface{ Intn(int) int } {
	q := t.Rand
	co.Gosched()
	return q
}

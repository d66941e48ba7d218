package inlineorder

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run pins cogen's choice where gc's own order depends on its inliner: in
// a map literal with non-constant entries, gc inserts the entries one at a
// time, and an entry read late (m["k"]) is inserted before a call in a
// later entry, unless gc inlines that call (its body is then ordered
// before the insertions). A suspension point is a call of a frame in the
// generated code, never inlined: cogen gives the order of a call that is
// not inlined, the one gc gives for setNoinline in every build.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	m := map[string]int{"k": 1}
	l := map[string]any{"a": m["k"], "b": setNoinline(co, m, 2)}
	t.Printf("map literal %v %v", l["a"], l["b"])
	m["k"] = 1
	s := []any{m["k"], setNoinline(co, m, 2)}
	t.Printf("slice literal %v", s)
	m["k"] = 1
	t.Printf("args %d %d", m["k"], setNoinline(co, m, 2))
}

// setNoinline changes m["k"] after suspending.
//
//go:noinline
//co:stackless
func setNoinline(co *stackful.Co, m map[string]int, v int) int {
	co.Gosched()
	m["k"] = v
	return v
}

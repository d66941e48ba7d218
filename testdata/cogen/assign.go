package assign

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type pair struct{ a, b int }

// Run covers every form of assignment with suspension points on either
// side: tuples, op-assign, swaps, index, field and map targets, var and
// const declarations, and shadowing in nested scopes.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	const k = 3
	var x, y = 1, value(co, 2)
	x, y = y, x
	t.Printf("swap %d %d", x, y)
	a, b := two(co, x)
	t.Printf("tuple %d %d", a, b)
	a += value(co, k)
	b *= value(co, 2) + value(co, 1)
	t.Printf("opassign %d %d", a, b)
	s := make([]int, 4)
	m := map[string]int{}
	var p pair
	pp := &pair{}
	s[value(co, 1)] = value(co, 10)
	m["x"] = value(co, 20)
	m["y"] += value(co, 5)
	p.a, pp.b = value(co, 7), value(co, 8)
	s[2]++
	t.Printf("targets %v %v %v %v", s, m["x"]+m["y"], p, *pp)
	var z int
	t.Printf("zero %d", z)
	z = t.Rand.Intn(100)
	{
		z := z + value(co, 1)
		t.Printf("inner %d", z)
		if z > 0 {
			z := "shadow"
			co.Gosched()
			t.Printf("innermost %s", z)
		}
		t.Printf("inner again %d", z)
	}
	t.Printf("outer %d", z)
	var q int
	q, _ = two(co, q+1)
	_, r := two(co, q)
	t.Printf("blank %d %d", q, r)
	n, err := 0, error(nil)
	n, err = value(co, 4), nil
	t.Printf("mixed %d %v", n, err)
}

//co:stackless
func value(co *stackful.Co, v int) int {
	co.Sleep(time.Duration(v%2) * time.Millisecond)
	return v
}

//co:stackless
func two(co *stackful.Co, v int) (int, int) {
	co.Gosched()
	return v + 1, v + 2
}

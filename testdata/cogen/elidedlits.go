package elidedlits

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type Point struct{ X, Y int }

type P struct {
	Name string
	At   Point
}

// Run covers composite literals whose element types are elided and whose
// elements suspend: slices, arrays and maps of structs, pointers to
// structs, keys and values, nested literals.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	a := 1
	ps := []Point{{a, 2}, {3, get(co, 4)}}
	t.Printf("slice %v", ps)
	arr := [...]Point{{X: get(co, 5)}, 2: {Y: a}}
	t.Printf("array %v", arr)
	ptrs := []*P{{Name: "x", At: Point{get(co, 6), 7}}, {"y", Point{8, 9}}}
	t.Printf("pointers %v %v", *ptrs[0], *ptrs[1])
	m := map[Point]Point{{1, get(co, 2)}: {3, 4}, {5, 6}: {get(co, 7), 8}}
	t.Printf("map %v", m)
	nested := [][]Point{{{get(co, 1), 2}}, {{3, 4}, {5, get(co, 6)}}}
	t.Printf("nested %v", nested)
	mp := map[string][]*Point{"a": {{get(co, 1), 2}, nil}}
	t.Printf("map of pointers %v %v", *mp["a"][0], mp["a"][1])
	anon := []struct{ A, B int }{{get(co, 1), 2}}
	t.Printf("anonymous %v", anon)
	calls := []Point{{plain(t, 1), 2}, {3, get(co, 4)}}
	t.Printf("calls %v", calls)
	maps := []map[string]int{{"a": a, "b": plain(t, 2)}, {"c": get(co, 3)}}
	t.Printf("maps %v", maps)
	pmaps := []*map[string]int{{"a": a}, {"c": get(co, 3)}}
	t.Printf("pointers to maps %v %v", *pmaps[0], *pmaps[1])
}

func plain(t *trace.T, n int) int {
	t.Printf("plain %d", n)
	return n
}

//co:stackless
func get(co *stackful.Co, n int) int {
	co.Gosched()
	return n
}

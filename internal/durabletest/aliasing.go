package durabletest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// The reproducers of issue 35's aliasing, cycle and depth findings: each
// suspends between a write through one name and a read through another,
// so a restore that does not keep what the names shared changes the trace.

// Ship is a field of Cargo that pointers address on their own.
type Ship struct {
	Name string
	Tons int
}

// Cargo holds a Ship by value.
type Cargo struct {
	ID   int
	Ship Ship
	Legs [3]int
}

// PtrLocal writes through pointers into its own locals (an int, a struct,
// a struct's field, an array element) after checkpoints and reads the
// locals.
//
//co:stackless durable
func PtrLocal(co *stackful.Co) string {
	x := 5
	p := &x
	o := Cargo{ID: 1, Ship: Ship{Name: "a"}}
	q := &o
	s := &o.Ship
	arr := [3]int{1, 2, 3}
	e := &arr[1]
	logf("ptrlocal start")
	co.Gosched()
	*p = 7
	q.ID = 2
	s.Tons = 40
	*e = 20
	logf("ptrlocal written")
	co.Gosched()
	logf("ptrlocal x=%d o=%+v arr=%v", x, o, arr)
	x++
	o.Ship.Name = "b"
	arr[1]++
	co.Gosched()
	out := fmt.Sprintf("%d %d %s %d %d %d", *p, q.ID, s.Name, s.Tons, *e, o.Legs[0])
	logf("ptrlocal %s", out)
	return out
}

// OutParam passes its locals by address to a durable callee that
// suspends before and after writing through them.
//
//co:stackless durable
func OutParam(co *stackful.Co) string {
	total := 1
	o := Cargo{}
	addTo(co, &total, &o.Ship.Tons, 5)
	logf("outparam total=%d tons=%d", total, o.Ship.Tons)
	addTo(co, &total, &o.Legs[2], 2)
	out := fmt.Sprintf("%d %d %v", total, o.Ship.Tons, o.Legs)
	logf("outparam %s", out)
	return out
}

//co:stackless durable
func addTo(co *stackful.Co, total, other *int, n int) {
	logf("addTo before %d %d", *total, *other)
	co.Gosched()
	*total += n
	*other += n
	logf("addTo written")
	co.Gosched()
	logf("addTo %d %d", *total, *other)
}

// Tree is a map that may hold itself.
type Tree map[string]Tree

// Holder keeps a map and a slice that its owner keeps too.
type Holder struct {
	M map[string]int
	S []int
}

// SharedRefs holds one map in two locals and a struct, slices over one
// array at different offsets, a map that contains itself and a slice of
// pointers into the elements of another slice, and writes through each
// name after checkpoints.
//
//co:stackless durable
func SharedRefs(co *stackful.Co) string {
	m := map[string]int{"a": 1}
	n := m
	h := &Holder{M: m}
	arr := []int{1, 2, 3, 4, 5}
	mid := arr[1:3]
	tail := arr[3:]
	h.S = mid
	self := Tree{}
	self["self"] = self
	ptrs := []*int{&arr[0], &arr[4]}
	one := []int{4} // a slice of one element and a pointer to it: one span
	po := &one[0]
	logf("shared start")
	co.Gosched()
	n["b"] = 2
	h.M["c"] = 3
	mid[0] = 20
	tail[1] = 50
	mid = append(mid, 30) // within arr's capacity: arr[3] becomes 30
	*ptrs[0] = 10
	*po = 44
	self["self"]["x"] = Tree{}
	logf("shared written")
	co.Gosched()
	logf("shared m=%v arr=%v mid=%v tail=%v h.S=%v self=%v", sortedMap(m), arr, mid, tail, h.S, slices.Sorted(maps.Keys(self)))
	co.Gosched()
	out := fmt.Sprintf("%d %d %d %v %d %v", len(m), len(h.M), *ptrs[1], arr, len(self["self"]["self"]["self"]), one)
	logf("shared %s", out)
	return out
}

func sortedMap(m map[string]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s:%d ", k, m[k])
	}
	return b.String()
}

// Node is a cell of a linked list.
type Node struct {
	V    int
	Next *Node
}

// Ring is a pointer cycle through a map and a slice.
type Ring struct {
	Name  string
	Peers map[string]*Ring
	Back  []*Ring
}

// Deep builds a list of n nodes and a ring of rings, checkpoints, then
// walks them: a snapshot of it must not recurse along the list.
//
//co:stackless durable
func Deep(co *stackful.Co, n int) string {
	var head *Node
	for i := range n {
		head = &Node{V: i, Next: head}
	}
	a := &Ring{Name: "a", Peers: map[string]*Ring{}}
	b := &Ring{Name: "b", Peers: map[string]*Ring{"a": a}, Back: []*Ring{a}}
	a.Peers["b"] = b
	a.Back = append(a.Back, b, a)
	logf("deep built")
	co.Gosched()
	sum, count := 0, 0
	for p := head; p != nil; p = p.Next {
		sum += p.V
		count++
	}
	b.Peers["a"].Name = "A"
	out := fmt.Sprintf("%d %d %s %s %t", count, sum, a.Name, a.Back[0].Peers["a"].Back[1].Name, a.Back[0] == a.Peers["b"])
	logf("deep %s", out)
	return out
}

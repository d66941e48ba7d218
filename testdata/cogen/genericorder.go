package genericorder

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type P2 struct{ a, b int32 }

type cache[K comparable, V any] struct {
	m    map[K]V
	load func(K) V
}

// fill is the everyday generic cache fill: a map index of a type-parameter
// key and element assigned the result of a suspending call.
//
//co:stackless
func fill[K comparable, V any](co *stackful.Co, c *cache[K, V], k K) V {
	c.m[k] = load(co, c, k)
	return c.m[k]
}

//co:stackless
func load[K comparable, V any](co *stackful.Co, c *cache[K, V], k K) V {
	co.Gosched()
	return c.load(k)
}

//co:stackless
func wrapAll[V any](co *stackful.Co, m map[string]V, k string, v V) {
	m[k] = wrap(co, v)
}

//co:stackless
func wrap[V any](co *stackful.Co, v V) V {
	co.Gosched()
	return v
}

// Ints is a constraint whose every type is an integer: a map keyed by one
// is a fast map with a late key, whatever the instance.
type Ints interface{ ~int32 | ~int64 | ~uint64 }

//co:stackless
func intKey[K Ints](co *stackful.Co, m map[K]string, k K) string {
	return fmt.Sprint(m[k], set(co, &k, k+1))
}

// Pairs are 8-byte structs: a map keyed by one copies the key at its
// place, whatever the instance.
type Pairs interface{ ~struct{ a, b int32 } }

//co:stackless
func pairKey[K Pairs](co *stackful.Co, m map[K]string, k K, next K) string {
	return fmt.Sprint(m[k], set(co, &k, next))
}

// Ptrs are pointer-shaped: an assertion to one is read late.
type Ptrs interface{ *int | *string }

//co:stackless
func assertPtr[T Ptrs](co *stackful.Co, x any, next any) string {
	return fmt.Sprint(x.(T) != nil, setAny(co, &x, next))
}

// Wides are converted to an interface through their address: an
// assertion to one (dynamic, late in itself) is copied at its place when
// it is converted.
type Wides interface{ ~[2]int | ~[3]int }

// Strs are converted to an interface by value: an assertion to one is
// read late.
type Strs interface{ ~string }

//co:stackless
func assertStr[T Strs](co *stackful.Co, x any, next any) string {
	return fmt.Sprint(x.(T), setAny(co, &x, next))
}

//co:stackless
func assertWide[T Wides](co *stackful.Co, x any, next any) string {
	return fmt.Sprint(x.(T), setAny(co, &x, next))
}

// Bigs are converted to an interface through their address: a map lookup
// of one, not addressable, is copied at its place.
type Bigs interface{ ~[2]int | ~[3]int }

//co:stackless
func convBig[T Bigs](co *stackful.Co, m map[string]T, next T) string {
	return fmt.Sprint(m["k"], setMap(co, m, next))
}

//co:stackless
func set[T any](co *stackful.Co, p *T, v T) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setAny(co *stackful.Co, p *any, v any) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func setMap[T any](co *stackful.Co, m map[string]T, v T) int {
	co.Gosched()
	m["k"] = v
	return 0
}

// Run checks the order of generic code: gc compiles it once per shape of
// its type arguments, and where every type a constraint allows gives the
// same order, cogen produces it.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	c := &cache[P2, [3]int]{m: map[P2][3]int{}, load: func(k P2) [3]int { return [3]int{int(k.a), int(k.b), 0} }}
	t.Printf("fill %v", fill(co, c, P2{1, 2}))
	c2 := &cache[int, string]{m: map[int]string{}, load: func(k int) string { return fmt.Sprint("v", k) }}
	t.Printf("fill %v %v", fill(co, c2, 7), c2.m)
	m := map[string][200]byte{}
	wrapAll(co, m, "k", [200]byte{1})
	t.Printf("wrap %d", m["k"][0])
	t.Printf("intkey %s", intKey(co, map[int64]string{1: "one", 2: "two"}, 1))
	t.Printf("pairkey %s", pairKey(co, map[P2]string{{1, 1}: "one", {2, 2}: "two"}, P2{1, 1}, P2{2, 2}))
	one, two := 1, 2
	t.Printf("assertptr %s", assertPtr[*int](co, &one, &two))
	t.Printf("assertwide %s", assertWide[[2]int](co, [2]int{1, 1}, [2]int{2, 2}))
	t.Printf("assertstr %s", assertStr[string](co, "one", "two"))
	t.Printf("convbig %s", convBig(co, map[string][2]int{"k": {1, 1}}, [2]int{2, 2}))
}

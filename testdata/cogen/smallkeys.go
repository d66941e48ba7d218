package smallkeys

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type P2 struct{ a, b int32 }

type W struct{ v int64 }

type PP struct{ p *int }

type P3 struct{ a, b, c int32 }

type SK struct{ s string }

type FK struct{ f float64 }

// Run checks the map keys gc copies at their place: a fast map's key (4 or
// 8 bytes of plain memory) that is a struct or an array, even when it is a
// variable, is read before a suspending call to its right; integer,
// pointer and string keys are read after it.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	m := map[P2]string{{1, 1}: "one", {2, 2}: "two"}
	k := P2{1, 1}
	t.Printf("lookup %s %s", m[k], setP(co, &k, P2{2, 2}))
	k = P2{1, 1}
	n := map[P2]int{{1, 1}: 10, {2, 2}: 20}
	n[k] = one(co, &k, P2{2, 2})
	t.Printf("assign %v", n)
	k = P2{1, 1}
	n[k] += one(co, &k, P2{2, 2})
	t.Printf("opassign %v", n)
	k = P2{1, 1}
	nested := map[P2]map[string]int{{1, 1}: {"x": 1}, {2, 2}: {"x": 2}}
	t.Printf("nested %d %s", nested[k]["x"], setP(co, &k, P2{2, 2}))
	k = P2{1, 1}
	t.Printf("slicelit %v", []int{n[k], setI(co, &k, P2{2, 2})})

	a := [2]int32{1, 2}
	am := map[[2]int32]int{{1, 2}: 1, {3, 4}: 2}
	t.Printf("array2 %d %d", am[a], bumpA(co, &a))
	b8 := [8]byte{1}
	bm := map[[8]byte]int{{1}: 1, {2}: 2}
	t.Printf("bytes8 %d %d", bm[b8], bump8(co, &b8))
	b4 := [4]byte{1}
	bm4 := map[[4]byte]int{{1}: 1, {2}: 2}
	t.Printf("bytes4 %d %d", bm4[b4], bump4(co, &b4))
	w := W{1}
	wm := map[W]int{{1}: 1, {2}: 2}
	t.Printf("int64struct %d %d", wm[w], bumpW(co, &w))
	x, y := 1, 2
	pp := PP{&x}
	pm := map[PP]int{{&x}: 1, {&y}: 2}
	t.Printf("ptrstruct %d %d", pm[pp], setPP(co, &pp, PP{&y}))

	// Integer, pointer and string keys are read late.
	i := int64(1)
	im := map[int64]int{1: 1, 2: 2}
	t.Printf("int64 %d %d", im[i], bumpI(co, &i))
	s := "a"
	sm := map[string]int{"a": 1, "b": 2}
	t.Printf("string %d %d", sm[s], setS(co, &s, "b"))
	px := &x
	ptm := map[*int]int{&x: 1, &y: 2}
	t.Printf("pointer %d %d", ptm[px], setPtr(co, &px, &y))
	// A slow map (a 12-byte key): an addressable key is read late.
	k3 := P3{1, 1, 1}
	m3 := map[P3]int{{1, 1, 1}: 1, {2, 2, 2}: 2}
	t.Printf("slow %d %d", m3[k3], set3(co, &k3, P3{2, 2, 2}))
	// A struct of one string is a fast string map's key: copied.
	sk := SK{"a"}
	skm := map[SK]int{{"a"}: 1, {"b"}: 2}
	t.Printf("stringstruct %d %d", skm[sk], set3(co, &sk, SK{"b"}))
	// A struct of one float is a slow map's key: read late.
	fk := FK{1}
	fkm := map[FK]int{{1}: 1, {2}: 2}
	t.Printf("floatstruct %d %d", fkm[fk], set3(co, &fk, FK{2}))
}

//co:stackless
func setP(co *stackful.Co, k *P2, v P2) string {
	co.Gosched()
	*k = v
	return "set"
}

//co:stackless
func one(co *stackful.Co, k *P2, v P2) int {
	co.Gosched()
	*k = v
	return 1
}

//co:stackless
func setI(co *stackful.Co, k *P2, v P2) int {
	co.Gosched()
	*k = v
	return 7
}

//co:stackless
func bumpA(co *stackful.Co, a *[2]int32) int {
	co.Gosched()
	*a = [2]int32{3, 4}
	return 0
}

//co:stackless
func bump8(co *stackful.Co, a *[8]byte) int {
	co.Gosched()
	a[0] = 2
	return 0
}

//co:stackless
func bump4(co *stackful.Co, a *[4]byte) int {
	co.Gosched()
	a[0] = 2
	return 0
}

//co:stackless
func bumpW(co *stackful.Co, w *W) int {
	co.Gosched()
	w.v = 2
	return 0
}

//co:stackless
func setPP(co *stackful.Co, p *PP, v PP) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func bumpI(co *stackful.Co, i *int64) int {
	co.Gosched()
	*i = 2
	return 0
}

//co:stackless
func setS(co *stackful.Co, s *string, v string) int {
	co.Gosched()
	*s = v
	return 0
}

//co:stackless
func setPtr(co *stackful.Co, p **int, v *int) int {
	co.Gosched()
	*p = v
	return 0
}

//co:stackless
func set3[T any](co *stackful.Co, p *T, v T) int {
	co.Gosched()
	*p = v
	return 0
}

// Code ported from $GOROOT/test/range4.go by portgen/range4.py; edit that.

package range4

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs the tests of range4.go; a failing one panics, as there.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Printf("panic: %v", r)
		}
	}()
	testfunc0(co, t)
	t.Printf("testfunc0 done")
	testfunc1(co, t)
	t.Printf("testfunc1 done")
	testfunc2(co, t)
	t.Printf("testfunc2 done")
	testfunc3(co, t)
	t.Printf("testfunc3 done")
	testfunc4(co, t)
	t.Printf("testfunc4 done")
	testfunc5(co, t)
	t.Printf("testfunc5 done")
	testfunc6(co, t)
	t.Printf("testfunc6 done")
	testfunc7(co, t)
	t.Printf("testfunc7 done")
	testfunc8(co, t)
	t.Printf("testfunc8 done")
	testfunc9(co, t)
	t.Printf("testfunc9 done")
	testcalls(co, t)
	t.Printf("testcalls done")
	testcalls1(co, t)
	t.Printf("testcalls1 done")
}

var gj int

func yield4x(yield func() bool) {
	_ = yield() && yield() && yield() && yield()
}

func yield4(yield func(int) bool) {
	_ = yield(1) && yield(2) && yield(3) && yield(4)
}

func yield3(yield func(int) bool) {
	_ = yield(1) && yield(2) && yield(3)
}

func yield2(yield func(int) bool) {
	_ = yield(1) && yield(2)
}

//co:stackless
func testfunc0(co *stackful.Co, t *trace.T) {
	j := 0
	for range yield4x {
		co.Gosched()
		j++
	}
	if j != 4 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over yield4x:", j))
		panic("testfunc0")
	}

	j = 0
	for _ = range yield4 {
		co.Gosched()
		j++
	}
	if j != 4 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over yield4:", j))
		panic("testfunc0")
	}
}

//co:stackless
func testfunc1(co *stackful.Co, t *trace.T) {
	bad := false
	j := 1
	for i := range yield4 {
		co.Gosched()
		if i != j {
			t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
			bad = true
		}
		j++
	}
	if j != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over f:", j))
		bad = true
	}
	if bad {
		panic("testfunc1")
	}
}

//co:stackless
func testfunc2(co *stackful.Co, t *trace.T) {
	bad := false
	j := 1
	var i int
	for i = range yield4 {
		co.Gosched()
		if i != j {
			t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
			bad = true
		}
		j++
	}
	if j != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over f:", j))
		bad = true
	}
	if i != 4 {
		t.Printf("%s", fmt.Sprintln("wrong final i ranging over f:", i))
		bad = true
	}
	if bad {
		panic("testfunc2")
	}
}

//co:stackless
func testfunc3(co *stackful.Co, t *trace.T) {
	bad := false
	j := 1
	var i int
	for i = range yield4 {
		co.Gosched()
		if i != j {
			t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
			bad = true
		}
		j++
		if i == 2 {
			break
		}
		continue
	}
	if j != 3 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over f:", j))
		bad = true
	}
	if i != 2 {
		t.Printf("%s", fmt.Sprintln("wrong final i ranging over f:", i))
		bad = true
	}
	if bad {
		panic("testfunc3")
	}
}

//co:stackless
func testfunc4(co *stackful.Co, t *trace.T) {
	bad := false
	j := 1
	var i int
	func(co *stackful.Co) {
		for i = range yield4 {
			co.Gosched()
			if i != j {
				t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
				bad = true
			}
			j++
			if i == 2 {
				return
			}
		}
	}(co)
	if j != 3 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over f:", j))
		bad = true
	}
	if i != 2 {
		t.Printf("%s", fmt.Sprintln("wrong final i ranging over f:", i))
		bad = true
	}
	if bad {
		panic("testfunc3")
	}
}

//co:stackless
func func5(co *stackful.Co, t *trace.T) (int, int) {
	for i := range yield4 {
		co.Gosched()
		return 10, i
	}
	panic("still here")
}

//co:stackless
func testfunc5(co *stackful.Co, t *trace.T) {
	x, y := func5(co, t)
	if x != 10 || y != 1 {
		t.Printf("%s", fmt.Sprintln("wrong results", x, y, "want", 10, 1))
		panic("testfunc5")
	}
}

//co:stackless
func func6(co *stackful.Co, t *trace.T) (z, w int) {
	for i := range yield4 {
		co.Gosched()
		z = 10
		w = i
		return
	}
	panic("still here")
}

//co:stackless
func testfunc6(co *stackful.Co, t *trace.T) {
	x, y := func6(co, t)
	if x != 10 || y != 1 {
		t.Printf("%s", fmt.Sprintln("wrong results", x, y, "want", 10, 1))
		panic("testfunc6")
	}
}

var saved = map[*trace.T][]int{}

func save(t *trace.T, x int) {
	saved[t] = append(saved[t], x)
}

func printslice(s []int) {
	print("[")
	for i, x := range s {
		if i > 0 {
			print(", ")
		}
		print(x)
	}
	print("]")
}

func eqslice(s, t []int) bool {
	if len(s) != len(t) {
		return false
	}
	for i, x := range s {
		if x != t[i] {
			return false
		}
	}
	return true
}

//co:stackless
func func7(co *stackful.Co, t *trace.T) {
	defer save(t, -1)
	for i := range yield4 {
		co.Gosched()
		defer save(t, i)
	}
	defer save(t, 5)
}

func checkslice(name string, saved, want []int) {
	if !eqslice(saved, want) {
		print("wrong results ")
		printslice(saved)
		print(" want ")
		printslice(want)
		print("\n")
		panic(name)
	}
}

//co:stackless
func testfunc7(co *stackful.Co, t *trace.T) {
	saved[t] = nil
	func7(co, t)
	want := []int{5, 4, 3, 2, 1, -1}
	checkslice("testfunc7", saved[t], want)
}

//co:stackless
func func8(co *stackful.Co, t *trace.T) {
	defer save(t, -1)
	for i := range yield2 {
		co.Gosched()
		for j := range yield3 {
			co.Gosched()
			defer save(t, i*10+j)
		}
		defer save(t, i)
	}
	defer save(t, -2)
	for i := range yield4 {
		co.Gosched()
		defer save(t, i)
	}
	defer save(t, -3)
}

//co:stackless
func testfunc8(co *stackful.Co, t *trace.T) {
	saved[t] = nil
	func8(co, t)
	want := []int{-3, 4, 3, 2, 1, -2, 2, 23, 22, 21, 1, 13, 12, 11, -1}
	checkslice("testfunc8", saved[t], want)
}

//co:stackless
func func9(co *stackful.Co, t *trace.T) {
	n := 0
	for _ = range yield2 {
		co.Gosched()
		for _ = range yield3 {
			co.Gosched()
			n++
			defer save(t, n)
		}
	}
}

//co:stackless
func testfunc9(co *stackful.Co, t *trace.T) {
	saved[t] = nil
	func9(co, t)
	want := []int{6, 5, 4, 3, 2, 1}
	checkslice("testfunc9", saved[t], want)
}

// test that range evaluates the index and value expressions
// exactly once per iteration.

var ncalls = map[*trace.T]int{}

func getvar(t *trace.T, p *int) *int {
	ncalls[t]++
	return p
}

func iter2(list ...int) func(func(int, int) bool) {
	return func(yield func(int, int) bool) {
		for i, x := range list {
			if !yield(i, x) {
				return
			}
		}
	}
}

//co:stackless
func testcalls(co *stackful.Co, t *trace.T) {
	var i, v int
	ncalls[t] = 0
	si := 0
	sv := 0
	for *getvar(t, &i), *getvar(t, &v) = range iter2(1, 2) {
		co.Gosched()
		si += i
		sv += v
	}
	if ncalls[t] != 4 {
		t.Printf("%s", fmt.Sprintln("wrong number of calls:", ncalls[t], "!= 4"))
		panic("fail")
	}
	if si != 1 || sv != 3 {
		t.Printf("%s", fmt.Sprintln("wrong sum in testcalls", si, sv))
		panic("fail")
	}
}

type iter3YieldFunc func(int, int) bool

func iter3(list ...int) func(iter3YieldFunc) {
	return func(yield iter3YieldFunc) {
		for k, v := range list {
			if !yield(k, v) {
				return
			}
		}
	}
}

//co:stackless
func testcalls1(co *stackful.Co, t *trace.T) {
	ncalls := 0
	for k, v := range iter3(1, 2, 3) {
		co.Gosched()
		_, _ = k, v
		ncalls++
	}
	if ncalls != 3 {
		t.Printf("%s", fmt.Sprintln("wrong number of calls:", ncalls, "!= 3"))
		panic("fail")
	}
}

// Code ported from $GOROOT/test/range.go by portgen/goroottest.py; edit that.

package rangego

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs the tests of range.go; a failing one panics, as there.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Printf("panic: %v", r)
		}
	}()
	testblankvars(co, t)
	t.Printf("testblankvars done")
	testchan(co, t)
	t.Printf("testchan done")
	testslice(co, t)
	t.Printf("testslice done")
	testslice1(co, t)
	t.Printf("testslice1 done")
	testslice2(co, t)
	t.Printf("testslice2 done")
	testslice3(co, t)
	t.Printf("testslice3 done")
	testarray(co, t)
	t.Printf("testarray done")
	testarray1(co, t)
	t.Printf("testarray1 done")
	testarray2(co, t)
	t.Printf("testarray2 done")
	testarrayptr(co, t)
	t.Printf("testarrayptr done")
	testarrayptr1(co, t)
	t.Printf("testarrayptr1 done")
	testarrayptr2(co, t)
	t.Printf("testarrayptr2 done")
	teststring(co, t)
	t.Printf("teststring done")
	teststring1(co, t)
	t.Printf("teststring1 done")
	teststring2(co, t)
	t.Printf("teststring2 done")
	testmap(co, t)
	t.Printf("testmap done")
	testmap1(co, t)
	t.Printf("testmap1 done")
	testmap2(co, t)
	t.Printf("testmap2 done")
	testcalls(co, t)
	t.Printf("testcalls done")
}

func gen(c chan int, lo, hi int) {
	for i := lo; i <= hi; i++ {
		c <- i
	}
	close(c)
}

func seq(lo, hi int) chan int {
	c := make(chan int)
	go gen(c, lo, hi)
	return c
}

const alphabet = "abcdefghijklmnopqrstuvwxyz"

//co:stackless
func testblankvars(co *stackful.Co, t *trace.T) {
	n := 0
	for range alphabet {
		co.Gosched()
		n++
	}
	if n != 26 {
		t.Printf("%s", fmt.Sprintln("for range: wrong count", n, "want 26"))
		panic("fail")
	}
	n = 0
	for _ = range alphabet {
		co.Gosched()
		n++
	}
	if n != 26 {
		t.Printf("%s", fmt.Sprintln("for _ = range: wrong count", n, "want 26"))
		panic("fail")
	}
	n = 0
	for _, _ = range alphabet {
		co.Gosched()
		n++
	}
	if n != 26 {
		t.Printf("%s", fmt.Sprintln("for _, _ = range: wrong count", n, "want 26"))
		panic("fail")
	}
	s := 0
	for i, _ := range alphabet {
		co.Gosched()
		s += i
	}
	if s != 325 {
		t.Printf("%s", fmt.Sprintln("for i, _ := range: wrong sum", s, "want 325"))
		panic("fail")
	}
	r := rune(0)
	for _, v := range alphabet {
		co.Gosched()
		r += v
	}
	if r != 2847 {
		t.Printf("%s", fmt.Sprintln("for _, v := range: wrong sum", r, "want 2847"))
		panic("fail")
	}
}

//co:stackless
func testchan(co *stackful.Co, t *trace.T) {
	s := ""
	for i := range seq('a', 'z') { //co:blocking fed by a goroutine
		co.Gosched()
		s += string(rune(i))
	}
	if s != alphabet {
		t.Printf("%s", fmt.Sprintln("Wanted lowercase alphabet; got", s))
		panic("fail")
	}
	n := 0
	for range seq('a', 'z') { //co:blocking fed by a goroutine
		co.Gosched()
		n++
	}
	if n != 26 {
		t.Printf("%s", fmt.Sprintln("testchan wrong count", n, "want 26"))
		panic("fail")
	}
}

// test that range over slice only evaluates
// the expression after "range" once.

var nmake = map[*trace.T]int{}

func makeslice(t *trace.T) []int {
	nmake[t]++
	return []int{1, 2, 3, 4, 5}
}

//co:stackless
func testslice(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for _, v := range makeslice(t) {
		co.Gosched()
		s += v
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makeslice", nmake[t], "times"))
		panic("fail")
	}
	if s != 15 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makeslice", s))
		panic("fail")
	}

	x := []int{10, 20}
	y := []int{99}
	i := 1
	for i, x[i] = range y {
		co.Gosched()
		break
	}
	if i != 0 || x[0] != 10 || x[1] != 99 {
		t.Printf("%s", fmt.Sprintln("wrong parallel assignment", i, x[0], x[1]))
		panic("fail")
	}
}

//co:stackless
func testslice1(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for i := range makeslice(t) {
		co.Gosched()
		s += i
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makeslice", nmake[t], "times"))
		panic("fail")
	}
	if s != 10 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makeslice", s))
		panic("fail")
	}
}

//co:stackless
func testslice2(co *stackful.Co, t *trace.T) {
	n := 0
	nmake[t] = 0
	for range makeslice(t) {
		co.Gosched()
		n++
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makeslice", nmake[t], "times"))
		panic("fail")
	}
	if n != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over makeslice", n))
		panic("fail")
	}
}

// test that range over []byte(string) only evaluates
// the expression after "range" once.

func makenumstring(t *trace.T) string {
	nmake[t]++
	return "\x01\x02\x03\x04\x05"
}

//co:stackless
func testslice3(co *stackful.Co, t *trace.T) {
	s := byte(0)
	nmake[t] = 0
	for _, v := range []byte(makenumstring(t)) {
		co.Gosched()
		s += v
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makenumstring", nmake[t], "times"))
		panic("fail")
	}
	if s != 15 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over []byte(makenumstring)", s))
		panic("fail")
	}
}

// test that range over array only evaluates
// the expression after "range" once.

func makearray(t *trace.T) [5]int {
	nmake[t]++
	return [5]int{1, 2, 3, 4, 5}
}

//co:stackless
func testarray(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for _, v := range makearray(t) {
		co.Gosched()
		s += v
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makearray", nmake[t], "times"))
		panic("fail")
	}
	if s != 15 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makearray", s))
		panic("fail")
	}
}

//co:stackless
func testarray1(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for i := range makearray(t) {
		co.Gosched()
		s += i
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makearray", nmake[t], "times"))
		panic("fail")
	}
	if s != 10 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makearray", s))
		panic("fail")
	}
}

//co:stackless
func testarray2(co *stackful.Co, t *trace.T) {
	n := 0
	nmake[t] = 0
	for range makearray(t) {
		co.Gosched()
		n++
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makearray", nmake[t], "times"))
		panic("fail")
	}
	if n != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over makearray", n))
		panic("fail")
	}
}

func makearrayptr(t *trace.T) *[5]int {
	nmake[t]++
	return &[5]int{1, 2, 3, 4, 5}
}

//co:stackless
func testarrayptr(co *stackful.Co, t *trace.T) {
	nmake[t] = 0
	x := len(makearrayptr(t))
	if x != 5 || nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("len called makearrayptr", nmake[t], "times and got len", x))
		panic("fail")
	}
	nmake[t] = 0
	x = cap(makearrayptr(t))
	if x != 5 || nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("cap called makearrayptr", nmake[t], "times and got len", x))
		panic("fail")
	}
	s := 0
	nmake[t] = 0
	for _, v := range makearrayptr(t) {
		co.Gosched()
		s += v
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makearrayptr", nmake[t], "times"))
		panic("fail")
	}
	if s != 15 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makearrayptr", s))
		panic("fail")
	}
}

//co:stackless
func testarrayptr1(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for i := range makearrayptr(t) {
		co.Gosched()
		s += i
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makearrayptr", nmake[t], "times"))
		panic("fail")
	}
	if s != 10 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makearrayptr", s))
		panic("fail")
	}
}

//co:stackless
func testarrayptr2(co *stackful.Co, t *trace.T) {
	n := 0
	nmake[t] = 0
	for range makearrayptr(t) {
		co.Gosched()
		n++
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makearrayptr", nmake[t], "times"))
		panic("fail")
	}
	if n != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over makearrayptr", n))
		panic("fail")
	}
}

// test that range over string only evaluates
// the expression after "range" once.

func makestring(t *trace.T) string {
	nmake[t]++
	return "abcd☺"
}

//co:stackless
func teststring(co *stackful.Co, t *trace.T) {
	var s rune
	nmake[t] = 0
	for _, v := range makestring(t) {
		co.Gosched()
		s += v
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makestring", nmake[t], "times"))
		panic("fail")
	}
	if s != 'a'+'b'+'c'+'d'+'☺' {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makestring", s))
		panic("fail")
	}

	x := []rune{'a', 'b'}
	i := 1
	for i, x[i] = range "c" {
		co.Gosched()
		break
	}
	if i != 0 || x[0] != 'a' || x[1] != 'c' {
		t.Printf("%s", fmt.Sprintln("wrong parallel assignment", i, x[0], x[1]))
		panic("fail")
	}

	y := []int{1, 2, 3}
	r := rune(1)
	for y[r], r = range "\x02" {
		co.Gosched()
		break
	}
	if r != 2 || y[0] != 1 || y[1] != 0 || y[2] != 3 {
		t.Printf("%s", fmt.Sprintln("wrong parallel assignment", r, y[0], y[1], y[2]))
		panic("fail")
	}
}

//co:stackless
func teststring1(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for i := range makestring(t) {
		co.Gosched()
		s += i
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makestring", nmake[t], "times"))
		panic("fail")
	}
	if s != 10 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makestring", s))
		panic("fail")
	}
}

//co:stackless
func teststring2(co *stackful.Co, t *trace.T) {
	n := 0
	nmake[t] = 0
	for range makestring(t) {
		co.Gosched()
		n++
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makestring", nmake[t], "times"))
		panic("fail")
	}
	if n != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over makestring", n))
		panic("fail")
	}
}

// test that range over map only evaluates
// the expression after "range" once.

func makemap(t *trace.T) map[int]int {
	nmake[t]++
	return map[int]int{0: 'a', 1: 'b', 2: 'c', 3: 'd', 4: '☺'}
}

//co:stackless
func testmap(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for _, v := range makemap(t) {
		co.Gosched()
		s += v
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makemap", nmake[t], "times"))
		panic("fail")
	}
	if s != 'a'+'b'+'c'+'d'+'☺' {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makemap", s))
		panic("fail")
	}
}

//co:stackless
func testmap1(co *stackful.Co, t *trace.T) {
	s := 0
	nmake[t] = 0
	for i := range makemap(t) {
		co.Gosched()
		s += i
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makemap", nmake[t], "times"))
		panic("fail")
	}
	if s != 10 {
		t.Printf("%s", fmt.Sprintln("wrong sum ranging over makemap", s))
		panic("fail")
	}
}

//co:stackless
func testmap2(co *stackful.Co, t *trace.T) {
	n := 0
	nmake[t] = 0
	for range makemap(t) {
		co.Gosched()
		n++
	}
	if nmake[t] != 1 {
		t.Printf("%s", fmt.Sprintln("range called makemap", nmake[t], "times"))
		panic("fail")
	}
	if n != 5 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over makemap", n))
		panic("fail")
	}
}

// test that range evaluates the index and value expressions
// exactly once per iteration.

var ncalls = map[*trace.T]int{}

func getvar(t *trace.T, p *int) *int {
	ncalls[t]++
	return p
}

//co:stackless
func testcalls(co *stackful.Co, t *trace.T) {
	var i, v int
	si := 0
	sv := 0
	for *getvar(t, &i), *getvar(t, &v) = range [2]int{1, 2} {
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

	ncalls[t] = 0
	for *getvar(t, &i), *getvar(t, &v) = range [0]int{} {
		co.Gosched()
		t.Printf("%s", fmt.Sprintln("loop ran on empty array"))
		panic("fail")
	}
	if ncalls[t] != 0 {
		t.Printf("%s", fmt.Sprintln("wrong number of calls:", ncalls[t], "!= 0"))
		panic("fail")
	}
}

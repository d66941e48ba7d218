// Code ported from $GOROOT/test/range3.go by portgen/goroottest.py; edit that.

package range3

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs the tests of range3.go; a failing one panics, as there.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Printf("panic: %v", r)
		}
	}()
	testint1(co, t)
	t.Printf("testint1 done")
	testint2(co, t)
	t.Printf("testint2 done")
	testint3(co, t)
	t.Printf("testint3 done")
	testint4(co, t)
	t.Printf("testint4 done")
	testint5(co, t)
	t.Printf("testint5 done")
}

type MyInt int

//co:stackless
func testint1(co *stackful.Co, t *trace.T) {
	bad := false
	j := 0
	for i := range int(4) {
		co.Gosched()
		if i != j {
			t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
			bad = true
		}
		j++
	}
	if j != 4 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over 4:", j))
		bad = true
	}
	if bad {
		panic("testint1")
	}
}

//co:stackless
func testint2(co *stackful.Co, t *trace.T) {
	bad := false
	j := 0
	for i := range 4 {
		co.Gosched()
		if i != j {
			t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
			bad = true
		}
		j++
	}
	if j != 4 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over 4:", j))
		bad = true
	}
	if bad {
		panic("testint2")
	}
}

//co:stackless
func testint3(co *stackful.Co, t *trace.T) {
	bad := false
	j := MyInt(0)
	for i := range MyInt(4) {
		co.Gosched()
		if i != j {
			t.Printf("%s", fmt.Sprintln("range var", i, "want", j))
			bad = true
		}
		j++
	}
	if j != 4 {
		t.Printf("%s", fmt.Sprintln("wrong count ranging over 4:", j))
		bad = true
	}
	if bad {
		panic("testint3")
	}
}

// Issue #63378.
//
//co:stackless
func testint4(co *stackful.Co, t *trace.T) {
	for i := range -1 {
		co.Gosched()
		_ = i
		panic("must not be executed")
	}
}

// Issue #64471.
//
//co:stackless
func testint5(co *stackful.Co, t *trace.T) {
	for i := range 'a' {
		co.Gosched()
		var _ *rune = &i // ensure i has type rune
	}
}

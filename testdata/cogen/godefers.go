// Package godefers ports $GOROOT/test/defer.go (deferred calls run last
// first, with the arguments of the defer statement, variadic ones too),
// defernil.go (deferring a nil function panics when the call runs, not at
// the defer statement) and recover2.go (runtime errors recovered by a
// deferred function called directly, with their messages), with
// suspensions in the loop bodies, the deferred calls' arguments and
// between the defer statements and the panics. The port records what the
// original checks with panics: the differential test compares it between
// the models.
package godefers

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs every case.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	r := &recorder{}
	test1helper(co, r)
	t.Printf("defer test1: %q (want 9876543210)", r.result)
	r.result = ""
	test2helper(co, r)
	t.Printf("defer test2: %q (want 9876543210)", r.result)
	deferNil(co, t)
	rtest1(co, t)
	rtest2(co, t)
	rtest3(co, t)
	rtest4(co, t)
	rtest5(co, t)
	rtest6(co, t)
	rtest7(co, t)
}

// recorder is defer.go's global result, per run: both models run at once.
type recorder struct{ result string }

func (r *recorder) addInt(i int) { r.result += fmt.Sprint(i) }

func (r *recorder) addDotDotDot(v ...interface{}) { r.result += fmt.Sprint(v...) }

// num returns v after a suspension.
//
//co:stackless
func num(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

//co:stackless
func test1helper(co *stackful.Co, r *recorder) {
	for i := 0; i < 10; i++ {
		defer r.addInt(num(co, i))
	}
	co.Gosched()
}

//co:stackless
func test2helper(co *stackful.Co, r *recorder) {
	for i := 0; i < 10; i++ {
		co.Gosched()
		defer r.addDotDotDot(i)
	}
}

// deferNil: the nil function is deferred without a panic; the panic comes
// when the deferred call runs, after the body's last statement.
//
//co:stackless
func deferNil(co *stackful.Co, t *trace.T) {
	x := 0
	defer func() {
		err := recover()
		t.Printf("defernil: recovered %v, x = %d (want a nil func panic, 1)", err != nil, x)
	}()
	f(co, &x)
}

//co:stackless
func f(co *stackful.Co, x *int) {
	var nilf func()
	defer nilf()
	co.Gosched()
	*x = 1
}

var x = make([]byte, 10)

// mustRecover is recover2.go's: it recovers (it is the deferred function)
// and records the runtime error.
func mustRecover(t *trace.T, s string) {
	v := recover()
	if v == nil {
		t.Printf("no panic, want %s", s)
		return
	}
	t.Printf("recovered %q, want %s", v.(error).Error(), s)
}

//co:stackless
func rtest1(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "index")
	t.Printf("%d", x[num(co, 123)])
}

//co:stackless
func rtest2(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "slice")
	t.Printf("%v", x[5:num(co, 15)])
}

//co:stackless
func rtest3(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "slice")
	var lo = num(co, 11)
	var hi = 9
	t.Printf("%v", x[lo:hi])
}

//co:stackless
func rtest4(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "interface")
	var x interface{} = num(co, 1)
	t.Printf("%v", x.(float32))
}

// T is not comparable.
type T struct {
	a, b int
	c    []int
}

//co:stackless
func rtest5(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "uncomparable")
	var x T
	x.a = num(co, 1)
	var z interface{} = x
	t.Printf("%v", z != z)
}

//co:stackless
func rtest6(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "unhashable type godefers.T")
	var x T
	var z interface{} = x
	m := make(map[interface{}]int)
	m[z] = num(co, 1)
}

//co:stackless
func rtest7(co *stackful.Co, t *trace.T) {
	defer mustRecover(t, "divide by zero")
	var x, y int
	x = num(co, 1)
	t.Printf("%d", x/y)
}

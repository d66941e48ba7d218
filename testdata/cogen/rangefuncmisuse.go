package rangefuncmisuse

import (
	"fmt"
	"iter"
	"runtime"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// describe names a recovered panic: its dynamic type, whether it is a
// runtime.Error, and its message. Both models must panic with the same.
func describe(r any) string {
	_, rt := r.(runtime.Error)
	return fmt.Sprintf("%T runtime.Error=%v: %v", r, rt, r)
}

// stubborn calls yield again after it returned false; with recoverIt its
// deferred call swallows whatever panic goes through it.
func stubborn(t *trace.T, n int, recoverIt bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer func() {
			if recoverIt {
				t.Printf("stubborn recovers %v", recover())
			} else {
				t.Printf("stubborn's deferred call")
			}
		}()
		for i := range n {
			t.Printf("stubborn: yield(%d) = %v", i, yield(i))
		}
		t.Printf("stubborn returns")
	}
}

// wrapping re-panics a panic that goes through it with its own context.
func wrapping(t *trace.T, name string, n int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		defer func() {
			if r := recover(); r != nil {
				t.Printf("%s sees %v", name, r)
				panic(fmt.Sprintf("%s: %v", name, r))
			}
		}()
		for i := range n {
			if !yield(i, name) {
				t.Printf("%s stopped", name)
				return
			}
			t.Printf("%s: yield returned", name)
		}
	}
}

// observing sees a panic go through it without recovering it.
func observing(t *trace.T, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer t.Printf("observing's deferred call")
		for i := range n {
			if !yield(i) {
				return
			}
			t.Printf("observing: yield returned")
		}
	}
}

// swallowing recovers a panic of the body; with again it then calls yield
// once more instead of returning.
func swallowing(t *trace.T, again bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer func() {
			r := recover()
			t.Printf("swallowing recovered %v", r)
			if again {
				t.Printf("yield after the panic = %v", yield(7))
			}
		}()
		yield(0)
		yield(1)
		t.Printf("swallowing: not reached")
	}
}

// keeper keeps the yield function of its iterator.
type keeper struct {
	yield func(int) bool
}

func (k *keeper) seq(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		k.yield = yield
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// callKept calls a kept yield function and reports how it panicked.
func callKept(yield func(int) bool) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = describe(r)
		}
	}()
	return fmt.Sprint("returned ", yield(42))
}

// Run covers iterators that misbehave around loop bodies that suspend, and
// the same loops with bodies that do not: both models panic as gc's code
// does, with the runtime's own values.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for _, suspend := range []bool{true, false} {
		t.Printf("suspend=%v", suspend)
		t.Printf("continued after false: %s", afterFalse(co, t, suspend, false))
		t.Printf("continued after false, recovered: %s", afterFalse(co, t, suspend, true))
		t.Printf("return, continued after false: %s", returnAfterFalse(co, t, suspend))
		t.Printf("body panic through iterator: %s", bodyPanic(co, t, suspend))
		t.Printf("body panic through nested iterators: %s", nestedPanic(co, t, suspend, 1+t.Rand.Intn(2)))
		t.Printf("body panic swallowed: %s", swallowed(co, t, suspend, false))
		t.Printf("body panic swallowed, yield again: %s", swallowed(co, t, suspend, true))
		t.Printf("kept yield: %s", kept(co, t, suspend))
		t.Printf("kept yield called by the body: %s", keptInBody(co, t, suspend))
	}
}

//co:stackless
func afterFalse(co *stackful.Co, t *trace.T, suspend, recoverIt bool) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = describe(r)
		}
	}()
	if suspend {
		for i := range stubborn(t, 4, recoverIt) {
			co.Gosched()
			t.Printf("body %d", i)
			if i == 1 {
				break
			}
		}
	} else {
		for i := range stubborn(t, 4, recoverIt) {
			t.Printf("body %d", i)
			if i == 1 {
				break
			}
		}
	}
	t.Printf("after the loop")
	return "no panic"
}

//co:stackless
func returnAfterFalse(co *stackful.Co, t *trace.T, suspend bool) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s += " then " + describe(r)
		}
	}()
	if suspend {
		for i := range stubborn(t, 3, false) {
			co.Gosched()
			return fmt.Sprint("returned at ", i)
		}
	} else {
		for i := range stubborn(t, 3, false) {
			return fmt.Sprint("returned at ", i)
		}
	}
	return "no return"
}

//co:stackless
func bodyPanic(co *stackful.Co, t *trace.T, suspend bool) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = describe(r)
		}
	}()
	defer t.Printf("frame's deferred call")
	if !suspend {
		for i := range observing(t, 3) {
			t.Printf("body %d", i)
			if i == 1 {
				panic(fmt.Sprint("body panics at ", i))
			}
		}
	}
	for i := range observing(t, 3) {
		co.Gosched()
		t.Printf("body %d", i)
		if i == 1 {
			panic(fmt.Sprint("body panics at ", i))
		}
	}
	return "no panic"
}

//co:stackless
func nestedPanic(co *stackful.Co, t *trace.T, suspend bool, at int) (s string) {
	defer func() {
		s = fmt.Sprint(recover())
	}()
	if !suspend {
		for i, a := range wrapping(t, "outer", 3) {
			for j, b := range wrapping(t, "inner", 3) {
				t.Printf("body %s %d %s %d", a, i, b, j)
				if i+j == at {
					panic(fmt.Sprint("body panics at ", i, j))
				}
			}
		}
	}
	for i, a := range wrapping(t, "outer", 3) {
		for j, b := range wrapping(t, "inner", 3) {
			co.Gosched()
			t.Printf("body %s %d %s %d", a, i, b, j)
			if i+j == at {
				panic(fmt.Sprint("body panics at ", i, j))
			}
		}
	}
	return "no panic"
}

//co:stackless
func swallowed(co *stackful.Co, t *trace.T, suspend, again bool) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = describe(r)
		}
	}()
	if !suspend {
		for i := range swallowing(t, again) {
			t.Printf("body %d", i)
			panic("body panics")
		}
	}
	for i := range swallowing(t, again) {
		co.Gosched()
		t.Printf("body %d", i)
		panic("body panics")
	}
	return "no panic"
}

//co:stackless
func kept(co *stackful.Co, t *trace.T, suspend bool) string {
	var k1, k2 keeper
	if !suspend {
		for i := range k1.seq(2) {
			t.Printf("body %d", i)
		}
		for i := range k2.seq(3) {
			t.Printf("body %d", i)
			break
		}
		return callKept(k1.yield) + "; after break: " + callKept(k2.yield)
	}
	for i := range k1.seq(2) {
		co.Gosched()
		t.Printf("body %d", i)
	}
	for i := range k2.seq(3) {
		co.Gosched()
		t.Printf("body %d", i)
		break
	}
	return callKept(k1.yield) + "; after break: " + callKept(k2.yield)
}

//co:stackless
func keptInBody(co *stackful.Co, t *trace.T, suspend bool) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = describe(r)
		}
	}()
	var k keeper
	if !suspend {
		for i := range k.seq(2) {
			t.Printf("body %d calls its own yield", i)
			k.yield(i + 10)
			t.Printf("not reached")
		}
	}
	for i := range k.seq(2) {
		co.Gosched()
		t.Printf("body %d calls its own yield", i)
		k.yield(i + 10)
		t.Printf("not reached")
	}
	return "no panic"
}

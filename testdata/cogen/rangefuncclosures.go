package rangefuncclosures

import (
	"fmt"
	"iter"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func upTo(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// Run covers iterators that are closures of the marked function: they
// capture per-iteration loop variables and variables the suspending body
// changes, they are kept and called after their loop, and nested loops,
// labeled branches, gotos, returns and defers cross them.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var kept []func()
	for i := range 2 + t.Rand.Intn(2) {
		count := 0 // one per iteration, shared by the iterator and the body
		seq := func(yield func(int) bool) {
			for j := range i + 1 {
				count++
				if !yield(i*10 + j) {
					count += 1000
					return
				}
			}
		}
		for v := range seq {
			co.Gosched()
			count += 100
			t.Printf("i=%d v=%d count=%d", i, v, count)
			if v == 21 {
				break
			}
		}
		kept = append(kept, func() { t.Printf("kept: i=%d count=%d", i, count) })
		t.Printf("after loop %d: count=%d", i, count)
	}
	for _, f := range kept {
		f()
	}

	// The body changes what the iterator reads.
	limit := 3
	for v := range func(yield func(int) bool) {
		for k := 0; k < limit; k++ {
			if !yield(k) {
				return
			}
		}
	} {
		co.Gosched()
		if v == 1 {
			limit = 5
		}
		t.Printf("limit loop v=%d limit=%d", v, limit)
	}

	// Iterators built from the outer loop's variables, nested.
	for a := range upTo(3) {
		inner := func(yield func(int, string) bool) {
			for k := a; k < a+2; k++ {
				if !yield(k, fmt.Sprint("a", a)) {
					return
				}
			}
		}
		for b, s := range inner {
			co.Gosched()
			t.Printf("nested a=%d b=%d %s", a, b, s)
		}
	}
	// A literal that suspends has its own frame: a panic of its loop body
	// unwinds the iterator (which re-panics with context) before the
	// literal's deferred call recovers it.
	res := func() (s string) {
		defer func() {
			if r := recover(); r != nil {
				s = fmt.Sprint("recovered: ", r)
			}
		}()
		for v := range func(yield func(int) bool) {
			defer func() {
				if r := recover(); r != nil {
					panic(fmt.Sprint("iterator: ", r))
				}
			}()
			for k := range 3 {
				if !yield(k) {
					return
				}
			}
		} {
			co.Gosched()
			if v == 1 {
				panic("body")
			}
		}
		return "no panic"
	}()
	t.Printf("literal: %s", res)
	t.Printf("labels: %v", labels(co, t))
	t.Printf("returns: %v", returns(co, t, 1+t.Rand.Intn(3)))
}

// labels leaves suspending and non-suspending range-over-func loops with
// labeled continue and break, and goto.
//
//co:stackless
func labels(co *stackful.Co, t *trace.T) []string {
	var log []string
	retried := false
again:
	log = append(log, "start")
outer:
	for i := range upTo(3) {
		co.Gosched()
	middle:
		for j := range upTo(3) {
			for k := range upTo(3) { // copied whole: its body does not suspend
				log = append(log, fmt.Sprint(i, j, k))
				switch {
				case k == 1 && j == 0:
					continue middle
				case k == 1 && j == 1 && i == 0:
					continue outer
				case i == 1 && j == 2:
					break middle
				case i == 2 && j == 2 && !retried:
					retried = true
					goto retry
				case i == 2 && j == 2:
					break outer
				}
			}
			co.Gosched()
		}
		log = append(log, fmt.Sprint("end ", i))
	}
	return log
retry:
	log = append(log, "retry")
	for v := range upTo(2) {
		co.Gosched()
		log = append(log, fmt.Sprint("retry ", v))
	}
	goto again
}

// returns returns from inside nested range-over-func loops, a suspending
// one around one copied whole, with deferred calls registered in the
// bodies that change the named result.
//
//co:stackless
func returns(co *stackful.Co, t *trace.T, at int) (log []string) {
	defer func() { log = append(log, "outermost deferred call") }()
	for i := range upTo(4) {
		defer func() { log = append(log, fmt.Sprint("deferred in body ", i)) }()
		co.Gosched()
		for j := range upTo(4) {
			if i+j == at {
				defer func() { log = append(log, fmt.Sprint("deferred before return ", i, j)) }()
				return append(log, fmt.Sprint("return at ", i, j))
			}
		}
	}
	return append(log, "not reached")
}

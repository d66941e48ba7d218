package cogenrt

import (
	"fmt"
	"iter"
	"runtime"
	"slices"
	"testing"
)

// catch returns the value f panics with, or nil.
func catch(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// The Range scenarios below drive a loop as generated code does and compare
// the outcome with the same loop compiled by gc.

func TestRangeContinuedAfterFalse(t *testing.T) {
	var log []string
	stubborn := func(yield func(int) bool) {
		defer func() { log = append(log, "deferred") }()
		for i := range 3 {
			log = append(log, fmt.Sprint(yield(i)))
		}
	}
	want := catch(func() {
		for range stubborn {
			break
		}
	})
	wantLog := log
	log = nil
	got := catch(func() {
		r := Pull1(stubborn)
		if _, _, ok := r.Next(); !ok {
			t.Fatal("no first value")
		}
		r.Stop() // break
	})
	if _, ok := got.(runtime.Error); !ok || got != want {
		t.Fatalf("Stop panicked with %T %v, want %v", got, got, want)
	}
	if !slices.Equal(log, wantLog) {
		t.Errorf("iterator ran %q, want %q", log, wantLog)
	}
}

func TestRangeUnwindThroughIterator(t *testing.T) {
	var log []string
	wrapping := func(yield func(int, string) bool) {
		defer func() {
			if r := recover(); r != nil {
				panic(fmt.Sprint("wrapped: ", r))
			}
		}()
		yield(1, "a")
		log = append(log, "yield returned")
	}
	want := catch(func() {
		for range wrapping {
			panic("boom")
		}
	})
	r := Pull2(wrapping)
	if _, _, ok := r.Next(); !ok {
		t.Fatal("no first value")
	}
	if got := r.Unwind("boom"); got != want {
		t.Fatalf("Unwind = %v, want %v", got, want)
	}
	if len(log) != 0 {
		t.Errorf("yield returned during the unwinding: %q", log)
	}
	if got := r.Unwind("again"); got != "again" {
		t.Errorf("Unwind of an ended loop = %v, want the panic unchanged", got)
	}
	var none *Range[int, int]
	if got := none.Unwind("p"); got != "p" {
		t.Errorf("Unwind of a loop not reached = %v", got)
	}
}

func TestRangeMissingPanicAndKeptYield(t *testing.T) {
	swallowing := func(yield func() bool) {
		defer func() { recover() }()
		yield()
	}
	want := catch(func() {
		for range swallowing {
			panic("boom")
		}
	})
	r := Pull0(swallowing)
	r.Next()
	if got := r.Unwind("boom"); got != want || got != rangeError(rangeMissingPanic) {
		t.Fatalf("Unwind = %v, want %v", got, want)
	}

	var kept func(int) bool
	keeping := func(yield func(int) bool) { kept = yield; yield(0) }
	for range keeping {
	}
	want = catch(func() { kept(1) })
	r1 := Pull1(keeping)
	for _, _, ok := r1.Next(); ok; _, _, ok = r1.Next() {
	}
	r1.Stop()
	if got := catch(func() { kept(1) }); got != want || got != rangeError(rangeExhausted) {
		t.Fatalf("kept yield panicked with %v, want %v", got, want)
	}
	for s, msg := range rangeMessages {
		if got := fmt.Sprint(rangeError(s)); got != "runtime error: "+msg {
			t.Errorf("state %d: %q", s, got)
		}
	}
}

// BenchmarkRangeNext is one iteration of a loop whose body suspends: Next
// resumes the iterator, which yields through Range's checks.
// BenchmarkRangePullNext is the same over bare iter.Pull2, for comparison.
func BenchmarkRangeNext(b *testing.B) {
	r := Pull1(func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	})
	for b.Loop() {
		r.Next()
	}
	r.Stop()
}

func BenchmarkRangePullNext(b *testing.B) {
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	})
	for b.Loop() {
		next()
	}
	stop()
}

// BenchmarkRangeLoop is a whole loop of 3 iterations: start, 4 Nexts, Stop.
func BenchmarkRangeLoop(b *testing.B) {
	seq := func(yield func(int) bool) { _ = yield(1) && yield(2) && yield(3) }
	for b.Loop() {
		r := Pull1(seq)
		for _, _, ok := r.Next(); ok; _, _, ok = r.Next() {
		}
		r.Stop()
	}
}

func BenchmarkRangePullLoop(b *testing.B) {
	seq := func(yield func(int) bool) { _ = yield(1) && yield(2) && yield(3) }
	for b.Loop() {
		next, stop := iter.Pull(seq)
		for _, ok := next(); ok; _, ok = next() {
		}
		stop()
	}
}

package rangefunc

import (
	"iter"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func count(n int, log *[]string) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer func() { *log = append(*log, "iterator done") }()
		for i := range n {
			if !yield(i) {
				*log = append(*log, "stopped early")
				return
			}
		}
	}
}

func pairs(n int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := range n {
			if !yield(i, string(rune('a'+i))) {
				return
			}
		}
	}
}

func times(n int) func(func() bool) {
	return func(yield func() bool) {
		for range n {
			if !yield() {
				return
			}
		}
	}
}

// Run covers range over function iterators with suspension points in the
// body, and every way out of the loop: end, break, labeled continue of an
// outer loop, and return.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var log []string
	for v := range count(3+t.Rand.Intn(2), &log) {
		co.Gosched()
		t.Printf("seq %d", v)
	}
	for v := range count(10, &log) {
		co.Gosched()
		if v == 2 {
			break
		}
		t.Printf("before break %d", v)
	}
	for k, v := range pairs(3) {
		co.Gosched()
		t.Printf("seq2 %d %s", k, v)
	}
	for k := range pairs(2) {
		co.Gosched()
		t.Printf("seq2 key only %d", k)
	}
	n := 0
	for range times(4) {
		co.Gosched()
		n++
	}
	t.Printf("times %d", n)
outer:
	for i := 0; i < 2; i++ {
		for v := range count(5, &log) {
			co.Gosched()
			if v == 1 {
				continue outer
			}
		}
	}
	t.Printf("log %v", log)
	log = nil
	r := find(co, count(10, &log), 4)
	t.Printf("find %d %v", r, log)
}

//co:stackless
func find(co *stackful.Co, seq iter.Seq[int], want int) int {
	for v := range seq {
		co.Gosched()
		if v == want {
			return v * 10
		}
	}
	return -1
}

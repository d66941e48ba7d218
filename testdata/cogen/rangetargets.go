package rangetargets

import (
	"iter"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func pairs(yield func(int, int) bool) {
	for i := range 3 {
		if !yield(i, 5+i) {
			return
		}
	}
}

type cell struct{ k, v int }

// Run checks a range-over-func loop assigning to targets that depend on
// each other: gc assigns them one after the other (its rangefunc rewrite
// starts the body with k = #p1 then arr[k] = #p2), unlike the other range
// loops, which assign them together.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var arr [4]int
	var k int
	for k, arr[k] = range pairs {
		co.Gosched()
	}
	t.Printf("k=%d arr=%v", k, arr)
	m := map[int]int{}
	var key int
	var seq iter.Seq2[int, int] = pairs
	for key, m[key+10] = range seq {
		co.Gosched()
	}
	t.Printf("key=%d m=%v", key, m)
	c := &cell{}
	p := &c
	for (*p).k, c.v = range pairs {
		co.Gosched()
	}
	t.Printf("cell=%v", *c)
	// Over a slice, the targets are assigned together.
	var arr2 [4]int
	var j int
	for j, arr2[j] = range []int{5, 6, 7} {
		co.Gosched()
	}
	t.Printf("j=%d arr2=%v", j, arr2)
}

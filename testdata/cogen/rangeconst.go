package rangeconst

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type holder struct{ a [3]int }

// Run covers range loops with only the index over an array whose length
// is constant: the range expression is not evaluated (a nil pointer is not
// dereferenced), while one that calls a function is.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var p *[4]int
	for i := range *p {
		co.Gosched()
		t.Printf("deref %d", i)
	}
	var s *holder
	for i := range s.a {
		co.Gosched()
		t.Printf("field %d", i)
	}
	var grid [2][2]int
	for i := range grid {
		for j := range grid[i] {
			co.Gosched()
			t.Printf("grid %d %d", i, j)
		}
	}
	for i := range get(co, t).a {
		t.Printf("called %d", i)
	}
	for range *p {
		co.Gosched()
		t.Printf("no variables")
	}
}

//co:stackless
func get(co *stackful.Co, t *trace.T) *holder {
	co.Gosched()
	t.Printf("get")
	return &holder{}
}

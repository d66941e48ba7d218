package switches

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers expression switches with suspension points in the tag, the
// case expressions and the bodies: init statements, tagless switches,
// default in the middle, fallthrough, and break.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for i := 0; i < 8; i++ {
		v := t.Rand.Intn(6)
		switch w := get(co, v); w {
		case 0, 1:
			t.Printf("low %d", w)
		case get(co, 2):
			t.Printf("two")
			fallthrough
		case 3:
			co.Gosched()
			t.Printf("three or fell through %d", w)
		default:
			t.Printf("default %d", w)
		case 4:
			if w == 4 {
				break
			}
			t.Printf("never")
		}
		switch {
		case v < 2:
			co.Gosched()
			t.Printf("tagless small")
		case v < get(co, 4):
			t.Printf("tagless medium")
		}
		switch x := v * 2; {
		case x > 6:
			co.Gosched()
			t.Printf("init only %d", x)
		}
	}
	n := 0
loop:
	for {
		switch n {
		case 3:
			co.Gosched()
			break loop
		default:
			n++
		}
	}
	t.Printf("broke out at %d", n)
	s := "b"
	switch s {
	case "a":
		t.Printf("a")
	case "b":
		co.Gosched()
		switch {
		case len(s) == 1:
			t.Printf("nested plain switch")
			fallthrough
		default:
			t.Printf("nested fallthrough")
		}
	}
}

//co:stackless
func get(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

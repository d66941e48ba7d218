package forloops

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers for loops of every shape with suspension points, and Go 1.22
// per-iteration loop variables captured by closures across suspensions.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	n := 2 + t.Rand.Intn(3)
	var fs []func() int
	for i := 0; i < n; i++ {
		co.Sleep(time.Millisecond)
		fs = append(fs, func() int { return i })
		p := &i
		*p += 0
	}
	for _, f := range fs {
		t.Printf("closure sees %d", f())
	}
	j := 0
	for j < n {
		co.Gosched()
		j++
	}
	t.Printf("cond-only %d", j)
	for {
		j--
		if j == 1 {
			continue
		}
		co.Gosched()
		if j <= 0 {
			break
		}
		t.Printf("infinite %d", j)
	}
	total := 0
outer:
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if b > a {
				continue outer
			}
			if a == 3 {
				break outer
			}
			co.Gosched()
			total += a*10 + b
		}
	}
	t.Printf("labeled %d", total)
	var ptrs []*int
	for k := 0; k < 3; k++ {
		ptrs = append(ptrs, &k)
		co.Gosched()
		k += 0
	}
	for _, p := range ptrs {
		t.Printf("per-iteration %d", *p)
	}
	for i, x := 0, t.Rand.Intn(5); i < 3; i, x = i+1, x*2 {
		co.Gosched()
		t.Printf("two vars %d %d", i, x)
	}
	for i := range 3 {
		co.Gosched()
		if i == 1 {
			for k := 0; k < 5; k++ {
				if k == 2 {
					break
				}
				t.Printf("nested plain %d", k)
			}
		}
	}
}

package liveness

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run keeps only what lives across a suspension in its frame: a, b and c
// are dead before the first wait, big is dead before the second, and only
// total survives the loop (the golden file shows the fields).
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	a := t.Rand.Intn(10)
	b := a * 2
	c := b + a
	t.Printf("before %d", c)
	var big [128]byte
	big[0] = byte(c)
	keep := int(big[0])
	co.Sleep(time.Millisecond)
	total := keep
	for i := 0; i < 3; i++ {
		x := i * i
		y := x + 1
		t.Printf("loop %d %d", x, y)
		co.Gosched()
		total += i
	}
	t.Printf("total %d", total)
}

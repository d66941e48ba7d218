package cond

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers waiting on a condition variable with and without timeouts,
// signalled from timers.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var c stackful.Cond
	for i := 0; i < 3; i++ {
		signal := t.Rand.Intn(2) == 0
		if signal {
			t.Loop.AfterFunc(time.Millisecond, func() { c.Signal() })
		}
		ok := co.Wait(&c, 200*time.Millisecond)
		t.Printf("wait %d signalled=%v got=%v", i, signal, ok)
	}
	t.Loop.AfterFunc(2*time.Millisecond, func() { c.Broadcast() })
	if co.Wait(&c, -1) {
		t.Printf("broadcast received")
	}
}

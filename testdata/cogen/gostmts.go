package gostmts

import (
	"sync/atomic"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers go statements in marked functions: they start ordinary
// goroutines in both models (a coroutine of the same model is started with
// the model's own API, not with go), with operands evaluated before and
// after suspensions. The coroutine polls for their results with Gosched
// rather than blocking on a Go channel, which would freeze its env.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	var done atomic.Int64
	results := make([]int, 3)
	for i := 0; i < 3; i++ {
		co.Gosched()
		go func(k int) {
			results[k] = k * k
			done.Add(1)
		}(i + t.Rand.Intn(1))
	}
	for done.Load() < 3 {
		co.Gosched()
	}
	t.Printf("results %v", results)
	var flag atomic.Bool
	go flag.Store(true)
	for !flag.Load() {
		co.Sleep(0)
	}
	t.Printf("flag set")
}

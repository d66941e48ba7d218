// Package testwf holds the durable workflows of package durable's tests.
// cogen ./... at the root generates it with package durable, whose
// Receive its workflows call (gen's doc: "Marked functions of other
// packages"); .ci/stale checks its generated file.
package testwf

import (
	"strconv"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//go:generate go tool cogen

// Step is called by the workflows at each step with the step's key; the
// tests set it (on the loop goroutine of the task).
var Step = func(id durable.ID, key string, i int) {}

// Counter adds 1..n through a pointer to a local, checkpointing after each
// step, and records the sum as its result.
//
//co:stackless durable
func Counter(co *stackful.Co, id durable.ID, n int) {
	total := 0
	p := &total
	for i := range n {
		*p += i + 1
		Step(id, durable.StepKey(id), i)
		co.Gosched()
	}
	durable.SetResult(id, []byte(strconv.Itoa(total)))
}

// Sleeper sleeps d, then records "woke".
//
//co:stackless durable
func Sleeper(co *stackful.Co, id durable.ID, d time.Duration) {
	Step(id, durable.StepKey(id), 0)
	co.Sleep(d)
	Step(id, durable.StepKey(id), 1)
	durable.SetResult(id, []byte("woke"))
}

// Approver receives n signals named name, checkpointing after each, and
// records their values, joined by commas.
//
//co:stackless durable
func Approver(co *stackful.Co, id durable.ID, name string, n int) {
	var got string
	for i := range n {
		v := durable.Receive(co, id, name)
		Step(id, durable.StepKey(id), i)
		co.Gosched()
		if i > 0 {
			got += ","
		}
		got += string(v)
	}
	durable.SetResult(id, []byte(got))
}

// Panicker checkpoints once, then panics with msg.
//
//co:stackless durable
func Panicker(co *stackful.Co, id durable.ID, msg string) {
	co.Gosched()
	panic(msg)
}

// Yielder yields twice (plain checkpoints for a durable task), then
// records "yielded".
//
//co:stackless durable
func Yielder(co *stackful.Co, id durable.ID) {
	co.Yield()
	Step(id, durable.StepKey(id), 0)
	co.Yield()
	durable.SetResult(id, []byte("yielded"))
}

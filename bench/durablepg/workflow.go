package main

import (
	"sync/atomic"
	"time"

	"encoding/binary"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//go:generate go tool cogen

// Workflow is the workload's workflow on cogen's runner: n steps from
// seed, each the step's computation followed by a checkpoint (Gosched:
// the runner snapshots the frame, whose h is the state, and commits it
// to the store before the next step). It records its result and tells
// the load (finished) at the end.
//
//co:stackless durable
func Workflow(co *stackful.Co, id durable.ID, seed uint64, n int) {
	h := seed
	for i := range n {
		h = mix(h + uint64(i))
		co.Gosched()
	}
	finish(id, h)
}

// finish records h as the task's result (8 bytes, big-endian) and calls
// the process's onFinish hook.
func finish(id durable.ID, h uint64) {
	durable.SetResult(id, binary.BigEndian.AppendUint64(nil, h))
	if f := onFinish.Load(); f != nil {
		(*f)(h)
	}
}

// onFinish is called on the runner's loop when a workflow finishes (before
// its end is committed); it must not block. Atomic: the load sets it on
// its goroutine, the runner's loop reads it, and only the database orders
// the two.
var onFinish atomic.Pointer[func(h uint64)]

// Sleeper sleeps for d and ends: with d far away (longer than the
// runner's SleepInMemory), its first run commits it as Sleeping and drops
// it from the worker's memory; it is a row with a due time until then.
//
//co:stackless durable
func Sleeper(co *stackful.Co, id durable.ID, d time.Duration) {
	co.Sleep(d)
	durable.SetResult(id, nil)
}

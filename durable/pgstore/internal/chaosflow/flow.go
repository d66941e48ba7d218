// Package chaosflow holds the workflows that the chaos tests of pgstore
// run in worker processes (cmd/durworker) and start from the test.
package chaosflow

import (
	"strconv"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//go:generate go tool cogen

// Fx records the steps' effects; the worker sets it before it runs tasks.
var Fx *Effects

// Steps is the number of steps of a Flow; steps 2 and 5 receive a signal.
const Steps = 6

// SignalName is the name of the signal step i receives.
func SignalName(i int) string { return "s" + strconv.Itoa(i) }

// Receives reports whether step i receives a signal.
func Receives(i int) bool { return i%3 == 2 }

// Flow runs Steps steps. Each records its effect under its step key, then
// checkpoints: a Gosched, a short Sleep (nap) or, at steps 2 and 5, a
// Receive of the signal SignalName(i), whose first byte it adds up, and a
// Gosched. The result is the sum in decimal.
//
// A step's key is taken right after a checkpoint, before anything that
// depends on state outside the task's frames: a run resumed from that
// checkpoint reaches the same call with the same key.
//
//co:stackless durable
func Flow(co *stackful.Co, id durable.ID, nap time.Duration) {
	sum := 0
	for i := range Steps {
		key := durable.StepKey(id)
		effect(co, id, i, key)
		switch {
		case Receives(i):
			v := durable.Receive(co, id, SignalName(i))
			if len(v) > 0 {
				sum += int(v[0])
			}
			// Receive returns without a checkpoint when the signal was
			// claimed with the task: the next step's key must come from
			// a checkpoint that every run from here reaches, not from
			// the last one of effect's loop, whose count depends on
			// Fx (this process's state).
			co.Gosched()
		case i%3 == 1:
			co.Sleep(nap)
		default:
			co.Gosched()
		}
	}
	durable.SetResult(id, []byte(strconv.Itoa(sum)))
}

// effect has Fx record the effect of step under key, checkpointing until
// it is recorded: a step re-run after a crash asks again with the same
// key, which the table records once.
//
//co:stackless durable
func effect(co *stackful.Co, id durable.ID, step int, key string) {
	for {
		Fx.Request(key, string(id), step)
		if Fx.Done(key) {
			return
		}
		co.Gosched()
	}
}

// Spin checkpoints every period (a Sleep short enough to keep the task in
// its worker's memory, under its lease) until the wall clock passes until.
//
//co:stackless durable
func Spin(co *stackful.Co, id durable.ID, period time.Duration, until time.Time) {
	for time.Now().Before(until) {
		co.Sleep(period)
	}
}

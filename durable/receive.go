package durable

import "github.com/cogen-go/cogen/runtime/stackful"

//go:generate go tool cogen

// Receive returns the value of the next signal named name sent to task id
// (by [Send]), waiting for one: the durable counterpart of a channel
// receive. Signals of one name are received in the order they were sent,
// each once: the signal is deleted from the store in the commit of the
// task's next checkpoint, and a step lost in a crash receives it again
// when it re-runs. While it waits, the task is a record in the store,
// not in any worker's memory.
//
// Call it from the code of task id, a function marked
// //co:stackless durable run by a [Runner]; elsewhere it panics.
//
//co:stackless durable
func Receive(co *stackful.Co, id ID, name string) []byte {
	for {
		if v, ok := takeSignal(id, name); ok {
			return v
		}
		waitSignal(id, name)
		co.Yield()
	}
}

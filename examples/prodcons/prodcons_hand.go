package main

import (
	"fmt"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// HandProducerFrame is [Producer] written by hand as a stackless frame, in
// the shape cogen generates: fields for the parameter and for the values
// live across the suspension (cid, round); the Poll is the first statement
// of its state, so that the wake-up retries it.
type HandProducerFrame struct {
	stackless.Base
	p     *Para
	cid   int
	round int
}

// NewHandProducerFrame returns the frame of a call Producer(co, p).
func NewHandProducerFrame(p *Para) *HandProducerFrame { return &HandProducerFrame{p: p} }

// Step runs the frame to its next suspension or to its return.
func (f *HandProducerFrame) Step(co *stackless.Task) stackless.Status {
	for {
		switch f.PC {
		case 0:
			f.p.cid++
			f.cid = f.p.cid
			f.round = 0
			f.PC = 1
			fallthrough
		case 1: // for round < p.Rounds
			if f.round >= f.p.Rounds {
				f.p.done = true
				f.p.Cond.Broadcast()
				return stackless.Done
			}
			for i := f.p.rng.IntN(5) + 1; i > 0; i-- {
				f.p.id++
				f.p.data = append(f.p.data, f.p.id)
				fmt.Fprintf(f.p.Out, "[%d] + add new data:%d\n", f.cid, f.p.id)
			}
			f.p.Cond.Signal()
			f.PC = 2
			fallthrough
		case 2: // co.Poll(nil, p.Interval)
			co.Poll(nil, f.p.Interval)
			if co.Blocked() {
				return stackless.Suspend
			}
			f.round++
			f.PC = 1
		}
	}
}

// HandConsumerFrame is [Consumer] written by hand as a stackless frame.
type HandConsumerFrame struct {
	stackless.Base
	p   *Para
	cid int
}

// NewHandConsumerFrame returns the frame of a call Consumer(co, p).
func NewHandConsumerFrame(p *Para) *HandConsumerFrame { return &HandConsumerFrame{p: p} }

// Step runs the frame to its next suspension or to its return.
func (f *HandConsumerFrame) Step(co *stackless.Task) stackless.Status {
	for {
		switch f.PC {
		case 0:
			f.p.cid++
			f.cid = f.p.cid
			f.PC = 1
			fallthrough
		case 1: // for { if len(p.data) == 0 { ... } ... }
			if len(f.p.data) == 0 {
				if f.p.done {
					return stackless.Done
				}
				f.PC = 2
				continue
			}
			fmt.Fprintf(f.p.Out, "[%d] - del data:%d\n", f.cid, f.p.data[0])
			f.p.data = f.p.data[1:]
		case 2: // co.Wait(&p.Cond, -1); continue
			co.Wait(&f.p.Cond, -1)
			if co.Blocked() {
				return stackless.Suspend
			}
			f.PC = 1
		}
	}
}

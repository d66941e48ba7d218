package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

//go:generate go tool cogen

// Order is the state a workflow carries between its steps.
type Order struct {
	ID      int
	Email   string
	Items   map[string]int
	Total   int64
	Trace   []string
	Created time.Time
}

func (o *Order) log(format string, args ...any) {
	o.Trace = append(o.Trace, fmt.Sprintf(format, args...))
}

// Workflow registers a customer, waits for the confirmation e-mail (a
// sleep: minutes in a real service, milliseconds here), confirms, bills
// in several checkpointed steps and ships. Every step ends at a
// checkpoint (co.Gosched, co.Sleep); the trace it records travels in the
// snapshot, so a step re-run after a crash replaces the lost one rather
// than adding to it. The trace is the workflow's result.
//
//co:stackless durable
func Workflow(co *stackful.Co, id durable.ID, n int, seed uint64) {
	o := &Order{ID: n, Items: map[string]int{}, Created: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)}
	rng := &lcg{seed}
	o.Email = fmt.Sprintf("user%d@example.com", n)
	o.log("register %s", o.Email)
	co.Gosched()

	wait := time.Duration(5+rng.next()%20) * time.Millisecond
	o.log("wait for confirmation (%v)", wait)
	co.Sleep(wait)

	o.log("confirmed")
	co.Gosched()

	items := 2 + int(rng.next()%4)
	for i := range items {
		item := fmt.Sprintf("item%d", rng.next()%5)
		o.Items[item]++
		o.Total += int64(10 + rng.next()%90)
		o.log("bill %d/%d %s total=%d", i+1, items, item, o.Total)
		bill(co, o)
	}
	o.log("ship %d items to %s, total %d", len(o.Items), o.Email, o.Total)
	durable.SetResult(id, []byte(strings.Join(o.Trace, "\n")+"\n"))
}

// bill is a durable callee: it checkpoints before and after charging.
//
//co:stackless durable
func bill(co *stackful.Co, o *Order) {
	co.Gosched()
	o.log("charged %d", o.Total)
	co.Sleep(time.Millisecond)
}

// lcg is a deterministic generator whose state is part of the workflow's.
type lcg struct{ s uint64 }

func (r *lcg) next() uint64 {
	r.s = r.s*6364136223846793005 + 1442695040888963407
	return r.s >> 33
}

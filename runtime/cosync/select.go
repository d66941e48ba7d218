package cosync

import (
	"math/rand/v2"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Case is one arm of a [Select]: a send ([Chan.SendCase]), a receive
// ([Chan.RecvCase]), a [Default] or a timeout ([After]). Build cases in
// the call, or once before a loop of selects.
type Case struct {
	ch   selectable
	kind uint8
	val  any   // the value a send case sends
	dst  any   // a receive case's *T, or nil
	ok   *bool // a receive case's ok, or nil
	d    time.Duration
}

const (
	caseRecv uint8 = iota + 1
	caseSend
	caseDefault
	caseAfter
)

// RecvCase is a Select case receiving from c into *v and *ok (either may be
// nil): *ok is false if it fired because c is closed and drained.
func (c *Chan[T]) RecvCase(v *T, ok *bool) Case {
	cs := Case{ch: c, kind: caseRecv, ok: ok}
	if v != nil {
		cs.dst = v
	}
	return cs
}

// SendCase is a Select case sending v on c. The value is kept in the case
// as an interface value, which allocates unless T is pointer-shaped or a
// small scalar; a select on a closed channel's send case panics, as in Go,
// when that case is chosen.
func (c *Chan[T]) SendCase(v T) Case { return Case{ch: c, kind: caseSend, val: v} }

// Default is the case a Select chooses when no other case is ready at
// once: with it, Select never waits.
func Default() Case { return Case{kind: caseDefault} }

// After is the case a Select chooses when no other case fires within d
// (negative: never; 0: at once, as a Default). A Select takes one After.
func After(d time.Duration) Case { return Case{kind: caseAfter, d: d} }

// Select waits until one of its cases can proceed, performs it and returns
// its index in cases: Go's select statement, written
//
//	var v int
//	var ok bool
//	switch cosync.Select(co, in.RecvCase(&v, &ok), out.SendCase(x), cosync.After(time.Second)) {
//	case 0: // received v (ok false: in is closed)
//	case 1: // sent x
//	case 2: // a second passed
//	}
//
// When several cases are ready, one is chosen uniformly at random; exactly
// one case fires. A nil channel's case is never ready. With a [Default],
// Select does not wait. With no case that can fire, it waits forever (until
// a cancel or the loop's close). It returns -1 if the stackless task is
// canceled or the loop closes before a case fires. A blocked Select
// allocates its shared state (one small allocation) and takes one pooled
// record per channel case.
func Select(h Handle, cases ...Case) int {
	r, w, slot := h.Begin()
	if l := casesLoop(cases); l != nil && l != w.Loop() {
		return selectCross(h, r, l, cases)
	}
	if r != loop.NotWoken {
		return selectResumed(slot, r, cases)
	}
	chosen, ready, dflt, after := -1, 0, -1, -1
	timeout := Forever
	for i := range cases {
		cs := &cases[i]
		switch cs.kind {
		case caseDefault:
			dflt = i
			continue
		case caseAfter:
			if after >= 0 {
				panic("cosync: Select with more than one After case")
			}
			after, timeout = i, cs.d
			continue
		case 0:
			panic("cosync: Select with a zero Case")
		}
		cs.ch.bindTo(w)
		if cs.ch.ready(cs.kind) {
			ready++
			if ready == 1 || rand.IntN(ready) == 0 {
				chosen = i
			}
		}
	}
	if chosen >= 0 {
		cases[chosen].ch.do(cases[chosen])
		return chosen
	}
	if dflt >= 0 {
		return dflt
	}
	if timeout == 0 {
		return after
	}
	st := &selState{fired: -1}
	if len(cases) <= len(st.small) {
		st.recs = st.small[:len(cases)]
	} else {
		st.recs = make([]any, len(cases))
	}
	slot = slotOf(h, slot)
	*slot = st
	for i := range cases {
		cs := &cases[i]
		if cs.kind == caseRecv || cs.kind == caseSend {
			st.recs[i] = cs.ch.arm(slot, w, st, i, *cs)
		}
	}
	w.Park(timeout)
	r, again := h.Suspend()
	if !again {
		return -1
	}
	return st.finish(slot, r, cases, after)
}

// casesLoop returns the loop of the first bound channel among cases: a
// select's channels must all live on one loop, its caller's or another.
func casesLoop(cases []Case) *loop.Loop {
	for i := range cases {
		if cases[i].ch != nil {
			if l := cases[i].ch.boundLoop(); l != nil {
				return l
			}
		}
	}
	return nil
}

// selectCross runs a select on the loop of its channels for a coroutine of
// another loop. The cases are copied for the closure, so that Select's own
// cases do not escape (and its variadic slice stays on the stack).
func selectCross(h Handle, r loop.Reason, l *loop.Loop, cases []Case) int {
	cs := append([]Case(nil), cases...)
	return crossLoop(h, r, l, func(g Handle) int { return Select(g, cs...) }, func(error) int { return -1 })
}

func selectResumed(slot *any, r loop.Reason, cases []Case) int {
	var st *selState
	if slot != nil {
		st, _ = (*slot).(*selState)
	}
	if st == nil {
		return -1 // a first call of a canceled task
	}
	after := -1
	for i := range cases {
		if cases[i].kind == caseAfter {
			after = i
		}
	}
	return st.finish(slot, r, cases, after)
}

// selState is what the records of one blocked Select share: the owner's
// slot holds it while the select waits, which is what keeps its records
// alive.
type selState struct {
	fired int   // the index of the case that completed, or -1
	recs  []any // per case: its record (a *record[T]), or nil
	small [4]any
}

// finish ends a blocked select: every record is taken off its queue and
// released, the winner's outcome is stored, and the chosen index returned.
func (st *selState) finish(slot *any, r loop.Reason, cases []Case, after int) int {
	if *slot == any(st) {
		*slot = nil
	}
	closedSend := false
	for i, rec := range st.recs {
		if rec != nil {
			if cases[i].ch.end(rec, cases[i]) {
				closedSend = true
			}
		}
	}
	if closedSend {
		panic("cosync: send on closed channel")
	}
	if st.fired >= 0 {
		return st.fired
	}
	if r == loop.Timeout {
		return after
	}
	return -1
}

// selectable is a channel as Select sees it, whatever its element type.
type selectable interface {
	boundLoop() *loop.Loop
	bindTo(w *loop.Waiter)
	ready(kind uint8) bool
	do(cs Case)
	arm(slot *any, w *loop.Waiter, st *selState, idx int, cs Case) any
	end(rec any, cs Case) (closedSend bool)
}

func (c *Chan[T]) boundLoop() *loop.Loop {
	if c == nil {
		return nil
	}
	return c.l
}

func (c *Chan[T]) bindTo(w *loop.Waiter) {
	if c != nil && place(&c.l, w) {
		panic("cosync: Select over channels of different loops")
	}
}

func (c *Chan[T]) ready(kind uint8) bool {
	if c == nil {
		return false
	}
	if kind == caseRecv {
		return c.n > 0 || c.closed || !c.sendq.empty()
	}
	return c.closed || c.n < len(c.buf) || !c.recvq.empty()
}

func (c *Chan[T]) do(cs Case) {
	if cs.kind == caseSend {
		if !c.trySend(cs.val.(T)) {
			panic("cosync: internal error: a ready send case could not send")
		}
		return
	}
	v, ok, ready := c.tryRecv()
	if !ready {
		panic("cosync: internal error: a ready receive case could not receive")
	}
	if p, isT := cs.dst.(*T); isT {
		*p = v
	}
	if cs.ok != nil {
		*cs.ok = ok
	}
}

func (c *Chan[T]) arm(slot *any, w *loop.Waiter, st *selState, idx int, cs Case) any {
	if c == nil {
		return nil
	}
	q := &c.recvq
	var v T
	if cs.kind == caseSend {
		q = &c.sendq
		v = cs.val.(T)
	}
	r := q.get(slot, w)
	r.val = v
	r.sel = st
	r.idx = idx
	q.enqueue(r)
	return r
}

func (c *Chan[T]) end(rec any, cs Case) (closedSend bool) {
	r := rec.(*record[T])
	q := r.q
	st := r.state
	if st == stWaiting {
		q.unlink(r)
	}
	v := r.val
	q.release(r)
	switch st {
	case stDone:
		if cs.kind == caseRecv {
			if p, ok := cs.dst.(*T); ok {
				*p = v
			}
			if cs.ok != nil {
				*cs.ok = true
			}
		}
	case stClosed:
		if cs.kind == caseSend {
			return true
		}
		if p, ok := cs.dst.(*T); ok {
			var zero T
			*p = zero
		}
		if cs.ok != nil {
			*cs.ok = false
		}
	}
	return false
}

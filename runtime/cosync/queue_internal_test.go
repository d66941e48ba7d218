package cosync

import (
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
)

type nopRunner struct{}

func (nopRunner) Run() {}

// waitq.done is the fast path of the call made again after a hand-off: it
// takes the record out of the slot only when the record is the queue's own
// and completed (stDone); a waiting, closed or dropped record, another
// queue's record and a slot holding anything else are left alone for the
// general path (pending, finish).
func TestWaitqDone(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var w loop.Waiter
	w.Init(l, nopRunner{})
	var q, other waitq[int]
	var slot any
	if q.done(nil) != nil || q.done(&slot) != nil {
		t.Fatal("done found a record in a nil or empty slot")
	}
	rec := q.wait(&slot, &w, 0, -1)
	if q.done(&slot) != nil || slot != any(rec) {
		t.Fatal("done took a waiting record")
	}
	if other.done(&slot) != nil || slot != any(rec) {
		t.Fatal("done took another queue's record")
	}
	if got := q.popAlive(); got != rec {
		t.Fatalf("popAlive = %p, want %p", got, rec)
	}
	rec.val = 7
	rec.handOff()
	for _, st := range []uint8{stClosed, stDropped} {
		rec.state = st
		if q.done(&slot) != nil || slot != any(rec) {
			t.Fatalf("done took a record in state %d", st)
		}
	}
	rec.state = stDone
	if got := q.done(&slot); got != rec || slot != nil || got.val != 7 {
		t.Fatalf("done = %p (slot %v), want %p with 7 and the slot cleared", got, slot, rec)
	}
	slot = 3
	if q.done(&slot) != nil || slot != any(3) {
		t.Fatal("done touched a slot holding something else")
	}
}

package cosync_test

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func selector(e *Env, m Model, a, b *cosync.Chan[int], n int, d time.Duration, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { Selector(co, a, b, n, d, name, log) },
		func() stackless.Frame { return NewSelectorFrame(a, b, n, d, name, log) })
}

func selectSender(e *Env, m Model, a, b *cosync.Chan[int], v int, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { SelectSender(co, a, b, v, name, log) },
		func() stackless.Frame { return NewSelectSenderFrame(a, b, v, name, log) })
}

// A blocked select fires exactly one case, whichever is completed first,
// and its other records are dead: a second value is not taken.
func TestSelectBlockedFiresOnce(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		a, b := cosync.NewChan[int](0), cosync.NewChan[int](0)
		log := &Log{}
		selector(e, m, a, b, 1, -1, "s", log)
		e.Settle()
		if !b.TrySend(2) {
			t.Fatal("the select's b case was not waiting")
		}
		if a.TrySend(1) {
			t.Fatal("the select took a second value")
		}
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "s b 2 true")
		if a.TrySend(1) || b.TrySend(1) {
			t.Fatal("a record of the finished select is still queued")
		}
	})
}

// Close fires a blocked select's receive case with ok false; a timeout
// fires the After case; a ready case wins over the timeout.
func TestSelectCloseAndTimeout(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		a, b := cosync.NewChan[int](1), cosync.NewChan[int](0)
		log := &Log{}
		selector(e, m, a, b, 3, 2*time.Millisecond, "s", log)
		e.RunUntil(5*time.Second, func() bool { return len(log.Lines()) == 1 })
		a.TrySend(7)
		e.RunUntil(5*time.Second, func() bool { return len(log.Lines()) == 2 })
		b.Close()
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "s timeout", "s a 7 true", "s b 0 false")
	})
}

// Senders: a select with two send cases hands its value to whichever
// receiver comes first, once.
func TestSelectSend(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		a, b := cosync.NewChan[int](0), cosync.NewChan[int](0)
		log := &Log{}
		selectSender(e, m, a, b, 5, "s", log)
		e.Settle()
		if v, ok, ready := b.TryRecv(); !ready || !ok || v != 5 {
			t.Fatalf("TryRecv = %d %v %v", v, ok, ready)
		}
		if _, _, ready := a.TryRecv(); ready {
			t.Fatal("the value was sent twice")
		}
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "s sent 5 to b")
	})
}

// With several ready cases the choice is uniform: over many selects on two
// always-ready buffered channels each is chosen about half the time.
func TestSelectUniform(t *testing.T) {
	e := NewEnv(t)
	a, b := cosync.NewChan[int](1), cosync.NewChan[int](1)
	counts := [3]int{}
	const n = 4000
	e.Go(Stackful, func(co *stackful.Co) {
		for range n {
			a.TrySend(1)
			b.TrySend(2)
			var v int
			i := cosync.Select(co, a.RecvCase(&v, nil), b.RecvCase(&v, nil), cosync.Default())
			counts[i]++
			if i == 0 && v != 1 || i == 1 && v != 2 {
				t.Errorf("case %d received %d", i, v)
			}
			a.TryRecv()
			b.TryRecv()
		}
	}, nil)
	if counts[2] != 0 || counts[0] < n*4/10 || counts[1] < n*4/10 {
		t.Fatalf("choices %v over %d selects", counts, n)
	}
}

// Default fires only when nothing is ready; After(0) is a Default.
func TestSelectDefault(t *testing.T) {
	e := NewEnv(t)
	a := cosync.NewChan[int](1)
	var nilc *cosync.Chan[int]
	e.Go(Stackful, func(co *stackful.Co) {
		if i := cosync.Select(co, a.RecvCase(nil, nil), nilc.SendCase(1), cosync.Default()); i != 2 {
			t.Errorf("empty: case %d", i)
		}
		if i := cosync.Select(co, a.RecvCase(nil, nil), cosync.After(0)); i != 1 {
			t.Errorf("After(0): case %d", i)
		}
		if i := cosync.Select(co, a.SendCase(3), cosync.Default()); i != 0 {
			t.Errorf("room: case %d", i)
		}
		var v int
		var ok bool
		if i := cosync.Select(co, cosync.Default(), a.RecvCase(&v, &ok)); i != 1 || v != 3 || !ok {
			t.Errorf("ready: case %d %d %v", i, v, ok)
		}
		a.Close()
		if i := cosync.Select(co, cosync.Default(), a.RecvCase(&v, &ok)); i != 1 || v != 0 || ok {
			t.Errorf("closed: case %d %d %v", i, v, ok)
		}
		if msg := mustPanic(t, func() { cosync.Select(co, a.SendCase(1)) }); msg != "cosync: send on closed channel" {
			t.Errorf("send case on closed: %q", msg)
		}
	}, nil)
	if !e.Done() {
		t.Fatal("not done")
	}
}

// A canceled stackless select returns -1 and leaves no live record.
func TestSelectCancel(t *testing.T) {
	e := NewEnv(t)
	a, b := cosync.NewChan[int](0), cosync.NewChan[int](0)
	log := &Log{}
	selector(e, Stackless, a, b, 1, -1, "s", log)
	e.Settle()
	e.Task(0).Cancel()
	e.RunUntilDone(5 * time.Second)
	wantLog(t, log, "s none")
	if a.TrySend(1) || b.TrySend(1) {
		t.Fatal("a canceled select's record took a value")
	}
}

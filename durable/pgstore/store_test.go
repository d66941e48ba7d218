package pgstore

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestLifecycle walks one task through the store's operations: create,
// claim, commit (running, waiting, done), a signal sent before and one
// sent while waiting, a commit by a worker without the lease, renew and
// release.
func TestLifecycle(t *testing.T) {
	s := openTest(t)
	const lease = 5 * time.Second
	inCo(t, func(co *stackful.Co) {
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.Create(co, "a", "wf", []byte{1, 2, 3}))
		if err := s.Create(co, "a", "wf", nil); !errors.Is(err, durable.ErrExists) {
			t.Fatalf("second create: %v", err)
		}
		sig1, err := s.Signal(co, "a", "go", []byte("early"))
		must(err)
		cl, err := s.Claim(co, "w1", lease, 10)
		must(err)
		if len(cl) != 1 || cl[0].ID != "a" || cl[0].Name != "wf" || cl[0].Seq != 0 ||
			string(cl[0].Snapshot) != "\x01\x02\x03" || len(cl[0].Signals) != 1 ||
			cl[0].Signals[0].Seq != sig1 || cl[0].Signals[0].Name != "go" || string(cl[0].Signals[0].Value) != "early" {
			t.Fatalf("claim: %+v", cl)
		}
		if cl, err := s.Claim(co, "w2", lease, 10); err != nil || len(cl) != 0 {
			t.Fatalf("claim of a leased task: %v %+v", err, cl)
		}
		if err := s.Commit(co, "w2", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Running}); !errors.Is(err, durable.ErrLeaseLost) {
			t.Fatalf("commit by another worker: %v", err)
		}
		// Consume the early signal, then wait for another.
		must(s.Commit(co, "w1", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Waiting, Signal: "go",
			Snapshot: []byte{4}, Consumed: []int64{sig1}, Release: true}))
		if err := s.Commit(co, "w1", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Running}); !errors.Is(err, durable.ErrLeaseLost) {
			t.Fatalf("commit at an old seq: %v", err)
		}
		info, err := s.Get(co, "a")
		must(err)
		if info.State != durable.Waiting || info.Signal != "go" || !info.Due.IsZero() || info.Owner != "" || info.Seq != 1 || info.Pending != 0 {
			t.Fatalf("waiting: %+v", info)
		}
		if cl, _ := s.Claim(co, "w1", lease, 10); len(cl) != 0 {
			t.Fatalf("a waiting task was claimed: %+v", cl)
		}
		sig2, err := s.Signal(co, "a", "go", []byte("late"))
		must(err)
		cl, err = s.Claim(co, "w2", lease, 10)
		must(err)
		if len(cl) != 1 || cl[0].Seq != 1 || string(cl[0].Snapshot) != "\x04" || len(cl[0].Signals) != 1 || cl[0].Signals[0].Seq != sig2 {
			t.Fatalf("claim after the signal: %+v", cl)
		}
		lost, err := s.Renew(co, "w2", lease, []durable.ID{"a", "nope"})
		must(err)
		if !slices.Equal(lost, []durable.ID{"nope"}) {
			t.Fatalf("renew: lost %v", lost)
		}
		must(s.Commit(co, "w2", lease, &durable.Commit{ID: "a", Seq: 1, State: durable.Done, Result: []byte("ok"), Consumed: []int64{sig2}}))
		info, err = s.Get(co, "a")
		must(err)
		if info.State != durable.Done || string(info.Result) != "ok" || info.Owner != "" || info.Seq != 2 || info.Pending != 0 {
			t.Fatalf("done: %+v", info)
		}
		if _, err := s.Signal(co, "a", "go", nil); !errors.Is(err, durable.ErrFinished) {
			t.Fatalf("signal to a done task: %v", err)
		}
		if _, err := s.Signal(co, "b", "go", nil); !errors.Is(err, durable.ErrNotFound) {
			t.Fatalf("signal to no task: %v", err)
		}
		if _, err := s.Get(co, "b"); !errors.Is(err, durable.ErrNotFound) {
			t.Fatalf("get of no task: %v", err)
		}
	})
}

// TestSignalWhileRunning: a signal queued while the task runs (before its
// Waiting commit, which does not consume it) makes the Waiting commit due
// at once.
func TestSignalWhileRunning(t *testing.T) {
	s := openTest(t)
	inCo(t, func(co *stackful.Co) {
		if err := s.Create(co, "a", "wf", []byte{1}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(co, "w", time.Minute, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Signal(co, "a", "x", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(co, "w", time.Minute, &durable.Commit{ID: "a", State: durable.Waiting, Signal: "x", Release: true}); err != nil {
			t.Fatal(err)
		}
		info, err := s.Get(co, "a")
		if err != nil || info.State != durable.Waiting || info.Due.IsZero() || info.Pending != 1 {
			t.Fatalf("%v %+v", err, info)
		}
		cl, err := s.Claim(co, "w", time.Minute, 1)
		if err != nil || len(cl) != 1 || len(cl[0].Signals) != 1 {
			t.Fatalf("%v %+v", err, cl)
		}
	})
}

// Package storetest checks a [durable.Store] against the contract that
// package durable documents: call [Run] from a test of the store.
package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs the conformance tests as subtests of t. open returns a new,
// empty store for each subtest; Run closes it when the subtest ends
// (a store closed already by the subtest is not closed again). The
// store's methods are called on the main coroutine of an env made for
// the subtest (stackful.NewEnv), and from other coroutines of that env.
//
// The tests compare the store's times with the local clock with a
// tolerance of a few seconds, and wait for short leases (a few hundred
// milliseconds) to expire.
func Run(t *testing.T, open func(t *testing.T) durable.Store) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, err := stackful.NewEnv()
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			s := open(t)
			h := &harness{T: t, s: s, co: env.Main(), env: env}
			defer func() {
				if !h.closed {
					if err := s.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				}
			}()
			c.fn(h)
		})
	}
}

type harness struct {
	*testing.T
	s      durable.Store
	co     *stackful.Co
	env    *stackful.Env
	closed bool
}

const (
	lease = time.Minute
	slack = 5 * time.Second // tolerated difference between the store's clock and ours
)

var cases = []struct {
	name string
	fn   func(h *harness)
}{
	{"CreateGet", testCreateGet},
	{"ClaimCommit", testClaimCommit},
	{"ClaimMax", testClaimMax},
	{"ClaimOrder", testClaimOrder},
	{"Sleeping", testSleeping},
	{"LeaseExpiry", testLeaseExpiry},
	{"Renew", testRenew},
	{"Release", testRelease},
	{"KeepSnapshot", testKeepSnapshot},
	{"Terminal", testTerminal},
	{"Signals", testSignals},
	{"WaitingWokenBySignal", testWaitingWoken},
	{"WaitingSignalSentWhileRunning", testWaitingSignalEarly},
	{"ConcurrentClaims", testConcurrentClaims},
	{"SignalCommitRace", testSignalCommitRace},
	{"LongIDs", testLongIDs},
	{"Delete", testDelete},
	{"List", testList},
	{"Closed", testClosed},
}

func (h *harness) create(id durable.ID, snap string) {
	h.Helper()
	if err := h.s.Create(h.co, id, "test.Workflow", []byte(snap)); err != nil {
		h.Fatalf("Create %q: %v", id, err)
	}
}

func (h *harness) get(id durable.ID) durable.Info {
	h.Helper()
	in, err := h.s.Get(h.co, id)
	if err != nil {
		h.Fatalf("Get %q: %v", id, err)
	}
	return in
}

func (h *harness) claim(worker string, l time.Duration, max int) []durable.Claimed {
	h.Helper()
	cs, err := h.s.Claim(h.co, worker, l, max)
	if err != nil {
		h.Fatalf("Claim by %s: %v", worker, err)
	}
	return cs
}

func (h *harness) commit(worker string, c durable.Commit) {
	h.Helper()
	if err := h.s.Commit(h.co, worker, lease, &c); err != nil {
		h.Fatalf("Commit %q at %d by %s: %v", c.ID, c.Seq, worker, err)
	}
}

func (h *harness) signal(id durable.ID, name, value string) int64 {
	h.Helper()
	seq, err := h.s.Signal(h.co, id, name, []byte(value))
	if err != nil {
		h.Fatalf("Signal %q %s: %v", id, name, err)
	}
	return seq
}

func ids(cs []durable.Claimed) []durable.ID {
	var out []durable.ID
	for _, c := range cs {
		out = append(out, c.ID)
	}
	slices.Sort(out)
	return out
}

func near(a, b time.Time) bool { return a.Sub(b).Abs() <= slack }

func testCreateGet(h *harness) {
	before := time.Now()
	h.create("a", "snap-a")
	in := h.get("a")
	if in.ID != "a" || in.Name != "test.Workflow" || in.State != durable.Running || in.Seq != 0 || in.Owner != "" || in.Pending != 0 {
		h.Errorf("Get after Create: %+v", in)
	}
	if !near(in.Due, before) {
		h.Errorf("due %v, want about %v", in.Due, before)
	}
	err := h.s.Create(h.co, "a", "other", []byte("other"))
	if !errors.Is(err, durable.ErrExists) {
		h.Errorf("second Create: %v, want ErrExists", err)
	}
	cs := h.claim("w1", lease, 10)
	if len(cs) != 1 || string(cs[0].Snapshot) != "snap-a" || cs[0].Name != "test.Workflow" {
		h.Errorf("the second Create changed the task: %+v", cs)
	}
	if _, err := h.s.Get(h.co, "nope"); !errors.Is(err, durable.ErrNotFound) {
		h.Errorf("Get of an unknown ID: %v, want ErrNotFound", err)
	}
}

func testClaimCommit(h *harness) {
	h.create("a", "snap-a")
	h.create("b", "snap-b")
	cs := h.claim("w1", lease, 10)
	if got := ids(cs); !slices.Equal(got, []durable.ID{"a", "b"}) {
		h.Fatalf("claimed %v", got)
	}
	for _, c := range cs {
		if c.Seq != 0 || string(c.Snapshot) != "snap-"+string(c.ID) || len(c.Signals) != 0 {
			h.Errorf("claimed %+v", c)
		}
	}
	if in := h.get("a"); in.Owner != "w1" || !near(in.Lease, time.Now().Add(lease)) {
		h.Errorf("after Claim: owner %q lease %v", in.Owner, in.Lease)
	}
	if cs := h.claim("w2", lease, 10); len(cs) != 0 {
		h.Errorf("w2 claimed %v, leased by w1", ids(cs))
	}
	h.commit("w1", durable.Commit{ID: "a", Seq: 0, State: durable.Running, Snapshot: []byte("snap-a1"), Due: time.Now().Add(time.Hour)})
	if in := h.get("a"); in.Seq != 1 || in.State != durable.Running || in.Owner != "w1" || !near(in.Due, time.Now().Add(time.Hour)) {
		h.Errorf("after Commit: %+v", in)
	}
	for _, c := range []struct {
		worker string
		seq    int64
	}{{"w1", 0}, {"w1", 2}, {"w2", 1}} {
		err := h.s.Commit(h.co, c.worker, lease, &durable.Commit{ID: "a", Seq: c.seq, State: durable.Done})
		if !errors.Is(err, durable.ErrLeaseLost) {
			h.Errorf("Commit by %s at seq %d: %v, want ErrLeaseLost", c.worker, c.seq, err)
		}
	}
	if in := h.get("a"); in.Seq != 1 || in.State != durable.Running {
		h.Errorf("a refused Commit changed the task: %+v", in)
	}
	err := h.s.Commit(h.co, "w1", lease, &durable.Commit{ID: "nope", Seq: 0, State: durable.Done})
	if !errors.Is(err, durable.ErrLeaseLost) {
		h.Errorf("Commit of an unknown ID: %v, want ErrLeaseLost", err)
	}
	// Due now again, released: claimable with the new snapshot.
	h.commit("w1", durable.Commit{ID: "a", Seq: 1, State: durable.Running, Snapshot: []byte("snap-a2"), Release: true})
	cs = h.claim("w2", lease, 10)
	if len(cs) != 1 || cs[0].ID != "a" || cs[0].Seq != 2 || string(cs[0].Snapshot) != "snap-a2" {
		h.Errorf("w2 claimed %+v, want a at seq 2 with snap-a2", cs)
	}
}

func testClaimMax(h *harness) {
	for i := range 5 {
		h.create(durable.ID(fmt.Sprint("t", i)), "s")
	}
	first := h.claim("w1", lease, 2)
	if len(first) != 2 {
		h.Fatalf("claimed %d with max 2", len(first))
	}
	rest := h.claim("w1", lease, 10)
	if len(rest) != 3 {
		h.Fatalf("then claimed %d, want the 3 others", len(rest))
	}
	all := append(ids(first), ids(rest)...)
	slices.Sort(all)
	if !slices.Equal(all, []durable.ID{"t0", "t1", "t2", "t3", "t4"}) {
		h.Errorf("claimed %v", all)
	}
	if cs := h.claim("w1", lease, 10); len(cs) != 0 {
		h.Errorf("claimed %v again while holding them", ids(cs))
	}
}

func testClaimOrder(h *harness) {
	for _, id := range []durable.ID{"x", "y", "z"} {
		h.create(id, "s")
	}
	h.claim("w1", lease, 10)
	now := time.Now()
	for id, ago := range map[durable.ID]time.Duration{"x": time.Second, "y": 3 * time.Second, "z": 2 * time.Second} {
		h.commit("w1", durable.Commit{ID: id, Seq: 0, State: durable.Sleeping, Due: now.Add(-ago), Release: true})
	}
	var order []durable.ID
	for range 3 {
		cs := h.claim("w2", lease, 1)
		if len(cs) != 1 {
			h.Fatalf("claimed %d with max 1", len(cs))
		}
		order = append(order, cs[0].ID)
	}
	if !slices.Equal(order, []durable.ID{"y", "z", "x"}) {
		h.Errorf("claimed in order %v, want the earliest due first: y z x", order)
	}
}

func testSleeping(h *harness) {
	h.create("s", "s0")
	h.claim("w1", lease, 10)
	due := time.Now().Add(time.Hour)
	h.commit("w1", durable.Commit{ID: "s", Seq: 0, State: durable.Sleeping, Snapshot: []byte("s1"), Due: due, Release: true})
	in := h.get("s")
	if in.State != durable.Sleeping || in.Owner != "" || !near(in.Due, due) {
		h.Errorf("after a far Sleeping commit: %+v", in)
	}
	if cs := h.claim("w2", lease, 10); len(cs) != 0 {
		h.Errorf("claimed %v before its due time", ids(cs))
	}
	// Another task, sleeping until a moment that has passed: claimable.
	h.create("p", "p0")
	h.claim("w1", lease, 10)
	h.commit("w1", durable.Commit{ID: "p", Seq: 0, State: durable.Sleeping, Due: time.Now().Add(-time.Millisecond), Release: true})
	if cs := h.claim("w2", lease, 10); !slices.Equal(ids(cs), []durable.ID{"p"}) {
		h.Errorf("claimed %v, want the task whose sleep is over", ids(cs))
	}
}

func testLeaseExpiry(h *harness) {
	h.create("a", "s")
	short := 300 * time.Millisecond
	if cs := h.claim("w1", short, 10); len(cs) != 1 {
		h.Fatalf("claimed %d", len(cs))
	}
	if cs := h.claim("w2", lease, 10); len(cs) != 0 {
		h.Fatalf("claimed while leased")
	}
	var cs []durable.Claimed
	for deadline := time.Now().Add(short + 2*slack); len(cs) == 0; {
		if time.Now().After(deadline) {
			h.Fatal("the expired lease was never claimable")
		}
		h.co.Sleep(50 * time.Millisecond)
		cs = h.claim("w2", lease, 10)
	}
	if cs[0].ID != "a" || cs[0].Seq != 0 {
		h.Errorf("claimed %+v", cs[0])
	}
	if err := h.s.Commit(h.co, "w1", lease, &durable.Commit{ID: "a", Seq: 0, State: durable.Done}); !errors.Is(err, durable.ErrLeaseLost) {
		h.Errorf("Commit by the worker whose lease expired: %v, want ErrLeaseLost", err)
	}
	lost, err := h.s.Renew(h.co, "w1", lease, []durable.ID{"a"})
	if err != nil || !slices.Equal(lost, []durable.ID{"a"}) {
		h.Errorf("Renew by the worker whose lease expired: lost %v, %v", lost, err)
	}
	h.commit("w2", durable.Commit{ID: "a", Seq: 0, State: durable.Done})
}

func testRenew(h *harness) {
	h.create("a", "s")
	h.create("b", "s")
	h.claim("w1", 2*time.Second, 10)
	lost, err := h.s.Renew(h.co, "w1", time.Hour, []durable.ID{"a", "nope"})
	if err != nil || !slices.Equal(lost, []durable.ID{"nope"}) {
		h.Errorf("Renew: lost %v, %v; want [nope]", lost, err)
	}
	if in := h.get("a"); in.Owner != "w1" || !near(in.Lease, time.Now().Add(time.Hour)) {
		h.Errorf("renewed lease: %+v", in)
	}
	if in := h.get("b"); !near(in.Lease, time.Now().Add(2*time.Second)) {
		h.Errorf("a lease not renewed moved: %+v", in)
	}
	lost, err = h.s.Renew(h.co, "w2", time.Hour, []durable.ID{"a", "b"})
	if err != nil || !slices.Equal(lost, []durable.ID{"a", "b"}) {
		h.Errorf("Renew by another worker: lost %v, %v; want [a b]", lost, err)
	}
	// A task ended by its commit is not held any more.
	h.commit("w1", durable.Commit{ID: "a", Seq: 0, State: durable.Done})
	if lost, _ := h.s.Renew(h.co, "w1", time.Hour, []durable.ID{"a"}); !slices.Equal(lost, []durable.ID{"a"}) {
		h.Errorf("Renew of a Done task: lost %v, want [a]", lost)
	}
}

func testRelease(h *harness) {
	h.create("a", "s")
	h.create("b", "s")
	h.claim("w1", lease, 10)
	if err := h.s.Release(h.co, "w2", []durable.ID{"a"}); err != nil {
		h.Fatal(err)
	}
	if in := h.get("a"); in.Owner != "w1" {
		h.Errorf("Release by another worker took the lease: %+v", in)
	}
	if err := h.s.Release(h.co, "w1", []durable.ID{"a", "nope"}); err != nil {
		h.Fatal(err)
	}
	if in := h.get("a"); in.Owner != "" || in.State != durable.Running || in.Seq != 0 {
		h.Errorf("after Release: %+v", in)
	}
	if cs := h.claim("w2", lease, 10); !slices.Equal(ids(cs), []durable.ID{"a"}) {
		h.Errorf("w2 claimed %v, want [a]", ids(cs))
	}
}

func testKeepSnapshot(h *harness) {
	h.create("a", "s0")
	h.claim("w1", lease, 10)
	h.commit("w1", durable.Commit{ID: "a", Seq: 0, State: durable.Running, Snapshot: []byte("s1")})
	h.commit("w1", durable.Commit{ID: "a", Seq: 1, State: durable.Running, Release: true})
	cs := h.claim("w1", lease, 10)
	if len(cs) != 1 || string(cs[0].Snapshot) != "s1" || cs[0].Seq != 2 {
		h.Errorf("claimed %+v, want the snapshot s1 kept by a commit without one, at seq 2", cs)
	}
}

func testTerminal(h *harness) {
	for _, id := range []durable.ID{"d", "f", "p"} {
		h.create(id, "s")
	}
	h.claim("w1", lease, 10)
	h.commit("w1", durable.Commit{ID: "d", Seq: 0, State: durable.Done, Result: []byte("42")})
	h.commit("w1", durable.Commit{ID: "f", Seq: 0, State: durable.Failed, Error: "boom"})
	h.commit("w1", durable.Commit{ID: "p", Seq: 0, State: durable.Parked, Error: "changed"})
	for id, want := range map[durable.ID]durable.Info{
		"d": {State: durable.Done, Result: []byte("42")},
		"f": {State: durable.Failed, Error: "boom"},
		"p": {State: durable.Parked, Error: "changed"},
	} {
		in := h.get(id)
		if in.State != want.State || !bytes.Equal(in.Result, want.Result) || in.Error != want.Error || in.Owner != "" || in.Seq != 1 {
			h.Errorf("%s: %+v, want %v result %q error %q, no owner, seq 1", id, in, want.State, want.Result, want.Error)
		}
	}
	if cs := h.claim("w2", lease, 10); len(cs) != 0 {
		h.Errorf("claimed ended tasks %v", ids(cs))
	}
	for _, id := range []durable.ID{"d", "f"} {
		if _, err := h.s.Signal(h.co, id, "x", nil); !errors.Is(err, durable.ErrFinished) {
			h.Errorf("Signal of %s: %v, want ErrFinished", id, err)
		}
	}
	if _, err := h.s.Signal(h.co, "p", "x", nil); err != nil {
		h.Errorf("Signal of a Parked task: %v", err)
	}
	if err := h.s.Commit(h.co, "w1", lease, &durable.Commit{ID: "d", Seq: 1, State: durable.Running}); !errors.Is(err, durable.ErrLeaseLost) {
		h.Errorf("Commit of a Done task: %v, want ErrLeaseLost", err)
	}
}

func testSignals(h *harness) {
	if _, err := h.s.Signal(h.co, "nope", "x", nil); !errors.Is(err, durable.ErrNotFound) {
		h.Errorf("Signal of an unknown ID: %v, want ErrNotFound", err)
	}
	h.create("a", "s")
	h.create("b", "s")
	q1 := h.signal("a", "pay", "1")
	q2 := h.signal("a", "ship", "2")
	q3 := h.signal("a", "pay", "3")
	qb := h.signal("b", "pay", "b")
	if !(q1 < q2 && q2 < q3) {
		h.Errorf("signal numbers %d %d %d, want increasing", q1, q2, q3)
	}
	if in := h.get("a"); in.Pending != 3 {
		h.Errorf("a: %d pending, want 3", in.Pending)
	}
	cs := h.claim("w1", lease, 10)
	var a durable.Claimed
	for _, c := range cs {
		if c.ID == "a" {
			a = c
		}
		if c.ID == "b" && (len(c.Signals) != 1 || c.Signals[0].Seq != qb) {
			h.Errorf("b's signals: %+v", c.Signals)
		}
	}
	want := []durable.Signal{{Seq: q1, Name: "pay", Value: []byte("1")}, {Seq: q2, Name: "ship", Value: []byte("2")}, {Seq: q3, Name: "pay", Value: []byte("3")}}
	if !slices.EqualFunc(a.Signals, want, func(x, y durable.Signal) bool {
		return x.Seq == y.Seq && x.Name == y.Name && bytes.Equal(x.Value, y.Value)
	}) {
		h.Errorf("a's signals: %+v, want %+v", a.Signals, want)
	}
	h.commit("w1", durable.Commit{ID: "a", Seq: 0, State: durable.Running, Consumed: []int64{q1}, Release: true})
	if in := h.get("a"); in.Pending != 2 {
		h.Errorf("a: %d pending after consuming one, want 2", in.Pending)
	}
	cs = h.claim("w1", lease, 10)
	if len(cs) != 1 || cs[0].ID != "a" || len(cs[0].Signals) != 2 || cs[0].Signals[0].Seq != q2 || cs[0].Signals[1].Seq != q3 {
		h.Errorf("claimed after consuming: %+v", cs)
	}
}

func testWaitingWoken(h *harness) {
	h.create("a", "s")
	h.claim("w1", lease, 10)
	h.commit("w1", durable.Commit{ID: "a", Seq: 0, State: durable.Waiting, Signal: "go", Snapshot: []byte("w"), Release: true})
	if in := h.get("a"); in.State != durable.Waiting || in.Signal != "go" || in.Owner != "" || !in.Due.IsZero() {
		h.Errorf("after a Waiting commit: %+v", in)
	}
	if cs := h.claim("w1", lease, 10); len(cs) != 0 {
		h.Errorf("claimed a task waiting for a signal: %v", ids(cs))
	}
	h.signal("a", "other", "o")
	if cs := h.claim("w1", lease, 10); len(cs) != 0 {
		h.Errorf("claimed a task waiting for go after a signal named other: %v", ids(cs))
	}
	q := h.signal("a", "go", "v")
	cs := h.claim("w1", lease, 10)
	if len(cs) != 1 || cs[0].Seq != 1 || string(cs[0].Snapshot) != "w" || len(cs[0].Signals) != 2 || cs[0].Signals[1].Seq != q {
		h.Fatalf("claimed after the signal: %+v", cs)
	}
	// Consumed, and waiting for it again: not due.
	h.commit("w1", durable.Commit{ID: "a", Seq: 1, State: durable.Waiting, Signal: "go", Consumed: []int64{q}, Release: true})
	if cs := h.claim("w1", lease, 10); len(cs) != 0 {
		h.Errorf("claimed a task waiting for a signal it consumed: %v", ids(cs))
	}
}

func testWaitingSignalEarly(h *harness) {
	h.create("a", "s")
	h.claim("w1", lease, 10)
	q := h.signal("a", "go", "v") // while w1 runs it
	h.commit("w1", durable.Commit{ID: "a", Seq: 0, State: durable.Waiting, Signal: "go", Release: true})
	cs := h.claim("w2", lease, 10)
	if len(cs) != 1 || len(cs[0].Signals) != 1 || cs[0].Signals[0].Seq != q {
		h.Errorf("a task waiting for a signal sent before its commit: claimed %+v, want it due with the signal", cs)
	}
}

func testConcurrentClaims(h *harness) {
	const n, claimers = 60, 4
	for i := range n {
		h.create(durable.ID(fmt.Sprintf("t%02d", i)), "s")
	}
	got := map[durable.ID]string{}
	var errs []error
	done := 0
	for c := range claimers {
		worker := fmt.Sprint("w", c)
		h.env.Create(func(co *stackful.Co) {
			defer func() { done++ }()
			for {
				cs, err := h.s.Claim(co, worker, lease, 7)
				if err != nil {
					errs = append(errs, err)
					return
				}
				if len(cs) == 0 {
					return
				}
				for _, c := range cs {
					if w, ok := got[c.ID]; ok {
						errs = append(errs, fmt.Errorf("%s claimed by %s and %s", c.ID, w, worker))
					}
					got[c.ID] = worker
				}
			}
		}, nil).Resume()
	}
	if err := h.env.Run(func() bool { return done == claimers }); err != nil {
		h.Fatal(err)
	}
	if len(errs) > 0 {
		h.Fatal(errs)
	}
	if len(got) != n {
		h.Errorf("%d tasks claimed, want %d", len(got), n)
	}
}

// testSignalCommitRace: signals racing their tasks' Waiting commits, from
// concurrent coroutines: whichever lands first, every task ends up due.
func testSignalCommitRace(h *harness) {
	const n = 100
	for i := range n {
		h.create(durable.ID(fmt.Sprintf("r%03d", i)), "s")
	}
	if cs := h.claim("w1", lease, n); len(cs) != n {
		h.Fatalf("claimed %d", len(cs))
	}
	var errs []error
	done := 0
	for i := range n {
		id := durable.ID(fmt.Sprintf("r%03d", i))
		ops := []func(co *stackful.Co) error{
			func(co *stackful.Co) error {
				return h.s.Commit(co, "w1", lease, &durable.Commit{ID: id, Seq: 0, State: durable.Waiting, Signal: "go", Release: true})
			},
			func(co *stackful.Co) error { _, err := h.s.Signal(co, id, "go", nil); return err },
		}
		if i%2 == 1 {
			ops[0], ops[1] = ops[1], ops[0]
		}
		for _, op := range ops {
			h.env.Create(func(co *stackful.Co) {
				if err := op(co); err != nil {
					errs = append(errs, err)
				}
				done++
			}, nil).Resume()
		}
	}
	if err := h.env.Run(func() bool { return done == 2*n }); err != nil {
		h.Fatal(err)
	}
	if len(errs) > 0 {
		h.Fatal(errs)
	}
	cs := h.claim("w2", lease, 2*n)
	if len(cs) != n {
		h.Errorf("%d of %d tasks due after their signal raced their Waiting commit", len(cs), n)
	}
}

func testLongIDs(h *harness) {
	long := durable.ID(bytes.Repeat([]byte("x/é"), 50))
	for _, id := range []durable.ID{long, "a b/../c", ".hidden", "ünïcode"} {
		h.create(id, "s-"+string(id))
		if in := h.get(id); in.ID != id {
			h.Errorf("Get %q: ID %q", id, in.ID)
		}
	}
	cs := h.claim("w1", lease, 10)
	if len(cs) != 4 {
		h.Fatalf("claimed %d, want 4", len(cs))
	}
	for _, c := range cs {
		if string(c.Snapshot) != "s-"+string(c.ID) {
			h.Errorf("%q: snapshot %q", c.ID, c.Snapshot)
		}
	}
}

func testClosed(h *harness) {
	h.create("a", "s")
	if err := h.s.Close(); err != nil {
		h.Fatal(err)
	}
	h.closed = true
	if _, err := h.s.Get(h.co, "a"); !errors.Is(err, durable.ErrClosed) {
		h.Errorf("Get after Close: %v, want ErrClosed", err)
	}
	if err := h.s.Create(h.co, "b", "n", nil); !errors.Is(err, durable.ErrClosed) {
		h.Errorf("Create after Close: %v, want ErrClosed", err)
	}
	if _, err := h.s.Claim(h.co, "w", lease, 1); !errors.Is(err, durable.ErrClosed) {
		h.Errorf("Claim after Close: %v, want ErrClosed", err)
	}
	if err := h.s.Delete(h.co, "a"); !errors.Is(err, durable.ErrClosed) {
		h.Errorf("Delete after Close: %v, want ErrClosed", err)
	}
	if _, err := h.s.List(h.co, 0, "", 10); !errors.Is(err, durable.ErrClosed) {
		h.Errorf("List after Close: %v, want ErrClosed", err)
	}
}

func testDelete(h *harness) {
	if err := h.s.Delete(h.co, "nope"); !errors.Is(err, durable.ErrNotFound) {
		h.Errorf("Delete of an unknown ID: %v, want ErrNotFound", err)
	}
	for _, id := range []durable.ID{"r", "s", "w", "d", "f", "p"} {
		h.create(id, "old "+string(id))
	}
	h.claim("w1", lease, 10)
	h.commit("w1", durable.Commit{ID: "r", Seq: 0, State: durable.Running})
	h.commit("w1", durable.Commit{ID: "s", Seq: 0, State: durable.Sleeping, Due: time.Now().Add(time.Hour)})
	h.commit("w1", durable.Commit{ID: "w", Seq: 0, State: durable.Waiting, Signal: "go"})
	h.commit("w1", durable.Commit{ID: "d", Seq: 0, State: durable.Done, Result: []byte("42")})
	h.commit("w1", durable.Commit{ID: "f", Seq: 0, State: durable.Failed, Error: "boom"})
	h.commit("w1", durable.Commit{ID: "p", Seq: 0, State: durable.Parked, Error: "changed"})
	h.signal("p", "x", "1")
	h.signal("p", "y", "2")
	h.signal("w", "other", "3")
	for _, id := range []durable.ID{"r", "s", "w"} {
		before := h.get(id)
		if err := h.s.Delete(h.co, id); !errors.Is(err, durable.ErrNotEnded) {
			h.Errorf("Delete of a %v task: %v, want ErrNotEnded", before.State, err)
		}
		if in := h.get(id); in.State != before.State || in.Seq != before.Seq || in.Pending != before.Pending {
			h.Errorf("%s after a refused Delete: %+v, was %+v", id, in, before)
		}
	}
	for _, id := range []durable.ID{"d", "f", "p"} {
		if err := h.s.Delete(h.co, id); err != nil {
			h.Errorf("Delete %s: %v", id, err)
		}
		if _, err := h.s.Get(h.co, id); !errors.Is(err, durable.ErrNotFound) {
			h.Errorf("Get of deleted %s: %v, want ErrNotFound", id, err)
		}
		if err := h.s.Delete(h.co, id); !errors.Is(err, durable.ErrNotFound) {
			h.Errorf("second Delete of %s: %v, want ErrNotFound", id, err)
		}
		if _, err := h.s.Signal(h.co, id, "x", nil); !errors.Is(err, durable.ErrNotFound) {
			h.Errorf("Signal of deleted %s: %v, want ErrNotFound", id, err)
		}
	}
	// The ID is free again, and nothing of the old task comes back: not
	// its state, nor its signals.
	h.create("p", "new p")
	if in := h.get("p"); in.State != durable.Running || in.Seq != 0 || in.Pending != 0 || in.Error != "" {
		h.Errorf("p created again: %+v, want running, seq 0, no signal, no error", in)
	}
	h.signal("p", "z", "new")
	cs := h.claim("w2", lease, 10)
	if len(cs) != 1 || cs[0].ID != "p" || string(cs[0].Snapshot) != "new p" || len(cs[0].Signals) != 1 || string(cs[0].Signals[0].Value) != "new" {
		h.Errorf("claimed %+v, want p with its new snapshot and its one new signal", cs)
	}
	// w, refused, kept its signal.
	if in := h.get("w"); in.Pending != 1 {
		h.Errorf("w: %d signals pending, want 1", in.Pending)
	}
}

func testList(h *harness) {
	// "Z" sorts before "a" in byte order (not in most locales' orders).
	all := []durable.ID{"Z", "a", "b", "c", "d", "e"}
	for _, id := range all {
		h.create(id, "s")
	}
	h.claim("w1", lease, 10)
	h.commit("w1", durable.Commit{ID: "b", Seq: 0, State: durable.Done, Result: []byte("rb")})
	h.commit("w1", durable.Commit{ID: "d", Seq: 0, State: durable.Parked, Error: "ed"})
	h.commit("w1", durable.Commit{ID: "Z", Seq: 0, State: durable.Done, Result: []byte("rZ")})
	h.signal("d", "x", "1")
	list := func(state durable.State, after durable.ID, max int) []durable.ID {
		h.Helper()
		infos, err := h.s.List(h.co, state, after, max)
		if err != nil {
			h.Fatalf("List(%v, %q, %d): %v", state, after, max, err)
		}
		var out []durable.ID
		for _, in := range infos {
			out = append(out, in.ID)
			want := h.get(in.ID)
			if in.State != want.State || in.Seq != want.Seq || !bytes.Equal(in.Result, want.Result) || in.Error != want.Error ||
				in.Name != want.Name || in.Owner != want.Owner || in.Pending != want.Pending {
				h.Errorf("List's record of %s: %+v, Get's %+v", in.ID, in, want)
			}
		}
		return out
	}
	check := func(got, want []durable.ID, what string) {
		h.Helper()
		if !slices.Equal(got, want) {
			h.Errorf("%s: %q, want %q", what, got, want)
		}
	}
	check(list(0, "", 100), all, "List of every task")
	check(list(durable.Done, "", 100), []durable.ID{"Z", "b"}, "List of Done")
	check(list(durable.Parked, "", 100), []durable.ID{"d"}, "List of Parked")
	check(list(durable.Running, "", 100), []durable.ID{"a", "c", "e"}, "List of Running")
	check(list(durable.Failed, "", 100), nil, "List of Failed")
	var pages []durable.ID
	after := durable.ID("")
	for range len(all) {
		page := list(0, after, 4)
		if len(page) == 0 {
			break
		}
		if len(page) > 4 {
			h.Fatalf("page of %d, max 4", len(page))
		}
		pages = append(pages, page...)
		after = page[len(page)-1]
	}
	check(pages, all, "pages of 4")
	check(list(durable.Running, "a", 1), []durable.ID{"c"}, "List of Running after a, max 1")
	check(list(0, "e", 10), nil, "List after the last")
}

package durable_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/internal/testwf"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// steps records the workflows' calls of testwf.Step.
type steps struct {
	mu  sync.Mutex
	got map[durable.ID][]string // "i key"
}

func recordSteps(t *testing.T) *steps {
	s := &steps{got: map[durable.ID][]string{}}
	testwf.Step = func(id durable.ID, key string, i int) {
		s.mu.Lock()
		s.got[id] = append(s.got[id], fmt.Sprintf("%d %s", i, key))
		s.mu.Unlock()
	}
	t.Cleanup(func() { testwf.Step = func(durable.ID, string, int) {} })
	return s
}

func (s *steps) of(id durable.ID) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got[id])
}

// startRunner runs a runner of s until the test ends.
func startRunner(t *testing.T, s durable.Store, o durable.Options) *durable.Runner {
	t.Helper()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	r := durable.NewRunner(s, o)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background()) }()
	t.Cleanup(func() {
		r.Close()
		if err := <-errc; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

func do(t *testing.T, fn func(co *stackful.Co) error) {
	t.Helper()
	if err := durable.Do(fn); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, s durable.Store, id durable.ID, f stackless.Frame) {
	t.Helper()
	do(t, func(co *stackful.Co) error { return durable.Start(co, s, id, f) })
}

func await(t *testing.T, s durable.Store, id durable.ID) durable.Info {
	t.Helper()
	var in durable.Info
	done := make(chan error, 1)
	go func() {
		done <- durable.Do(func(co *stackful.Co) error {
			var err error
			in, err = durable.Await(co, s, id, 5*time.Millisecond)
			return err
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("task %q not ended after 30 s", id)
	}
	return in
}

func get(t *testing.T, s durable.Store, id durable.ID) durable.Info {
	t.Helper()
	var in durable.Info
	do(t, func(co *stackful.Co) error {
		var err error
		in, err = s.Get(co, id)
		return err
	})
	return in
}

// eventually waits up to 20 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not after 20 s: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func keys(id durable.ID, steps ...int) []string {
	var out []string
	for i := 0; i < len(steps); i += 2 {
		out = append(out, fmt.Sprintf("%d %s/%d", steps[i], id, steps[i+1]))
	}
	return out
}

// TestRunComplete: a started task runs to its end, checkpointing at each
// Gosched; its step keys follow its checkpoints; its result, computed
// through a pointer to a local carried by every snapshot, is recorded.
func TestRunComplete(t *testing.T) {
	st := recordSteps(t)
	s := openDir(t, t.TempDir())
	start(t, s, "c1", testwf.NewCounterFrame("c1", 5))
	r := startRunner(t, s, durable.Options{})
	in := await(t, s, "c1")
	if in.State != durable.Done || string(in.Result) != "15" || in.Seq != 6 || in.Owner != "" {
		t.Errorf("ended as %+v, want Done with 15 at seq 6", in)
	}
	if got, want := st.of("c1"), keys("c1", 0, 0, 1, 1, 2, 2, 3, 3, 4, 4); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	eventually(t, "the runner's counters", func() bool {
		s := r.Stats()
		return s.Done == 1 && s.Checkpoints == 5 && s.InMemory == 0 && s.Claimed == 1
	})
}

// TestStartExists: Start of an ID the store holds fails with ErrExists.
func TestStartExists(t *testing.T) {
	s := openDir(t, t.TempDir())
	start(t, s, "x", testwf.NewCounterFrame("x", 1))
	err := durable.Do(func(co *stackful.Co) error { return durable.Start(co, s, "x", testwf.NewCounterFrame("x", 2)) })
	if !errors.Is(err, durable.ErrExists) {
		t.Errorf("second Start: %v, want ErrExists", err)
	}
}

// hookStore lets a test intercept a store's Commit and Renew.
type hookStore struct {
	durable.Store
	mu     sync.Mutex
	commit func(co *stackful.Co, worker string, c *durable.Commit) (bool, error) // true: handled, with the error
	renew  func(ids []durable.ID) ([]durable.ID, error, bool)
}

func (h *hookStore) Commit(co *stackful.Co, worker string, lease time.Duration, c *durable.Commit) error {
	h.mu.Lock()
	f := h.commit
	h.mu.Unlock()
	if f != nil {
		if handled, err := f(co, worker, c); handled {
			return err
		}
	}
	return h.Store.Commit(co, worker, lease, c)
}

func (h *hookStore) Renew(co *stackful.Co, worker string, lease time.Duration, ids []durable.ID) ([]durable.ID, error) {
	h.mu.Lock()
	f := h.renew
	h.mu.Unlock()
	if f != nil {
		if lost, err, handled := f(ids); handled {
			return lost, err
		}
	}
	return h.Store.Renew(co, worker, lease, ids)
}

// TestCrashReRunsStep: a worker that dies after a step and before its
// checkpoint is committed (its commit never reaches the store) leaves the
// task leased; once the lease expires the next worker resumes it from the
// last committed snapshot: the step runs again with the same step key,
// and the total computed through a pointer is right.
func TestCrashReRunsStep(t *testing.T) {
	st := recordSteps(t)
	dir := openDir(t, t.TempDir())
	crashed := make(chan struct{})
	h := &hookStore{Store: dir}
	h.commit = func(co *stackful.Co, worker string, c *durable.Commit) (bool, error) {
		if c.ID == "c" && c.Seq == 2 {
			h.commit = nil
			close(crashed)
			return true, fmt.Errorf("crashed: %w", durable.ErrLeaseLost) // the worker's state is gone
		}
		return false, nil
	}
	start(t, dir, "c", testwf.NewCounterFrame("c", 5))
	r1 := durable.NewRunner(h, durable.Options{Worker: "w1", Lease: 400 * time.Millisecond, Logf: t.Logf})
	errc := make(chan error, 1)
	go func() { errc <- r1.Run(context.Background()) }()
	<-crashed
	r1.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if in := get(t, dir, "c"); in.Owner != "w1" || in.Seq != 2 || in.State != durable.Running {
		t.Fatalf("after the crash: %+v, want still leased by w1 at seq 2", in)
	}
	startRunner(t, dir, durable.Options{Worker: "w2", Poll: 20 * time.Millisecond})
	in := await(t, dir, "c")
	if in.State != durable.Done || string(in.Result) != "15" {
		t.Errorf("ended as %+v, want Done with 15", in)
	}
	if got, want := st.of("c"), keys("c", 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q (step 2 twice, with one key)", got, want)
	}
}

// TestFarSleep: a task sleeping longer than SleepInMemory is committed and
// leaves memory (its lease released); it wakes when due, not before.
func TestFarSleep(t *testing.T) {
	st := recordSteps(t)
	s := openDir(t, t.TempDir())
	r := startRunner(t, s, durable.Options{SleepInMemory: 50 * time.Millisecond, Poll: 10 * time.Millisecond})
	begin := time.Now()
	start(t, s, "s", testwf.NewSleeperFrame("s", 1500*time.Millisecond))
	eventually(t, "the sleeper dropped", func() bool { return r.Stats().Dropped == 1 })
	if in := get(t, s, "s"); in.State != durable.Sleeping || in.Owner != "" || in.Due.Before(begin.Add(1500*time.Millisecond)) {
		t.Errorf("the sleeper in the store: %+v", in)
	}
	do(t, func(co *stackful.Co) error {
		for i := range 200 {
			id := durable.ID(fmt.Sprint("far", i))
			if err := durable.Start(co, s, id, testwf.NewSleeperFrame(id, time.Hour)); err != nil {
				return err
			}
		}
		return nil
	})
	eventually(t, "201 sleepers dropped", func() bool { return r.Stats().Dropped == 201 })
	if st := r.Stats(); st.InMemory != 0 || time.Since(begin) < 1500*time.Millisecond && st.Done != 0 {
		t.Errorf("stats while they sleep: %+v", st)
	}
	in := await(t, s, "s")
	if took := time.Since(begin); took < 1500*time.Millisecond || in.State != durable.Done || string(in.Result) != "woke" {
		t.Errorf("after %v: %+v", took, in)
	}
	if got := st.of("s"); len(got) != 2 {
		t.Errorf("steps %q", got)
	}
	if st := r.Stats(); st.InMemory != 0 || st.Done != 1 {
		t.Errorf("stats: %+v", st)
	}
}

// TestSleepInMemory: a short sleep keeps the task (and its lease) and is
// a checkpoint with its due time.
func TestSleepInMemory(t *testing.T) {
	s := openDir(t, t.TempDir())
	r := startRunner(t, s, durable.Options{})
	start(t, s, "s", testwf.NewSleeperFrame("s", 300*time.Millisecond))
	eventually(t, "the sleeper's checkpoint", func() bool { return get(t, s, "s").State == durable.Sleeping })
	if in := get(t, s, "s"); in.Owner != r.Worker() || r.Stats().InMemory != 1 {
		t.Errorf("a short sleeper: %+v, %d in memory", in, r.Stats().InMemory)
	}
	if in := await(t, s, "s"); in.State != durable.Done || r.Stats().Dropped != 0 {
		t.Errorf("%+v, %+v", in, r.Stats())
	}
}

// TestSignals: a signal sent before the task waits and one sent while it
// waits (as a record, out of memory) are received in order, once each.
func TestSignals(t *testing.T) {
	st := recordSteps(t)
	s := openDir(t, t.TempDir())
	start(t, s, "a", testwf.NewApproverFrame("a", "ok", 2))
	do(t, func(co *stackful.Co) error { return durable.Send(co, s, "a", "ok", []byte("first")) })
	r := startRunner(t, s, durable.Options{Poll: 10 * time.Millisecond})
	eventually(t, "the task waits", func() bool {
		in := get(t, s, "a")
		return in.State == durable.Waiting && in.Owner == ""
	})
	if in := get(t, s, "a"); in.Signal != "ok" || in.Pending != 0 || r.Stats().InMemory != 0 {
		t.Errorf("waiting: %+v, %d in memory", in, r.Stats().InMemory)
	}
	do(t, func(co *stackful.Co) error { return durable.Send(co, s, "a", "ok", []byte("second")) })
	in := await(t, s, "a")
	if in.State != durable.Done || string(in.Result) != "first,second" || in.Pending != 0 {
		t.Errorf("ended as %+v", in)
	}
	if got := st.of("a"); len(got) != 2 {
		t.Errorf("steps %q", got)
	}
	err := durable.Do(func(co *stackful.Co) error { return durable.Send(co, s, "a", "ok", nil) })
	if !errors.Is(err, durable.ErrFinished) {
		t.Errorf("Send to a Done task: %v", err)
	}
}

// TestSignalConsumedOnce: a step that received a signal and was lost in a
// crash receives it again when it re-runs; the signal is consumed once.
func TestSignalConsumedOnce(t *testing.T) {
	st := recordSteps(t)
	dir := openDir(t, t.TempDir())
	h := &hookStore{Store: dir}
	crashed := false
	h.commit = func(co *stackful.Co, worker string, c *durable.Commit) (bool, error) {
		if !crashed && len(c.Consumed) > 0 {
			crashed = true
			return true, durable.ErrLeaseLost
		}
		return false, nil
	}
	start(t, dir, "a", testwf.NewApproverFrame("a", "ok", 2))
	do(t, func(co *stackful.Co) error {
		for _, v := range []string{"x", "y", "z"} {
			if err := durable.Send(co, dir, "a", "ok", []byte(v)); err != nil {
				return err
			}
		}
		return nil
	})
	startRunner(t, h, durable.Options{Lease: 300 * time.Millisecond, Poll: 10 * time.Millisecond})
	in := await(t, dir, "a")
	if in.State != durable.Done || string(in.Result) != "x,y" {
		t.Errorf("ended as %+v, want x,y", in)
	}
	if got, want := st.of("a"), keys("a", 0, 0, 0, 0, 1, 1); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q: the first twice with one key", got, want)
	}
}

// TestCommitLeaseLost: a commit refused because another worker took the
// lease cancels the task locally: it runs no further step here.
func TestCommitLeaseLost(t *testing.T) {
	st := recordSteps(t)
	dir := openDir(t, t.TempDir())
	h := &hookStore{Store: dir}
	h.commit = func(co *stackful.Co, worker string, c *durable.Commit) (bool, error) {
		if c.ID == "c" && c.Seq == 1 {
			// Another worker takes the task over.
			dir.Release(co, worker, []durable.ID{"c"})
			if cs, err := dir.Claim(co, "thief", time.Hour, 10); err != nil || len(cs) != 1 {
				t.Errorf("thief's claim: %v %v", cs, err)
			}
		}
		return false, nil
	}
	start(t, dir, "c", testwf.NewCounterFrame("c", 5))
	r := startRunner(t, h, durable.Options{})
	eventually(t, "the lease lost", func() bool { return r.Stats().LeaseLost == 1 && r.Stats().InMemory == 0 })
	time.Sleep(50 * time.Millisecond)
	if got, want := st.of("c"), keys("c", 0, 0, 1, 1); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q: none after the lease was lost", got, want)
	}
	if in := get(t, dir, "c"); in.Owner != "thief" || in.Seq != 1 {
		t.Errorf("the task: %+v", in)
	}
	// The runner goes on with other tasks.
	start(t, dir, "d", testwf.NewCounterFrame("d", 2))
	if in := await(t, dir, "d"); in.State != durable.Done {
		t.Errorf("another task: %+v", in)
	}
}

// TestRenewLost: a renewal that reports the lease lost, or that fails
// until the lease runs out, cancels the task locally.
func TestRenewLost(t *testing.T) {
	for _, c := range []struct {
		name  string
		renew func(ids []durable.ID) ([]durable.ID, error, bool)
	}{
		{"lost", func(ids []durable.ID) ([]durable.ID, error, bool) { return ids, nil, true }},
		{"failing", func(ids []durable.ID) ([]durable.ID, error, bool) { return nil, errors.New("store down"), true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := recordSteps(t)
			dir := openDir(t, t.TempDir())
			h := &hookStore{Store: dir, renew: c.renew}
			start(t, dir, "s", testwf.NewSleeperFrame("s", 3*time.Second))
			begin := time.Now()
			r := startRunner(t, h, durable.Options{Lease: 300 * time.Millisecond, SleepInMemory: time.Hour})
			eventually(t, "the task dropped", func() bool { return r.Stats().Claimed == 1 && r.Stats().InMemory == 0 })
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("dropped after %v, lease 300ms", took)
			}
			if got := st.of("s"); len(got) != 1 {
				t.Errorf("steps %q, want only the one before the sleep", got)
			}
		})
	}
}

// TestBadSnapshots: a snapshot that is not one, or whose function changed,
// is parked with the error; the worker goes on.
func TestBadSnapshots(t *testing.T) {
	s := openDir(t, t.TempDir())
	good, err := stackless.SnapshotFrame(testwf.NewCounterFrame("changed", 2))
	if err != nil {
		t.Fatal(err)
	}
	// The fingerprint follows the frame's name: change it, fix the CRC.
	name := stackless.DurableName(testwf.NewCounterFrame("", 0))
	i := strings.Index(string(good), name) + len(name)
	changed := slices.Clone(good)
	changed[i] ^= 0xff
	body := changed[:len(changed)-4]
	binary.LittleEndian.PutUint32(changed[len(changed)-4:], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	do(t, func(co *stackful.Co) error {
		for id, b := range map[durable.ID][]byte{"garbage": []byte("not a snapshot at all"), "changed": changed, "truncated": good[:len(good)/2]} {
			if err := s.Create(co, id, name, b); err != nil {
				return err
			}
		}
		return nil
	})
	r := startRunner(t, s, durable.Options{})
	for id, want := range map[durable.ID]string{"garbage": "bad magic", "changed": "function changed", "truncated": "snapshot"} {
		in := await(t, s, id)
		if in.State != durable.Parked || !strings.Contains(in.Error, want) {
			t.Errorf("%s: %+v, want parked with %q", id, in, want)
		}
	}
	start(t, s, "good", testwf.NewCounterFrame("good", 3))
	if in := await(t, s, "good"); in.State != durable.Done || string(in.Result) != "6" {
		t.Errorf("a good task after the bad ones: %+v", in)
	}
	if st := r.Stats(); st.Parked != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestPanicFailed: a task that panics is recorded as Failed with the value.
func TestPanicFailed(t *testing.T) {
	s := openDir(t, t.TempDir())
	startRunner(t, s, durable.Options{})
	start(t, s, "p", testwf.NewPanickerFrame("p", "boom"))
	if in := await(t, s, "p"); in.State != durable.Failed || in.Error != "panic: boom" || in.Seq != 2 {
		t.Errorf("%+v, want Failed with panic: boom at seq 2", in)
	}
}

// TestCloseReleases: closing a runner releases the leases of the tasks it
// holds; another runner resumes them at once.
func TestCloseReleases(t *testing.T) {
	s := openDir(t, t.TempDir())
	r := durable.NewRunner(s, durable.Options{Worker: "w1", SleepInMemory: time.Hour, Lease: time.Hour})
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background()) }()
	start(t, s, "s", testwf.NewSleeperFrame("s", 500*time.Millisecond))
	eventually(t, "the sleeper's checkpoint", func() bool { return get(t, s, "s").State == durable.Sleeping })
	r.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if in := get(t, s, "s"); in.Owner != "" || in.State != durable.Sleeping {
		t.Errorf("after Close: %+v", in)
	}
	startRunner(t, s, durable.Options{Worker: "w2", Poll: 10 * time.Millisecond})
	if in := await(t, s, "s"); in.State != durable.Done {
		t.Errorf("%+v", in)
	}
}

// TestCloseDuringCommit: a runner stopped while a checkpoint's commit is
// in flight releases the task's lease, also when the commit's return and
// the stop reach the loop in one iteration, the committer running before
// the runner's control coroutine (the loop is kept busy by another task's
// step while both are submitted).
func TestCloseDuringCommit(t *testing.T) {
	dir := openDir(t, t.TempDir())
	inCommit, proceed := make(chan struct{}), make(chan struct{})
	loopBusy, unblock := make(chan struct{}), make(chan struct{})
	h := &hookStore{Store: dir}
	h.commit = func(co *stackful.Co, worker string, c *durable.Commit) (bool, error) {
		if c.ID != "s" || c.State != durable.Sleeping {
			return false, nil
		}
		err := dir.Commit(co, worker, time.Hour, c)
		co.Offload(func() { close(inCommit); <-proceed })
		return true, err
	}
	busy := false
	testwf.Step = func(id durable.ID, key string, i int) {
		if id != "b" || busy {
			return
		}
		select {
		case <-inCommit:
			busy = true
			close(loopBusy)
			<-unblock // blocks the loop goroutine: a busy step
		default:
		}
	}
	t.Cleanup(func() { testwf.Step = func(durable.ID, string, int) {} })
	start(t, dir, "s", testwf.NewSleeperFrame("s", time.Hour))
	start(t, dir, "b", testwf.NewCounterFrame("b", 1_000_000))
	// Poll and Lease long: no timer wakes the control coroutine.
	r := durable.NewRunner(h, durable.Options{Worker: "w1", SleepInMemory: time.Hour, Lease: time.Hour, Poll: time.Hour, Logf: t.Logf})
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background()) }()
	<-loopBusy
	close(proceed) // the commit's completion is submitted to the busy loop
	time.Sleep(20 * time.Millisecond)
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }() // then the stop
	time.Sleep(20 * time.Millisecond)
	close(unblock)
	<-closed
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	for _, id := range []durable.ID{"s", "b"} {
		if in := get(t, dir, id); in.Owner != "" {
			t.Errorf("%s after Close: %+v, want its lease released", id, in)
		}
	}
	if in := get(t, dir, "s"); in.State != durable.Sleeping || in.Seq != 1 {
		t.Errorf("s after Close: %+v, want its checkpoint committed", in)
	}
}

// TestClaimedTwiceInProcess: two runners of one process share a store;
// the first one's loop is blocked (a step that blocks in Go) until its
// lease on the task has expired, so the second runner claims the task
// while the first still has it in memory: the claim is left to the running
// copy and its lease released; that copy's next commit finds the lease
// lost and drops the task, which is claimed afresh and completes from its
// last checkpoint. Nothing crashes.
func TestClaimedTwiceInProcess(t *testing.T) {
	st := recordSteps(t)
	blocked := false
	record := testwf.Step
	testwf.Step = func(id durable.ID, key string, i int) {
		record(id, key, i)
		if i == 1 && !blocked {
			blocked = true
			time.Sleep(900 * time.Millisecond) // three leases, the loop blocked
		}
	}
	dir := openDir(t, t.TempDir())
	start(t, dir, "c", testwf.NewCounterFrame("c", 3))
	r1 := startRunner(t, dir, durable.Options{Worker: "w1", Lease: 300 * time.Millisecond})
	eventually(t, "w1 runs the task", func() bool { return get(t, dir, "c").Seq == 1 })
	r2 := startRunner(t, dir, durable.Options{Worker: "w2", Lease: 300 * time.Millisecond, Poll: 10 * time.Millisecond})
	in := await(t, dir, "c")
	if in.State != durable.Done || string(in.Result) != "6" {
		t.Errorf("ended as %+v", in)
	}
	if got, want := st.of("c"), keys("c", 0, 0, 1, 1, 1, 1, 2, 2); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	s1, s2 := r1.Stats(), r2.Stats()
	if s2.Duplicates == 0 || s1.LeaseLost == 0 {
		t.Errorf("w1 %+v; w2 %+v: want a duplicate claim by w2 and the lease lost by w1", s1, s2)
	}
}

// TestPlainYield: a plain Yield in a durable task is a checkpoint after
// which the task goes on (nothing else would resume it).
func TestPlainYield(t *testing.T) {
	st := recordSteps(t)
	s := openDir(t, t.TempDir())
	r := startRunner(t, s, durable.Options{})
	start(t, s, "y", testwf.NewYielderFrame("y"))
	if in := await(t, s, "y"); in.State != durable.Done || string(in.Result) != "yielded" || in.Seq != 3 {
		t.Errorf("%+v, want Done at seq 3", in)
	}
	if got, want := st.of("y"), keys("y", 0, 1); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	eventually(t, "stats", func() bool { return r.Stats().Checkpoints == 2 })
}

// TestSlowCommitKeepsTask: a task held for a commit that takes longer than
// its lease (renewals failing meanwhile) is not dropped: it runs nothing
// until the commit returns, which renews the lease; it then goes on
// without re-running a step.
func TestSlowCommitKeepsTask(t *testing.T) {
	st := recordSteps(t)
	dir := openDir(t, t.TempDir())
	h := &hookStore{Store: dir, renew: func(ids []durable.ID) ([]durable.ID, error, bool) { return nil, errors.New("store slow"), true }}
	h.commit = func(co *stackful.Co, worker string, c *durable.Commit) (bool, error) {
		if c.Seq == 1 {
			co.Sleep(700 * time.Millisecond) // more than two leases
		}
		return false, nil
	}
	start(t, dir, "c", testwf.NewCounterFrame("c", 3))
	r := startRunner(t, h, durable.Options{Lease: 300 * time.Millisecond})
	if in := await(t, dir, "c"); in.State != durable.Done || string(in.Result) != "6" {
		t.Errorf("ended as %+v", in)
	}
	if got, want := st.of("c"), keys("c", 0, 0, 1, 1, 2, 2); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q: none re-run", got, want)
	}
	// The runner's own claims may take the task again once its lease
	// has expired in the store (a duplicate, left to the running copy).
	if s := r.Stats(); s.LeaseLost != 0 || s.Claimed != 1+s.Duplicates {
		t.Errorf("stats %+v: want no lease lost, no claim but duplicates after the first", s)
	}
}

// TestManyTasks: tasks of every kind on a runner of two loops whose memory
// holds fewer tasks than there are: every task completes once, with its
// result, and nothing is left in memory or leased.
func TestManyTasks(t *testing.T) {
	s := openDir(t, t.TempDir())
	const counters, approvers, sleepers = 200, 60, 60
	want := map[durable.ID]string{}
	do(t, func(co *stackful.Co) error {
		for i := range counters {
			id := durable.ID(fmt.Sprint("c", i))
			want[id] = fmt.Sprint((i%6 + 1) * (i%6 + 2) / 2)
			if err := durable.Start(co, s, id, testwf.NewCounterFrame(id, i%6+1)); err != nil {
				return err
			}
		}
		for i := range approvers {
			id := durable.ID(fmt.Sprint("a", i))
			want[id] = fmt.Sprintf("%d-1,%d-2", i, i)
			if err := durable.Start(co, s, id, testwf.NewApproverFrame(id, "go", 2)); err != nil {
				return err
			}
		}
		for i := range sleepers {
			id := durable.ID(fmt.Sprint("s", i))
			want[id] = "woke"
			if err := durable.Start(co, s, id, testwf.NewSleeperFrame(id, time.Duration(i%3)*150*time.Millisecond)); err != nil {
				return err
			}
		}
		return nil
	})
	r := startRunner(t, s, durable.Options{Loops: 2, MaxTasks: 40, ClaimBatch: 8, SleepInMemory: 100 * time.Millisecond, Poll: 5 * time.Millisecond})
	do(t, func(co *stackful.Co) error {
		for n := 1; n <= 2; n++ {
			for i := range approvers {
				if err := durable.Send(co, s, durable.ID(fmt.Sprint("a", i)), "go", fmt.Appendf(nil, "%d-%d", i, n)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	for id, res := range want {
		if in := await(t, s, id); in.State != durable.Done || string(in.Result) != res || in.Owner != "" {
			t.Errorf("%s: %+v, want done with %q", id, in, res)
		}
	}
	eventually(t, "nothing in memory", func() bool { return r.Stats().InMemory == 0 })
	if st := r.Stats(); st.Done != counters+approvers+sleepers || st.LeaseLost != 0 || st.StoreErrors != 0 || st.Duplicates != 0 {
		t.Errorf("stats %+v", st)
	}
}

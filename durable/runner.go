package durable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// NewID returns a random task ID: 32 hexadecimal digits from crypto/rand.
func NewID() ID {
	var b [16]byte
	rand.Read(b[:])
	return ID(hex.EncodeToString(b[:]))
}

// Start records in s a new task that runs f from its entry, due now. f is
// the frame of a durable function (the generated New...Frame of a function
// marked //co:stackless durable), given its arguments, the task's ID among
// them if the function needs it. It fails with an error wrapping
// [ErrExists] if s holds id already.
func Start(co *stackful.Co, s Store, id ID, f stackless.Frame) error {
	name := stackless.DurableName(f)
	if name == "" {
		return fmt.Errorf("durable: Start %q: frame %T is not durable (mark its function //co:stackless durable)", id, f)
	}
	data, err := stackless.SnapshotFrame(f)
	if err != nil {
		return fmt.Errorf("durable: Start %q: %w", id, err)
	}
	return s.Create(co, id, name, data)
}

// Send queues the signal (name, value) for task id in s; the task receives
// it with [Receive]. It fails with an error wrapping [ErrNotFound] or
// [ErrFinished] if the task does not exist or has finished.
func Send(co *stackful.Co, s Store, id ID, name string, value []byte) error {
	_, err := s.Signal(co, id, name, value)
	return err
}

// Await waits until task id has ended (Done, Failed or Parked), asking s
// every poll, and returns its record.
func Await(co *stackful.Co, s Store, id ID, poll time.Duration) (Info, error) {
	for {
		in, err := s.Get(co, id)
		if err != nil || in.State.Terminal() {
			return in, err
		}
		co.Sleep(poll)
	}
}

// Do runs fn on the main coroutine of a new env on a new loop, closed when
// fn returns, and returns fn's error: how a program that is not in a
// coroutine calls [Start], [Send], [Await] or a store's methods.
func Do(fn func(co *stackful.Co) error) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return fmt.Errorf("durable: Do: %w", err)
	}
	defer env.Close()
	return fn(env.Main())
}

// Options configure a [Runner]. The zero value of each field selects its
// default.
type Options struct {
	// Worker names the runner in the store: unique among the live workers
	// of a store (commits are fenced by it). Default: host name, process
	// ID and 8 random hex digits.
	Worker string
	// Lease is how long a claim or a renewal holds a task (default 10 s).
	// A killed worker's tasks are resumed elsewhere after at most Lease +
	// Poll; a worker that cannot renew drops its tasks Lease/10 before
	// their leases expire.
	Lease time.Duration
	// MaxTasks bounds the tasks in the runner's memory, all loops
	// together (default 10,000); each loop takes its share.
	MaxTasks int
	// Loops is the number of event loops, each on its own goroutine
	// (default 1).
	Loops int
	// SleepInMemory: a Sleep of at most this keeps the task in memory
	// and holds its lease; a longer one commits it and drops it
	// (default 1 s).
	SleepInMemory time.Duration
	// Poll is how often an idle loop asks the store for due tasks
	// (default 200 ms).
	Poll time.Duration
	// ClaimBatch bounds the tasks one Claim takes (default 256).
	ClaimBatch int
	// Committers is the number of commits each loop has in flight at
	// most (default 32).
	Committers int
	// Logf reports what the runner cannot return: store errors, tasks
	// parked or failed. Default: log.Printf.
	Logf func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.Worker == "" {
		host, _ := os.Hostname()
		var b [4]byte
		rand.Read(b[:])
		o.Worker = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	if o.Lease <= 0 {
		o.Lease = 10 * time.Second
	}
	if o.Loops <= 0 {
		o.Loops = 1
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = 10000
	}
	o.MaxTasks = max(o.MaxTasks, o.Loops)
	if o.SleepInMemory <= 0 {
		o.SleepInMemory = time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	if o.ClaimBatch <= 0 {
		o.ClaimBatch = 256
	}
	if o.Committers <= 0 {
		o.Committers = 32
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
}

// Stats counts what a runner did; [Runner.Stats] returns them.
type Stats struct {
	Claimed     int64 // tasks claimed
	Checkpoints int64 // commits of a task that goes on or was dropped (Running, Sleeping, Waiting)
	Done        int64 // tasks that returned
	Failed      int64 // tasks that panicked
	Parked      int64 // tasks whose snapshot could not be restored
	Dropped     int64 // tasks committed and dropped from memory (far Sleep, Receive)
	LeaseLost   int64 // tasks canceled because another worker holds them
	StoreErrors int64 // failed store calls (retried, or the task dropped)
	InMemory    int64 // tasks in memory now
}

// A Runner claims due tasks from a store and runs them on its loops,
// committing their checkpoints (see the package documentation).
type Runner struct {
	s     Store
	o     Options
	stats struct {
		claimed, checkpoints, done, failed, parked, dropped, leaseLost, storeErrors, inMemory atomic.Int64
	}
	mu      sync.Mutex
	loops   []*loopState
	running bool
	stopped bool
	done    chan struct{} // closed when Run returns
}

// NewRunner returns a runner of the tasks of s; [Runner.Run] runs it.
func NewRunner(s Store, o Options) *Runner {
	o.defaults()
	return &Runner{s: s, o: o, done: make(chan struct{})}
}

// Worker returns the runner's name in the store.
func (r *Runner) Worker() string { return r.o.Worker }

// Stats returns the runner's counters.
func (r *Runner) Stats() Stats {
	return Stats{
		Claimed: r.stats.claimed.Load(), Checkpoints: r.stats.checkpoints.Load(), Done: r.stats.done.Load(),
		Failed: r.stats.failed.Load(), Parked: r.stats.parked.Load(), Dropped: r.stats.dropped.Load(),
		LeaseLost: r.stats.leaseLost.Load(), StoreErrors: r.stats.storeErrors.Load(), InMemory: r.stats.inMemory.Load(),
	}
}

// Run runs the runner until ctx is done or [Runner.Close] is called, then
// stops: the tasks in memory are dropped (their leases released, their
// last checkpoints left for the next claim) and Run returns nil. It
// returns an error if a loop fails. A runner runs once.
func (r *Runner) Run(ctx context.Context) error {
	r.mu.Lock()
	if r.running || r.stopped {
		r.mu.Unlock()
		return errors.New("durable: Runner.Run called twice")
	}
	r.running = true
	r.mu.Unlock()
	defer close(r.done)
	per := r.o.MaxTasks / r.o.Loops
	errs := make(chan error, r.o.Loops)
	ready := make(chan *loopState, r.o.Loops)
	for i := range r.o.Loops {
		go func() { errs <- r.runLoop(i, per, ready) }()
	}
	var started []*loopState
	for range r.o.Loops {
		if ls := <-ready; ls != nil {
			started = append(started, ls)
		}
	}
	r.mu.Lock()
	r.loops = started
	stopped := r.stopped
	r.mu.Unlock()
	if stopped || len(started) < r.o.Loops {
		r.stop()
	}
	stopCtx := context.AfterFunc(ctx, r.stop)
	defer stopCtx()
	var first error
	for range r.o.Loops {
		if err := <-errs; err != nil && first == nil {
			first = err
			r.stop() // the other loops stop too
		}
	}
	return first
}

// Close stops the runner as the end of Run's context does, and waits for
// Run to return. It returns nil; closing twice, or a runner that never
// ran, is allowed.
func (r *Runner) Close() error {
	r.mu.Lock()
	running := r.running
	r.mu.Unlock()
	r.stop()
	if running {
		<-r.done
	}
	return nil
}

// stop asks every loop to stop; any goroutine may call it.
func (r *Runner) stop() {
	r.mu.Lock()
	r.stopped = true
	loops := r.loops
	r.mu.Unlock()
	for _, ls := range loops {
		ls.l.Submit(func() {
			if !ls.stopping {
				ls.stopping = true
				ls.wake.Broadcast()
				ls.work.Broadcast()
			}
		})
	}
}

// loopState is one loop's; its fields belong to the loop's goroutine.
type loopState struct {
	r        *Runner
	l        *loop.Loop
	env      *stackful.Env
	capacity int
	recs     map[ID]*rec // the tasks in memory on this loop
	queue    []*job      // commits to make
	work     loop.Cond   // committers wait here for the queue
	wake     loop.Cond   // the control coroutine waits here (capacity freed, stop)
	inflight int         // commits being made
	stopping bool
	held     []ID // stopping: the leases to release
	finished bool // the control coroutine has dropped everything: Run returns
	exited   int  // committers that have returned
}

// runLoop runs loop i until the runner stops.
func (r *Runner) runLoop(i, capacity int, ready chan<- *loopState) (err error) {
	l, err := loop.New()
	if err != nil {
		ready <- nil
		return fmt.Errorf("durable: runner loop %d: %w", i, err)
	}
	env := stackful.NewEnvOn(l) // on this goroutine, which runs the loop
	ls := &loopState{r: r, l: l, env: env, capacity: capacity, recs: map[ID]*rec{}}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("durable: runner loop %d: panic: %v", i, p)
		}
		for _, rc := range ls.recs {
			rc.forget()
		}
		env.Close()
		l.Close()
	}()
	for range r.o.Committers {
		env.Create(ls.committer, nil).Resume()
	}
	env.Create(ls.control, nil).Resume()
	ready <- ls
	return env.Run(func() bool { return ls.finished && ls.exited == r.o.Committers })
}

// job is one commit to make.
type job struct {
	rec  *rec
	c    Commit
	kind uint8
}

const (
	jobGoOn  = iota // a checkpoint of a held task: unhold it once committed
	jobDrop         // the task has left memory: the commit releases its lease
	jobFinal        // Done, Failed, Parked
)

// rec is a task in a runner's memory; it is the task's stackless observer.
type rec struct {
	id         ID
	ls         *loopState
	task       *stackless.Task
	seq        int64    // of the last commit (or of the claim)
	signals    []Signal // claimed and not taken
	consumed   []int64  // taken since the last commit
	waitFor    string   // set by Receive before it yields
	receiving  bool
	result     []byte
	leaseUntil time.Time // a margin before the lease expires
	gone       bool      // left memory (dropped, finished, lost)
}

// The process's tasks in memory, by ID, for Receive, StepKey and SetResult.
var table struct {
	sync.Mutex
	m map[ID]*rec
}

func register(rc *rec) {
	table.Lock()
	defer table.Unlock()
	if table.m == nil {
		table.m = map[ID]*rec{}
	}
	if _, ok := table.m[rc.id]; ok {
		panic(fmt.Sprintf("durable: task %q claimed while it runs in this process already: two runners of one process share a store, or leases expire while their tasks run (a loop blocked longer than the lease)", rc.id))
	}
	table.m[rc.id] = rc
}

// forget takes rc out of memory: the table, its loop's records.
func (rc *rec) forget() {
	if rc.gone {
		return
	}
	rc.gone = true
	table.Lock()
	if table.m[rc.id] == rc {
		delete(table.m, rc.id)
	}
	table.Unlock()
	delete(rc.ls.recs, rc.id)
	rc.ls.r.stats.inMemory.Add(-1)
	rc.ls.wake.Signal()
}

// drop discards rc's task and forgets it.
func (rc *rec) drop() {
	if rc.task != nil {
		stackless.Discard(rc.task)
	}
	rc.forget()
}

// release drops rc's task when the runner stops, and has its lease
// released.
func (rc *rec) release() {
	if !rc.gone {
		rc.ls.held = append(rc.ls.held, rc.id)
	}
	rc.drop()
}

// current returns the record of task id, which must be running in this
// process; op names the caller for the panic.
func current(op string, id ID) *rec {
	table.Lock()
	rc := table.m[id]
	table.Unlock()
	if rc == nil {
		panic(fmt.Sprintf("durable: %s of task %q, which is not running in this process (call it from the task's own code)", op, id))
	}
	return rc
}

// StepKey returns a key of the step task id is in: its ID and the sequence
// number of the checkpoint the step started from. A step re-run after a
// crash has the same key; any other step of any task has another one. Call
// it from the task's own code.
func StepKey(id ID) string {
	return fmt.Sprintf("%s/%d", id, current("StepKey", id).seq)
}

// SetResult records the result of task id, committed with its end (Done).
// Call it from the task's own code after its last checkpoint: a result
// set before a checkpoint is lost if the task is resumed from it.
func SetResult(id ID, value []byte) {
	current("SetResult", id).result = append([]byte(nil), value...)
}

// takeSignal takes the first claimed signal named name of task id.
func takeSignal(id ID, name string) ([]byte, bool) {
	rc := current("Receive", id)
	rc.waitFor, rc.receiving = "", false
	for i, sg := range rc.signals {
		if sg.Name == name {
			rc.signals = append(rc.signals[:i], rc.signals[i+1:]...)
			rc.consumed = append(rc.consumed, sg.Seq)
			return sg.Value, true
		}
	}
	return nil, false
}

// waitSignal records that task id is about to wait for a signal named name.
func waitSignal(id ID, name string) {
	rc := current("Receive", id)
	rc.waitFor, rc.receiving = name, true
}

// Suspended implements stackless.Observer: the task is at a checkpoint.
func (rc *rec) Suspended(t *stackless.Task) {
	ls := rc.ls
	r := ls.r
	if ls.stopping {
		rc.release()
		return
	}
	receiving, name := rc.receiving, rc.waitFor
	rc.receiving, rc.waitFor = false, ""
	data, err := stackless.Snapshot(t)
	if err != nil {
		if !receiving {
			// Not a checkpoint (a frame that is not durable is
			// suspended): the task goes on, to its next checkpoint.
			r.o.Logf("durable: task %q: no checkpoint here: %v", rc.id, err)
			return
		}
		rc.finish(Failed, fmt.Sprintf("durable: Receive cannot checkpoint: %v", err))
		stackless.Discard(t)
		return
	}
	c := Commit{ID: rc.id, Seq: rc.seq, Snapshot: data, State: Running}
	deadline, sleeping := stackless.SleepDeadline(t)
	switch {
	case receiving:
		c.State, c.Signal, c.Release = Waiting, name, true
	case sleeping:
		c.State, c.Due = Sleeping, deadline
		c.Release = time.Until(deadline) > r.o.SleepInMemory
	}
	c.Consumed, rc.consumed = rc.consumed, nil
	if c.Release {
		// Out of memory first: the commit makes it claimable, maybe by
		// another loop of this runner.
		rc.drop()
		ls.push(&job{rec: rc, c: c, kind: jobDrop})
		return
	}
	stackless.Hold(t)
	ls.push(&job{rec: rc, c: c, kind: jobGoOn})
}

// Finished implements stackless.Observer: the task has returned or
// panicked.
func (rc *rec) Finished(t *stackless.Task) {
	if stackless.Ended(t) {
		rc.forget() // its loop closed: the runner is stopping
		return
	}
	if v, ok := t.Panicked(); ok {
		rc.finish(Failed, fmt.Sprint("panic: ", v))
		return
	}
	rc.finish(Done, "")
}

// finish forgets rc and commits its end.
func (rc *rec) finish(state State, msg string) {
	c := Commit{ID: rc.id, Seq: rc.seq, State: state, Error: msg, Consumed: rc.consumed}
	if state == Done {
		c.Result = rc.result
	}
	rc.forget()
	rc.ls.push(&job{rec: rc, c: c, kind: jobFinal})
}

func (ls *loopState) push(j *job) {
	ls.queue = append(ls.queue, j)
	ls.work.Signal()
}

// committer makes the queued commits, one at a time.
func (ls *loopState) committer(co *stackful.Co) {
	defer func() { ls.exited++ }()
	for {
		for len(ls.queue) == 0 {
			if ls.finished {
				return
			}
			co.Wait(&ls.work, -1)
		}
		j := ls.queue[0]
		ls.queue[0] = nil
		ls.queue = ls.queue[1:]
		ls.inflight++
		ls.commit(co, j)
		ls.inflight--
		if ls.stopping {
			ls.wake.Signal()
		}
	}
}

// commit makes j's commit, retrying a failed store call until the lease
// runs out.
func (ls *loopState) commit(co *stackful.Co, j *job) {
	r := ls.r
	rc := j.rec
	for {
		t0 := time.Now()
		err := r.s.Commit(co, r.o.Worker, r.o.Lease, &j.c)
		switch {
		case err == nil:
			rc.seq = j.c.Seq + 1
			rc.leaseUntil = t0.Add(r.o.Lease - r.o.Lease/10)
			switch {
			case j.kind == jobDrop:
				r.stats.checkpoints.Add(1)
				r.stats.dropped.Add(1)
			case j.kind == jobGoOn:
				r.stats.checkpoints.Add(1)
				if rc.gone {
					return // its lease was lost meanwhile
				}
				if ls.stopping {
					rc.release()
					return
				}
				stackless.Unhold(rc.task)
				rc.task.Resume() // a plain Yield goes on as after Gosched
			case j.c.State == Done:
				r.stats.done.Add(1)
			case j.c.State == Failed:
				r.stats.failed.Add(1)
				r.o.Logf("durable: task %q failed: %s", rc.id, j.c.Error)
			case j.c.State == Parked:
				r.stats.parked.Add(1)
				r.o.Logf("durable: task %q parked: %s", rc.id, j.c.Error)
			}
			return
		case errors.Is(err, ErrLeaseLost):
			r.stats.leaseLost.Add(1)
			rc.drop()
			return
		}
		r.stats.storeErrors.Add(1)
		if ls.stopping && j.kind == jobGoOn {
			rc.release()
			return
		}
		if time.Now().After(rc.leaseUntil) || ls.stopping {
			r.o.Logf("durable: task %q: commit failed, giving the task up to its lease: %v", rc.id, err)
			rc.drop()
			return
		}
		r.o.Logf("durable: task %q: commit failed, retrying: %v", rc.id, err)
		co.Sleep(min(r.o.Lease/20, time.Second))
		if rc.gone && j.kind == jobGoOn {
			return // dropped meanwhile (its lease was lost)
		}
	}
}

// control claims due tasks, renews the leases and stops the loop.
func (ls *loopState) control(co *stackful.Co) {
	r := ls.r
	nextRenew := time.Now().Add(r.o.Lease / 3)
	for !ls.stopping {
		if !time.Now().Before(nextRenew) {
			ls.renew(co)
			nextRenew = time.Now().Add(r.o.Lease / 3)
			continue
		}
		full := false
		if room := ls.capacity - len(ls.recs); room > 0 {
			full = ls.claim(co, min(room, r.o.ClaimBatch))
		}
		if ls.stopping {
			break
		}
		switch {
		case full:
			co.Gosched() // more may be due
		case len(ls.recs) >= ls.capacity:
			co.Wait(&ls.wake, max(time.Until(nextRenew), time.Millisecond))
		default:
			co.Wait(&ls.wake, max(min(r.o.Poll, time.Until(nextRenew)), time.Millisecond))
		}
	}
	// Stopping: the tasks in memory are dropped; their leases released
	// once the commits in flight have ended.
	for _, rc := range ls.recs {
		rc.release()
	}
	for len(ls.queue) > 0 || ls.inflight > 0 {
		co.Wait(&ls.wake, 100*time.Millisecond)
	}
	if len(ls.held) > 0 {
		if err := r.s.Release(co, r.o.Worker, ls.held); err != nil {
			r.o.Logf("durable: Release at stop: %v", err)
		}
	}
	ls.finished = true
	ls.work.Broadcast()
}

// claim claims up to n tasks and starts them; it reports whether it got n.
func (ls *loopState) claim(co *stackful.Co, n int) bool {
	r := ls.r
	t0 := time.Now()
	cs, err := r.s.Claim(co, r.o.Worker, r.o.Lease, n)
	if err != nil {
		r.stats.storeErrors.Add(1)
		r.o.Logf("durable: Claim: %v", err)
		return false
	}
	until := t0.Add(r.o.Lease - r.o.Lease/10)
	for _, c := range cs {
		r.stats.claimed.Add(1)
		rc := &rec{id: c.ID, ls: ls, seq: c.Seq, signals: c.Signals, leaseUntil: until}
		if ls.stopping {
			ls.held = append(ls.held, c.ID)
			continue
		}
		register(rc)
		ls.recs[c.ID] = rc
		r.stats.inMemory.Add(1)
		t, err := stackless.Restore(ls.l, c.Snapshot)
		if err != nil {
			rc.finish(Parked, err.Error())
			continue
		}
		rc.task = t
		stackless.Observe(t, rc)
		t.Resume() // restored in Receive's Yield: looks for its signal
	}
	return len(cs) == n
}

// renew renews the leases of the loop's tasks and drops those it lost.
func (ls *loopState) renew(co *stackful.Co) {
	r := ls.r
	if len(ls.recs) == 0 {
		return
	}
	ids := make([]ID, 0, len(ls.recs))
	for id := range ls.recs {
		ids = append(ids, id)
	}
	t0 := time.Now()
	lost, err := r.s.Renew(co, r.o.Worker, r.o.Lease, ids)
	if err != nil {
		r.stats.storeErrors.Add(1)
		r.o.Logf("durable: Renew: %v", err)
		now := time.Now()
		for _, id := range ids {
			if rc := ls.recs[id]; rc != nil && now.After(rc.leaseUntil) {
				rc.drop()
			}
		}
		return
	}
	until := t0.Add(r.o.Lease - r.o.Lease/10)
	for _, id := range ids {
		if rc := ls.recs[id]; rc != nil {
			rc.leaseUntil = until
		}
	}
	for _, id := range lost {
		if rc := ls.recs[id]; rc != nil {
			r.stats.leaseLost.Add(1)
			rc.drop()
		}
	}
}

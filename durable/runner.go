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
// coroutine calls [Start], [Send], [Await] or a store's methods. It runs
// that loop on the calling goroutine: do not call it from a coroutine
// (which has its co to pass).
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
	// ID and 8 random hex digits. A runner given a name takes back, when
	// it starts, the tasks its store still leases to that name (a
	// predecessor's, killed: see [WorkerReleaser]), so a worker restarted
	// under a stable name resumes its tasks at once rather than after
	// Lease.
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

	named bool // Worker was given, not made by defaults
}

func (o *Options) defaults() {
	o.named = o.Worker != ""
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
	LeaseLost   int64 // tasks dropped because another worker holds them, or their lease was not renewed in time
	StoreErrors int64 // failed store calls (retried, or the task dropped)
	InMemory    int64 // tasks in memory now
	Duplicates  int64 // tasks claimed while this process ran them already (left to the running copy)
}

// A Runner claims due tasks from a store and runs them on its loops,
// committing their checkpoints (see the package documentation).
type Runner struct {
	s     Store
	o     Options
	stats struct {
		claimed, checkpoints, done, failed, parked, dropped, leaseLost, storeErrors, inMemory, duplicates atomic.Int64
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
		Duplicates: r.stats.duplicates.Load(),
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
		return errors.New("durable: Runner.Run called twice, or after Close")
	}
	r.running = true
	r.mu.Unlock()
	defer close(r.done)
	r.releasePredecessor()
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

// releasePredecessor ends the leases the store still holds under the
// runner's given name (see [WorkerReleaser]) before any loop claims: they
// were a dead predecessor's, and the loops' first claims take the tasks.
// A failure is logged, not returned: the tasks then come back when their
// leases expire, as with any other dead worker's.
func (r *Runner) releasePredecessor() {
	wr, ok := r.s.(WorkerReleaser)
	if !ok || !r.o.named {
		return
	}
	var n int
	err := Do(func(co *stackful.Co) (err error) {
		n, err = wr.ReleaseWorker(co, r.o.Worker)
		return err
	})
	switch {
	case err != nil:
		r.o.Logf("durable: runner %s: ending the leases of a predecessor of the same name: %v (its tasks come back when the leases expire)", r.o.Worker, err)
	case n > 0:
		r.o.Logf("durable: runner %s: took back %d tasks leased to a predecessor of the same name", r.o.Worker, n)
	}
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
				ls.renewWake.Broadcast()
			}
		})
	}
}

// loopState is one loop's; its fields belong to the loop's goroutine.
type loopState struct {
	r           *Runner
	l           *loop.Loop
	env         *stackful.Env
	capacity    int
	recs        map[ID]*rec // the tasks in memory on this loop
	queue       []*job      // commits to make
	work        loop.Cond   // committers wait here for the queue
	wake        loop.Cond   // the control coroutine waits here (capacity freed, stop)
	renewWake   loop.Cond   // the renewer waits here (stop)
	renewerDone bool
	inflight    int // commits being made
	stopping    bool
	held        []ID // stopping: the leases to release
	finished    bool // the control coroutine has dropped everything: Run returns
	exited      int  // committers that have returned
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
	env.Create(ls.renewer, nil).Resume()
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
	committing bool      // held while its checkpoint's commit is in flight
	gone       bool      // left memory (dropped, finished, lost)
}

// table holds the process's tasks in memory (ID -> *rec), for Receive,
// StepKey and SetResult; a sync.Map, so that their lookups from task code
// take no lock.
var table sync.Map

// register enters rc in the table; if the process runs task rc.id
// already, it enters nothing and returns the worker name of the runner
// running it.
func register(rc *rec) (runningFor string, ok bool) {
	if old, loaded := table.LoadOrStore(rc.id, rc); loaded {
		return old.(*rec).ls.r.o.Worker, false
	}
	return "", true
}

// forget takes rc out of memory: the table, its loop's records.
func (rc *rec) forget() {
	if rc.gone {
		return
	}
	rc.gone = true
	table.CompareAndDelete(rc.id, rc)
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
	v, _ := table.Load(id)
	rc, _ := v.(*rec)
	if rc == nil {
		panic(fmt.Sprintf("durable: %s of task %q, which is not running in this process (call it from the task's own code)", op, id))
	}
	return rc
}

// StepKey returns a key of the step task id is in: its ID and the sequence
// number of the checkpoint the step started from. A step re-run after a
// crash has the same key; any other step of any task has another one. Call
// it from the task's own code.
//
// The key is the same on a re-run only if the re-run reaches the call from
// the same checkpoint: call it right after a checkpoint (Gosched, Sleep),
// before anything that reads state outside the task. [Receive] is not a
// checkpoint when the signal is already there (it was claimed with the
// task): a step that polls outside state, then receives, may reach
// StepKey from another checkpoint on a re-run. Put a co.Gosched() after
// such a Receive.
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
	rc.committing = true
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
	defer func() { rc.committing = false }()
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

// control claims due tasks and stops the loop.
func (ls *loopState) control(co *stackful.Co) {
	r := ls.r
	for !ls.stopping {
		full := false
		if room := ls.capacity - len(ls.recs); room > 0 {
			full = ls.claim(co, min(room, r.o.ClaimBatch))
		}
		switch {
		case ls.stopping:
		case full:
			co.Gosched() // more may be due
		case len(ls.recs) >= ls.capacity:
			co.Wait(&ls.wake, -1) // until a task leaves memory
		default:
			co.Wait(&ls.wake, r.o.Poll)
		}
	}
	// Stopping: the tasks in memory are dropped; their leases released
	// once the commits and the renewal in flight have ended.
	for _, rc := range ls.recs {
		rc.release()
	}
	ls.renewWake.Broadcast()
	for len(ls.queue) > 0 || ls.inflight > 0 || !ls.renewerDone {
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

// renewer renews the leases of the loop's tasks every Lease/3 and, every
// Lease/10, drops the tasks whose lease it could not renew in time (their
// lease may have expired, and another worker may hold them) unless they
// are held for a commit.
func (ls *loopState) renewer(co *stackful.Co) {
	defer func() { ls.renewerDone = true; ls.wake.Signal() }()
	r := ls.r
	nextRenew := time.Now().Add(r.o.Lease / 3)
	for !ls.stopping {
		co.Wait(&ls.renewWake, max(min(time.Until(nextRenew), r.o.Lease/10), time.Millisecond))
		if ls.stopping {
			return
		}
		now := time.Now()
		for _, rc := range ls.recs {
			// A task held for its commit runs nothing until the commit
			// returns, which renews the lease or finds it lost.
			if now.After(rc.leaseUntil) && !rc.committing {
				r.stats.leaseLost.Add(1)
				r.o.Logf("durable: task %q: lease not renewed in time, dropped", rc.id)
				rc.drop()
			}
		}
		if !now.Before(nextRenew) {
			ls.renew(co)
			nextRenew = now.Add(r.o.Lease / 3)
		}
	}
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
		if other, ok := register(rc); !ok {
			// Its lease expired while this process ran it (a loop
			// blocked, or a store too slow for the renewals), and this
			// claim took it again. Under the same worker name the copy
			// in memory goes on: it holds the lease again. Under another
			// (two runners of one process share the store) the lease is
			// released: the running copy's next commit finds it lost and
			// drops the task, which is then claimed afresh.
			r.stats.duplicates.Add(1)
			r.o.Logf("durable: task %q claimed while this process runs it already (for worker %s): left to the running copy", c.ID, other)
			if other != r.o.Worker {
				ls.held = append(ls.held, c.ID)
			}
			continue
		}
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
	if len(ls.held) > 0 && !ls.stopping {
		if err := r.s.Release(co, r.o.Worker, ls.held); err != nil {
			r.o.Logf("durable: Release: %v", err)
		}
		ls.held = ls.held[:0]
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
		return // the tasks are dropped when their leases run out
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

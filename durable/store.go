package durable

import (
	"errors"
	"fmt"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// ID names a durable task. It is chosen by whoever starts the task (an
// order number, a request ID: starting the same ID twice fails with
// [ErrExists], which makes Start idempotent) or by [NewID]. A store may
// limit its length (both stores here accept up to 200 bytes) and the
// directory store its bytes (see [OpenDir]).
type ID string

// State is where a task stands in its store.
type State uint8

const (
	// Running: runnable from Due on (just created, or checkpointed at a
	// Gosched, a Yield or a short Sleep); claimed by a worker when due.
	Running State = iota + 1
	// Sleeping: suspended in Sleep until Due; claimed by a worker when due.
	Sleeping
	// Waiting: suspended in [Receive] for a signal named Signal; not due
	// until such a signal is queued ([Store.Signal] makes it due at once).
	Waiting
	// Done: returned; Result holds what it recorded with [SetResult].
	Done
	// Failed: panicked; Error holds the panic value's text.
	Failed
	// Parked: its snapshot cannot be resumed by the worker that claimed it
	// (the code changed, the bytes are corrupt or foreign); Error says why.
	// The snapshot is kept; no worker claims the task again.
	Parked
)

var stateNames = [...]string{"", "running", "sleeping", "waiting", "done", "failed", "parked"}

func (s State) String() string {
	if int(s) < len(stateNames) && s != 0 {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Terminal reports whether s is final: Done, Failed or Parked.
func (s State) Terminal() bool { return s >= Done }

// Errors of the stores, wrapped with context.
var (
	// ErrExists: Create of an ID that the store holds already.
	ErrExists = errors.New("durable: task exists")
	// ErrNotFound: Signal or Get of an ID that the store does not hold.
	ErrNotFound = errors.New("durable: no such task")
	// ErrFinished: Signal of a task that is Done or Failed.
	ErrFinished = errors.New("durable: task has finished")
	// ErrLeaseLost: Commit by a worker that does not hold the task's
	// lease at the sequence number it gives (another worker claimed it,
	// or committed since).
	ErrLeaseLost = errors.New("durable: lease lost")
	// ErrClosed: an operation on a closed store.
	ErrClosed = errors.New("durable: store closed")
	// ErrNotEnded: Delete of a task that is not Done, Failed or Parked.
	ErrNotEnded = errors.New("durable: task has not ended")
)

// A Store keeps durable tasks: one record per task (its snapshot, its
// state, when it is due, who holds its lease) and the signals queued for
// it. Workers ([Runner]) claim due tasks, commit their checkpoints and
// renew their leases through it; any number of workers may share a store
// that supports it (PostgreSQL), or one process holds it (a directory).
//
// Every method that does I/O takes the calling coroutine, so that a store
// on a network server waits on the coroutine's loop and never blocks it;
// a store whose I/O is local may ignore it (the directory store does) or
// offload it. co is never nil. The methods may be called from several
// coroutines at once (of one env or of several); each call is atomic:
// it takes effect wholly or not at all.
//
// Time: "now" is the store's clock (the server's, for a server), and a
// lease held "until" a time is compared with that clock.
//
// The contract, which the suite in package durable/storetest checks:
type Store interface {
	// Create records a new task: state Running, due now, sequence 0, no
	// lease, snapshot the encoded not-started frame, name the durable
	// function's name (its frame's). If id exists (whatever its state),
	// nothing changes and the error wraps ErrExists.
	Create(co *stackful.Co, id ID, name string, snapshot []byte) error

	// Claim leases to worker up to max tasks that are due (state Running,
	// Sleeping or Waiting with Due at or before now) and not leased (no
	// owner, or a lease that expired before now), the earliest due first,
	// until now+lease. Each comes with its snapshot, its sequence number
	// and every signal queued for it, in the order they were queued. Tasks
	// claimed by concurrent Claims are disjoint. An empty result is not an
	// error.
	Claim(co *stackful.Co, worker string, lease time.Duration, max int) ([]Claimed, error)

	// Commit applies c to the task c.ID if worker holds its lease with
	// sequence number c.Seq (the one of its Claim or of its last Commit);
	// otherwise nothing changes and the error wraps ErrLeaseLost. In one
	// atomic step it then stores the sequence number c.Seq+1, c.State,
	// c.Snapshot (if not nil; nil keeps the stored one, except that a Done
	// task's snapshot may be dropped), c.Due (Running, Sleeping; zero means
	// now), c.Signal,
	// c.Result, c.Error, deletes the signals c.Consumed, and either renews
	// the lease until now+lease or, if c.Release is set or c.State is
	// terminal, ends it (no owner).
	//
	// A Waiting commit for a name that has a queued signal not in
	// c.Consumed is due now rather than never, so that a signal sent
	// while the task ran is not missed.
	//
	// The expiry of the lease is not checked: a worker whose lease expired
	// and whose task nobody claimed since still holds it. Fencing is by
	// owner and sequence number, so a worker names itself uniquely among
	// the live workers of a store.
	Commit(co *stackful.Co, worker string, lease time.Duration, c *Commit) error

	// Renew extends until now+lease the leases that worker holds among
	// ids, and returns those of ids it does not hold (claimed by another
	// worker, finished, released, or unknown).
	Renew(co *stackful.Co, worker string, lease time.Duration, ids []ID) (lost []ID, err error)

	// Release ends the leases that worker holds among ids, leaving the
	// tasks as their last commit left them: another worker may claim them
	// as soon as they are due. Ids it does not hold are ignored.
	Release(co *stackful.Co, worker string, ids []ID) error

	// Signal queues a signal (name, value) for task id durably, and
	// returns its number (increasing in the store). If the task is
	// Waiting for that name, it becomes due now. It fails with ErrNotFound
	// for an unknown id and ErrFinished for a Done or Failed task; a
	// Parked task keeps its signals.
	Signal(co *stackful.Co, id ID, name string, value []byte) (int64, error)

	// Get returns the task's record. The error wraps ErrNotFound for an
	// unknown id.
	Get(co *stackful.Co, id ID) (Info, error)

	// Delete removes the record of task id and the signals queued for it,
	// if the task has ended (Done, Failed or Parked); the ID is then
	// unknown to the store, and a Create may use it again. It fails with
	// ErrNotFound for an unknown id and ErrNotEnded for a task in any
	// other state, and then changes nothing. A task whose record is never
	// deleted stays in the store for good: a program that starts tasks
	// without end deletes the ended ones it has read (List, Get).
	Delete(co *stackful.Co, id ID) error

	// List returns the records of up to max tasks in state (0: in any
	// state), in the byte order of their IDs, from the first ID greater
	// than after: "" starts at the first, and the last ID of a page
	// starts the next. Tasks created, deleted or changing state while
	// pages are read appear in the pages as of when each was read.
	List(co *stackful.Co, state State, after ID, max int) ([]Info, error)

	// Close releases what the store holds (connections, the directory's
	// lock). Later calls fail with ErrClosed.
	Close() error
}

// A WorkerReleaser is a [Store] that can end every lease a worker name
// holds in one call. A [Runner] whose [Options.Worker] was set (not the
// default, which is new for every process) calls it once when it starts:
// names are unique among live workers, so leases held under the runner's
// own name belong to a predecessor that died, and the restarted worker
// takes those tasks back at once instead of after their leases expire.
// Stores that can answer it cheaply implement it (pgstore does; the
// directory store holds leases in memory only, so a new process has none).
type WorkerReleaser interface {
	// ReleaseWorker ends every lease that worker holds, as Release does,
	// and returns how many it ended.
	ReleaseWorker(co *stackful.Co, worker string) (int, error)
}

// Claimed is one task leased by [Store.Claim].
type Claimed struct {
	ID       ID
	Name     string   // the durable function's name, as given to Create
	Seq      int64    // sequence number of its last commit (0: none)
	Snapshot []byte   // of its last commit (or of its creation)
	Signals  []Signal // queued for it, in the order they were queued
}

// Signal is one queued signal.
type Signal struct {
	Seq   int64 // its number, from [Store.Signal]
	Name  string
	Value []byte
}

// Commit is a checkpoint, or a task's end, given to [Store.Commit].
type Commit struct {
	ID       ID
	Seq      int64     // the sequence number the worker holds; the store records Seq+1
	State    State     // anything but zero
	Snapshot []byte    // the new snapshot; nil keeps the stored one
	Due      time.Time // Running, Sleeping: when it is due; ignored otherwise
	Signal   string    // Waiting: the signal's name
	Result   []byte    // Done: what the task recorded with SetResult
	Error    string    // Failed, Parked: why
	Consumed []int64   // signals (their Seq) that the steps since the last commit took
	Release  bool      // end the lease rather than renew it
}

// Info is a task's record, from [Store.Get].
type Info struct {
	ID     ID
	Name   string
	State  State
	Seq    int64
	Due    time.Time // Running, Sleeping: when due; Waiting: zero (never) until a signal makes it due; terminal: zero
	Signal string    // Waiting: the signal's name
	Result []byte    // Done
	Error  string    // Failed, Parked
	Owner  string    // the worker holding its lease, "" if none
	Lease  time.Time // until when Owner holds it (may have passed)
	// Pending counts the signals queued and not consumed (a store may
	// drop those of a Done or Failed task).
	Pending int
}

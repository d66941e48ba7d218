// Package durable runs durable stackless tasks from a store, on any number
// of worker processes: a task runs on some worker until its next
// checkpoint, its snapshot is committed to the store, and if the worker
// dies another one resumes the task from that snapshot.
//
// # Tasks
//
// A durable task is a chain of frames of functions marked
// //co:stackless durable (see docs/durable.md): its whole state is its
// frames, which runtime/stackless snapshots to bytes at a checkpoint and
// restores in any process running the same code. The task's first frame
// names it: its function is the task's "durable function", and the record
// of the task in its store carries that name.
//
// A task has an [ID], chosen by the caller or made by [NewID]. Durable code
// has only its coroutine handle, not its task, so a workflow that needs
// its ID (for [Receive], [StepKey] or [SetResult]) receives it as an
// ordinary argument: the caller passes the same ID to [Start] and to the
// frame's constructor,
//
//	id := durable.ID("order-42")
//	err := durable.Start(co, store, id, NewOrderFrame(id, 42))
//
// Start stores the snapshot of the frame, not started, as a new task that
// is due now; it fails with an error wrapping [ErrExists] if the store
// holds the ID already, whatever the task's state, so that a caller that
// retries a Start after a crash does not start a second task. A program
// that is not in a coroutine calls the functions taking a co through
// [Do], which runs them in a throwaway environment.
//
// # Checkpoints
//
// A task checkpoints wherever it suspends in Gosched, Yield or Sleep (the
// suspensions a snapshot can carry): the [Runner] running it snapshots it
// there and commits the snapshot to the store before the task goes on.
// The task does not run while its checkpoint is being committed; a task
// suspended elsewhere (reading a socket, waiting on a channel) is not
// checkpointed and simply goes on when woken. So
//
//   - co.Gosched() is a checkpoint: committed, then the task continues;
//   - co.Sleep(d) is a checkpoint with a due time: committed as Sleeping
//     until the deadline; a sleep longer than [Options.SleepInMemory] also drops
//     the task from the worker's memory and ends its lease, and the task
//     is a record with a due time until some worker claims it again,
//     so any number of far sleepers cost no worker memory;
//   - [Receive] waits for a signal: committed as Waiting, dropped from
//     memory, and due again when a signal of that name is queued;
//   - a plain co.Yield() (outside Receive) is a checkpoint like Gosched:
//     nothing else resumes a durable task;
//   - returning ends the task: committed as Done, with the bytes the task
//     recorded with [SetResult] (a frame's results are not reachable
//     generically, so a task that has a result records it);
//   - a panic ends the task: committed as Failed with the panic value's
//     text.
//
// # At least once between checkpoints
//
// A worker can die anywhere. Its leases then expire, another worker claims
// the tasks and restores each from its last committed snapshot: the steps
// since that checkpoint run again. The code between two checkpoints thus
// runs at least once and is never lost; what it did before the crash to
// its own frames is lost with the process, but what it did to the world
// (a row inserted, a payment made, an e-mail sent) is not undone. Make
// those side effects idempotent with the step key: [StepKey] returns a
// string that is the same each time the same step runs (the task's ID and
// the sequence number of the checkpoint the step starts from) and
// different for every other step of every task. Record each effect under
// it, in the same transaction as the effect, for example
//
//	insert into effects(step_key, ...) values ($1, ...) on conflict (step_key) do nothing
//
// and do the effect only if the row was inserted (or let the receiver
// deduplicate by the key, as payment APIs do with an idempotency key). A
// step that makes several effects numbers them: StepKey(id)+"/1", "/2".
//
// # Leases
//
// A worker holds the tasks it runs under a lease: Claim takes a due task
// for [Options.Lease], each commit renews it, and a renewer renews all the
// worker's leases every Lease/3 (from a coroutine of its own, so that
// claims do not delay it). A commit or renewal that finds the lease held
// by another worker (or the sequence number moved on) cancels the task
// locally without running it further; a task whose lease could not be
// renewed before it expires (a store that does not answer) is dropped
// likewise a margin before the expiry, so that a worker never runs a task
// after another may have claimed it, as long as the clocks of the workers
// and of the store agree within the margin ([Options.Lease]/10). A task
// held for its checkpoint's commit is not dropped for that: it runs
// nothing until the commit returns, which renews the lease or finds it
// lost. A Gosched checkpoint commits the task as Running, due at once: a
// worker that dies leaves it claimable as soon as its lease expires. A
// killed worker's tasks are claimable once their leases expire, and the
// runner polls for due tasks every [Options.Poll]: a killed worker's tasks
// resume elsewhere within Lease + Poll.
//
// Worker names fence commits: each live worker of a store has its own
// (the default is the host name, the process ID and a random suffix).
//
// A process runs a task at most once at a time, whatever its runners: the
// tasks in memory are in a process-wide table by ID (which is how
// [Receive], [StepKey] and [SetResult] find their task). A claim of a task
// the process runs already (its lease expired while a blocked loop held
// it) is left to the running copy; the lease is released if the claim was
// another runner's, so that the running copy's next commit finds it lost.
//
// Stopping a runner ([Runner.Close], or the end of Run's context) drops
// its tasks from memory once the commits in flight have returned and
// releases their leases: another worker resumes them at once from their
// last checkpoints.
//
// # Signals
//
// [Send] queues a value for a task under a name, durably: it is in the
// store when Send returns, whether the task waits for it yet or not. The
// task takes it with [Receive], the durable counterpart of a channel
// receive: signals of one name are received in the order they were sent,
// each exactly once: the signal is deleted in the same commit as the
// task's next checkpoint, so a step that received it and was lost in a
// crash receives it again when it re-runs.
//
// # Bad snapshots
//
// A snapshot that cannot be restored (its function changed since, so its
// fingerprint differs: [stackless.ErrChangedCode]; or its bytes are
// corrupt or not a snapshot) is committed as Parked with the error, and
// the worker goes on with its other tasks: a bad record never crashes a
// worker and is never resumed wrong. A Parked task keeps its snapshot.
//
// # Stores
//
// [Store] is the interface the runner uses; [OpenDir] is the embedded
// store (a directory, one process at a time) and the nested module
// github.com/cogen-go/cogen/durable/pgstore the one many workers share
// (PostgreSQL). Package durable/storetest checks a store against the
// interface's contract.
//
// A store keeps every task's record until it is deleted, ended tasks'
// included (their results and errors are read from them): a program that
// starts tasks without end lists the ended ones ([Store.List], by state,
// a page at a time) and deletes those it is done with ([Store.Delete],
// which refuses a task that has not ended, with [ErrNotEnded]).
//
// # Costs
//
// A checkpoint costs one snapshot (proportional to the task's state) and
// one store commit; the task waits for the commit, the worker does not:
// other tasks run meanwhile, and the commits of tasks that checkpoint
// together go to the store concurrently. A task in a worker's memory
// costs its frames and the runner's record of it (a few hundred bytes);
// a task not in memory costs nothing in the worker.
package durable

// Package pgstore is a [durable.Store] on PostgreSQL, for workers on any
// number of machines sharing one database. It speaks through the
// project's coroutine-native client (client/pg): every call waits on the
// loop of the coroutine that makes it and never blocks that loop, so a
// worker's tasks go on running while its commits are in flight.
//
//	s, err := pgstore.OpenURL("postgres://app@db:5432/app?sslmode=disable", pgstore.Options{})
//	...
//	r := durable.NewRunner(s, durable.Options{})
//	err = r.Run(ctx)
//
// Command example/orders is the complete program to read and run first:
// workers of a workflow that keeps a total through a pointer, one of them
// killed with SIGKILL, the others resuming its tasks with the total right.
//
// # Contract
//
// The store implements the contract of [durable.Store] (checked by
// durable/storetest against a real server), with these choices:
//
//   - Times are the database's: "now" is the server's now(), leases run
//     until now()+lease on the server's clock, a task created or
//     committed Running with a zero Due is due at the server's now(). The
//     one time a worker's clock writes is a Sleeping commit's Due (and a
//     Running one's when not zero): the snapshot records a Sleep's
//     deadline as the worker's wall-clock time, and the store keeps it as
//     given. The workers' clocks are thus assumed to agree with the
//     server's within the precision expected of sleeps (NTP: milliseconds);
//     a worker whose clock runs ahead wakes its sleepers early by that
//     much, one that runs behind, late. Leases never depend on a worker's
//     clock.
//   - Fencing: a commit changes the task's row only where owner and seq
//     are the ones the worker holds (a lease that expired without another
//     claim still counts, as the contract says); a commit that finds
//     neither returns an error wrapping [durable.ErrLeaseLost] and changes
//     nothing, consumed signals included.
//   - A Done commit drops the task's snapshot; a Parked or Failed task
//     keeps it (for inspection).
//   - A row the store did not write (a NULL snapshot, an unknown state, a
//     NULL lease time) is never a panic: Claim takes it by its columns and
//     returns its bytes as they are (the runner parks what it cannot
//     restore), Get reports an unknown state as State 0 with an Error
//     naming it, and an owner without a lease time holds nothing.
//   - A call whose conn fails (a dropped connection, a restarted server,
//     a query timeout: client/pg's Config.QueryTimeout, 30 s by default)
//     returns the error; the conn is closed and the next call dials a new
//     one. A commit whose answer was lost may or may not have been
//     applied: the runner treats it as a lost lease (the task resumes
//     from whichever checkpoint the store holds), which is the
//     at-least-once the runner documents.
//
// # Schema
//
// The tables live in a schema of their own ([Options.Schema], default
// "cogen_durable"), created and migrated by the library on the first
// conn a Store dials: one transaction, under pg_advisory_xact_lock keyed
// by the schema's name, so that workers starting together migrate once.
// A schema_version table holds the version; a database migrated by a
// newer library is refused rather than misread.
//
//	tasks(id text primary key, name text, state text, snapshot bytea,
//	      seq bigint, due timestamptz, wait_name text, owner text,
//	      lease_until timestamptz, result bytea, error text,
//	      created timestamptz, updated timestamptz)
//	  index tasks_free (due) where state in ('running', 'sleeping',
//	    'waiting') and (owner is null or lease_until is null)
//	  index tasks_leased (lease_until) where state in ('running',
//	    'sleeping', 'waiting') and owner is not null
//	signals(id bigserial primary key, task_id text, name text,
//	        value bytea, sent_at timestamptz)
//	  index (task_id, name, id)
//
// A Waiting task has a NULL due until a signal of its name is queued: it
// costs nothing to the claims, however long it waits, and neither does a
// Sleeping one until its due time. A signal's number is its id.
//
// # Statements
//
// Claim is one statement: an UPDATE of the rows selected by two scans,
// the free due tasks in due order (tasks_free) and the expired leases in
// expiry order (tasks_leased), each LIMIT max and FOR UPDATE SKIP LOCKED
// (concurrent claims take disjoint tasks without waiting for each
// other), of which the max earliest due are taken, joined with the
// tasks' queued signals. Neither scan passes over the tasks that live
// leases hold, nor over sleepers not due yet or waiting tasks: what an
// idle claim costs the server does not grow with them. Commit is one statement
// (the fenced UPDATE and the DELETE of the consumed signals, in a CTE)
// and, for a Waiting commit, a second one in the same pipeline: both go
// in one write and one Sync, so they are one transaction and one round
// trip. The second makes the task due if a signal of its name is queued;
// it runs as a statement of its own (a new snapshot, after the first has
// locked the row) because Signal locks the task's row too: a signal
// committed before the commit took the lock is seen by the second
// statement, and one that comes later waits for the lock and finds the
// task waiting. Signal is one statement (lock the task, insert the
// signal, make a waiting task due); Renew, Release and Get are one each.
// Delete is two in one round trip and one transaction: the task's row if
// it has ended, then its signals, in a snapshot of their own so that a
// signal committed while the first waited for the row goes too. List is
// one, which scans the tasks table (no index by state) and sorts by ID in
// byte order (COLLATE "C"): for maintenance, not a hot path.
//
// # Connections
//
// Each loop that uses the store has its own conns, dialled on demand and
// kept while healthy; each new conn prepares the statements once. They
// are in two lanes: commits, creations, signals and gets share
// [Options.Conns] of them (a coroutine that finds them busy waits for one
// in its loop), and Claim, Renew and Release have one of their own, so
// that a worker's claims and lease renewals never queue behind its
// commits. The idle conns of a loop that has closed are
// adopted by the next loop that needs one, so that short-lived
// environments (durable.Do) do not dial every time. Close closes the idle
// conns (on their loop's next iteration while it runs, at once for a
// closed loop); conns in use close when their calls end.
//
// # Costs
//
// Per checkpoint: one round trip, one write of the Bind, Execute and Sync
// messages (about 180 bytes plus the snapshot; the reply is about 40),
// and in PostgreSQL one
// UPDATE of the task's row, which writes a new row version carrying the
// whole snapshot (the WAL grows by about the snapshot's size plus a few
// hundred bytes: see BenchmarkCommit). A Waiting commit adds a statement
// to the same round trip. A claim of n tasks is one round trip returning
// their snapshots. Signal, Renew (of any number of tasks), Release and
// Get are one round trip each.
//
// The tests run against the PostgreSQL of COGEN_PG_URL (.ci/dbservers)
// and skip without one outside CI; the multi-process tests build the
// worker command (cmd/durworker) and run it as processes that they kill
// with SIGKILL (TestChaos: COGEN_CHAOS_N workflows, 10,000 by default;
// TestRecovery), feed rows they cannot resume (TestBadRows), hand a
// killed worker's tasks to a worker built with another body of their
// function, which parks them (TestChangedCode: internal/changeflow under
// the build tag pgstore_changed), and restart the server
// (TestServerRestart, with COGEN_PG_STOP and COGEN_PG_START).
package pgstore

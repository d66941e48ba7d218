// Command durablepg measures durable workflows on PostgreSQL side by side:
// cogen's durable runner with its PostgreSQL store (durable/pgstore), and
// DBOS Transact for Go (github.com/dbos-inc/dbos-transact-golang), on the
// same server, with the same workload, in one run:
//
//	durablepg bench [-db url] [-fsync] [-engines cogen,dbos] [-n 10] [-c 100] [-w 2000] [-recover-w 1000]
//	                [-lease 2s] [-loops 1] [-conns 0] [-poll 0] [-cpuprofile dir] [-json]
//
// The workload is a workflow of n steps, each a small computation (64
// multiply-xorshift rounds over the running hash and the step's counter)
// followed by a checkpoint: for DBOS a dbos.RunAsStep, for the runner a
// co.Gosched, whose snapshot the store commits. c workflows are kept in
// flight, w in all. Every workflow's result is checked (the xor of all of
// them against the one computed here).
//
// DBOS runs each workflow with dbos.RunWorkflow from c goroutines, its
// documented way, with its defaults (a pool of 20 connections). The
// runner's worker starts each workflow with durable.Start from a few
// coroutines of its own env, at most c started and not committed as done
// (Runner.Stats), and runs
// them with durable.Runner (MaxTasks c, -loops loops, the lease -lease,
// the poll -poll, pgstore's -conns conns per loop; 0 is the library's
// default).
//
// Each engine's load runs in a worker child process (durablepg worker),
// one engine after the other, each on an empty schema of its own after a
// CHECKPOINT. The worker reports the load's wall time, its own CPU
// (getrusage), the server's CPU (the postmaster's process tree from
// /proc: the postmaster's time and its reaped children's, plus each live
// child's; only when the server runs on this machine and its data
// directory is readable), the WAL written (pg_current_wal_lsn before and
// after), the growth of the engine's tables, and the transactions ended
// in the database (pg_stat_database, read once the engine's connections
// have closed).
//
// Recovery: a worker runs recover-w workflows and is killed with SIGKILL
// once a quarter of them finished; a new worker starts at once, and the
// measure is the time from the kill until no workflow is left unfinished
// in the database. DBOS recovers, when it launches, the pending workflows
// of its executor ID (the new worker takes the killed one's); the runner's
// new worker takes the killed one's name likewise, and with it, when it
// starts, the tasks leased to that name (durable.WorkerReleaser), without
// waiting for the leases to expire.
//
// Sleepers (bench -sleepers counts, or on its own):
//
//	durablepg sleepers [-db url] [-counts 10000,100000,1000000] [-real 100000] [-json]
//
// A runner with the library's defaults runs Sleeper workflows, which
// sleep for a year, to their co.Sleep, where each is committed as
// Sleeping and dropped from the worker's memory; at each count the
// worker's heap in use is read (after GCs, three times, the least
// reported) while the runner polls the store. Beyond -real the rows are
// inserted in bulk with COPY (each one's not-started snapshot, state
// sleeping, due in a year) rather than started one by one.
//
// The database is -db, else COGEN_PG_URL, else a throwaway PostgreSQL
// (initdb in a temporary directory, fsync off unless -fsync) when one is
// installed; without any, bench exits with status 3. With -json the rows
// are JSON lines in cmd/cobench's Row format (its durable-pg group runs
// durablepg bench -json).
package main

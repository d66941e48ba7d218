// Package gate runs stock database drivers - github.com/redis/go-redis/v9
// and github.com/jackc/pgx/v5 - from stackful coroutines, and its tests run
// them against real servers (1,000 coroutines of one env; prepared
// statements, transactions, a query that times out, connections dropped
// mid-run, and both servers - a private redis-server, and PostgreSQL
// through pg_ctl - stopped and started again mid-run: while a server is
// down every call fails with an error at once, the env keeps running,
// and after the start the pools dial again). It is a module of its own so
// that the drivers stay out of cogen's dependencies.
//
// # What works
//
// Two combinations, both tested:
//
//   - Coroutine conns behind a gate: [NewRedis] and [NewPgPool] (options
//     from [RedisOptions], [PgPoolConfig]). The driver dials with
//     conet.Dialer, so every read, write and connect waits on the env's
//     loop; every use of the driver's pool goes through Do, which holds a
//     place in a cosync.Semaphore made from the pool's own size, so the
//     pool always has a free conn and never waits, and the two cannot
//     disagree. This is the fast path: no goroutine hand-off per call.
//     [NewRedisShared] and [NewPgPoolShared] split one pool among several
//     envs.
//   - Offload. The driver uses plain conns, and each call runs on a worker
//     of the env's offload pool (hook.Offload, stackful.Co.Offload) while
//     the coroutine waits on the loop. Nothing of the driver runs on a
//     coroutine, so nothing can stall the env; each call pays two
//     cross-thread wake-ups, and concurrency is bounded by the offload
//     limit (Env.SetOffloadLimit).
//
// # What is unsafe, and why
//
// A coroutine must wait only through its env; a driver waits in Go's
// scheduler in places, and on a coroutine each of them freezes the env
// (the stall watchdog reports it after a second, see stackful.Env.OnStall):
//
//   - An exhausted pool: go-redis's and pgxpool's Get/Acquire wait on a Go
//     channel or semaphore for a conn that a suspended coroutine of the
//     same env holds: a deadlock until the pool timeout (go-redis) or the
//     context's deadline. Hence the gate. Tested: without it the stall is
//     reported (TestRedisPoolStallReported); with it the same load waits on
//     the loop and the env keeps running (TestRedisGateNoStall).
//   - Locks held across I/O: go-redis's maintenance-notification handshake
//     holds a sync.RWMutex across a round trip; [RedisOptions] turns those
//     notifications off. Other features that do (go-redis's cluster and
//     sentinel clients, pub/sub, autopipelining; pgx's CopyFrom with a
//     reader that blocks) are not audited: offload them.
//   - Short blocking hand-offs that end by themselves: pool dials that
//     run on a goroutine of the pool while Get waits on a channel
//     (pgxpool's Acquire also waits in a select for its ping of a conn
//     idle for a second), pgx's context watcher (a context.AfterFunc
//     goroutine) that Unwatch waits for, pgconn's background reader (once
//     a write has taken 15 ms of wall time, the conn's reads move to a
//     goroutine and the caller waits on a sync.Cond for them), a conn
//     closed by a pool's background goroutine. They freeze the env for a
//     connect, a round trip or a cancel request, not forever, because the
//     other side is a plain goroutine that does not need the loop - but
//     for long on a loaded machine, and around a server restart, when
//     every conn is dialled again. A server whose loop must never stall
//     (bench/tfb's pgx server) offloads instead.
//   - Pools shared between envs work: a conn handed to a coroutine of
//     another env migrates to it (or, while the env serving it is busy,
//     the call falls back to Go's poller on an offload worker; see
//     conet's package doc). Each env still needs its own gate, and the
//     gates together must not exceed the pool: [NewRedisShared] and
//     [NewPgPoolShared] (TestRedisPoolSharedByTwoEnvs and
//     TestPgPoolSharedByTwoEnvs: half the pool each).
//
// The tests check all of this against real servers, and that nothing -
// goroutines, file descriptors - is left behind after the clients and the
// env are closed. Without servers they skip (see .ci/dbservers; the
// PostgreSQL restart needs COGEN_PG_STOP and COGEN_PG_START too).
package gate

// Package pg is a PostgreSQL client written once as stackful coroutine
// code over the handle's Read and Write, and run in both models: cogen
// generates its stackless twin (the *_cogen.go files) from the functions
// marked //co:stackless, as client/resp does for Redis. The messages are
// encoded and decoded by pgx's pgproto3 package; this package adds only the
// transport a coroutine can wait on, the session logic and a pool.
//
// # What it speaks
//
//   - Startup with trust, cleartext password, md5 and SCRAM-SHA-256
//     authentication (github.com/xdg-go/scram; channel binding, GSSAPI and
//     TLS are not supported: connect with sslmode=disable on a trusted
//     network or a local socket's loopback).
//   - The extended query protocol with prepared statements ([Conn.Prepare],
//     [Conn.PrepareAll]) and pipelining: [Conn.Queue] buffers a Bind and an
//     Execute, [Conn.Send] adds one Sync and writes them all, [Conn.Next]
//     reads the results in order. A query that fails returns its [*Error]
//     (with its SQLSTATE: [Code]); the server skips the rest of that
//     pipeline, and their Next calls return errors wrapping [ErrAborted].
//   - Parameters: [Int] (binary for int2/int4/int8 parameters), [Text],
//     [Bytes], [Null]. Results: int2/int4/int8 columns in binary, others in
//     text by default ([Stmt].Formats chooses per column); [Rows] copies
//     them out of the conn's buffer and reads them as ints, text or bytes.
//   - The simple query protocol ([Conn.Exec]) for DDL and scripts.
//   - Timeouts through the handle, without a context, on by default:
//     [Config.ConnectTimeout] bounds Connect as a whole
//     ([DefaultConnectTimeout], 10 s; a URL's connect_timeout sets it) and
//     [Config.QueryTimeout] each later call that waits for the server
//     ([DefaultQueryTimeout], 30 s), so a stopped or unreachable server
//     costs its callers errors wrapping loop.ErrTimeout, never a wait for
//     good; a negative value is no bound. A timed-out conn is broken,
//     since its replies would be out of step, and a [Pool] closes it on
//     release rather than hand it out half-read.
//
// # The pool
//
// [Pool] hands out conns to the coroutines (or tasks) of one loop; a
// caller that finds every conn in use suspends in [Pool.Acquire] (a
// cosync.Semaphore of the pool's size) while the env runs the holders.
// A stock driver's pool waits in Go's scheduler instead, which freezes an
// env whose conns are held by its own suspended coroutines (see
// client/gate). Broken conns are closed on release and the next Acquire
// dials a new one, so a dropped connection or a restarted server costs the
// queries in flight, not the pool.
//
// # Costs
//
// A query whose arguments and rows fit the buffers allocates nothing in
// the stackful model once its Rows is large enough (the conn reuses its
// Bind message and argument buffer); the stackless frames are allocated
// per call. One pipeline is one write; its replies arrive in as few reads
// as the kernel delivers them.
//
// The tests run against the PostgreSQL that .ci/dbservers starts
// (COGEN_PG_URL; password logins with COGEN_PG_AUTH; a restart with
// COGEN_PG_STOP and COGEN_PG_START), in both models, and skip without a
// server outside CI. The package is a module of its own so that pgx stays
// out of cogen's dependencies; it runs cogen as a Go tool (the tool
// directive in its go.mod, //go:generate go tool cogen).
package pg

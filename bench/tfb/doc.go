// Package tfb serves TechEmpower's six test types - JSON serialization,
// single query, multiple queries, fortunes, updates and plaintext - against
// PostgreSQL with five servers, so that one run answers "which model for my
// web service?" beside the servers Go users pick today:
//
//   - cohttp on stackful coroutines and cohttp on stackless tasks, with the
//     coroutine-native client client/pg: the handlers that query are one
//     //co:stackless source (native.go), run as it is by the stackful
//     server and as the frames cogen generated from it (native_cogen.go) by
//     the stackless one;
//   - cohttp on stackful coroutines with pgx, the stock driver, whose
//     calls run on the env's offload workers behind a cosync.Semaphore of
//     its pool's size (pgx waits in Go's scheduler, which would stall the
//     loop: see conetServer);
//   - net/http and fasthttp, their handlers on goroutines with a pgxpool.
//
// Every server renders with the same functions (render.go), reads the same
// statements, and has the same number of database conns, so that the
// comparison measures the servers, their models and their database
// clients. Multiple queries and updates are pipelined by every client (pgx
// batches; the native client's Queue and Send): one round trip for the
// reads of a request and one for its updates, the ids of an update sorted so
// that concurrent requests lock rows in one order.
//
// [Validate] checks a server's answers against the test rules on the real
// database (the tests run it on all five servers); cmd/tfb measures them
// (tfb bench), one server at a time in a child process: requests per
// second, the server's and the database's CPU per request (from /proc) and
// p99 latency, at 256 connections (plaintext: 16,384, pipelined 16 deep,
// within the fd limit), and the server's read(2) and write(2) calls per
// request ([ProcessIO]: none when the loop serves in io_uring's completion
// mode; tfb bench -uring measures the cohttp servers on that backend too).
// cmd/cobench's tfb group runs it. [Setup] creates
// the world (10,000 rows) and fortune tables; the tfb command starts a
// throwaway server (internal/pgserver) when no URL is given.
//
// The cohttp servers run one loop each (each loop would need its own pool:
// the handlers reach the pool of the process), so their requests per
// second are bounded by one core while net/http and fasthttp use both:
// compare the CPU per request.
package tfb

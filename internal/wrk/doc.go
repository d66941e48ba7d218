// Package wrk runs wrk, the HTTP load generator TechEmpower's benchmark
// runs, against a server and parses its report: the load generator nobody
// here wrote, beside echoload's client and bench/tfb's.
//
// Run starts the wrk binary found in PATH (Debian's package wrk; .ci/run
// installs it) with Config's connections, threads, duration and, for
// pipelining, a Lua script of this package (pipelineScript: each write
// carries Pipeline requests, as TechEmpower's plaintext test sends them).
// It reads the CPU clock it is given (the server's process CPU) when wrk
// starts and when it has exited, so Result.ServerCPU covers wrk's whole
// run: connection setup, the window, and the requests in flight when wrk
// stops, which it does not count. wrk counts only completed responses;
// Parse reads its request count, requests per second, latency percentiles,
// socket errors and non-2xx count from the text wrk prints with --latency.
//
// Costs: one wrk process per run, one temporary file for a script; wrk's
// threads take cores from the server, as any load client on the same
// machine does. Without wrk in PATH, Run returns an error wrapping
// ErrNotInstalled.
package wrk

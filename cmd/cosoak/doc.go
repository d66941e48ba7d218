//go:build linux

// Command cosoak runs both coroutine models under mixed load and injected
// faults for a while and checks that nothing is lost or leaked.
//
// Usage:
//
//	go run ./cmd/cosoak [-d 30s] [-seed N] [-clients N] [-q]
//
// Everything runs on 127.0.0.1 in this process (plus one child process for
// descriptor exhaustion):
//
//   - echo servers in both models (a stackful coroutine per connection
//     running internal/echo.Echo, a stackless task per connection
//     running its generated EchoFrame), HTTP/1.1 hello servers (stackful on
//     Co.Read/Co.Write and on conet's net.Conn; cohttp's server in both
//     models, with read-header, idle, read and write timeouts of 2, 3, 3
//     and 2 s, a 4 MiB body budget, and a route whose handler waits,
//     internal/hello's Wait), and cosync
//     channel pipelines in both models (a producer, a random pool of
//     workers, a collector: every value must arrive exactly once), one
//     event loop per model;
//   - client goroutines on Go's net package that verify every byte: random
//     payloads of 1 B to 1 MiB echoed back and compared, hello responses
//     checked, connection churn, and faults — resets (SO_LINGER 0)
//     mid-stream, half-closes, stalls mid-request, garbage requests,
//     connections that send nothing, and connections that stop mid-head or
//     stay idle, which the cohttp servers must close at their timeouts (not
//     before); against cohttp, pipelined requests whose handler waits mixed
//     with plain ones (answers in order), bodies that stop coming and
//     stalled 1 MiB uploads (408 at the read timeout, not before; the body
//     budget never exceeded and all given back at the end), and clients that
//     do not read (cut off by the write timeout);
//   - sleepers in both models whose every wake-up is checked against its
//     deadline (never early), with lateness percentiles;
//   - stackless tasks canceled at random points of their waits, and stackful
//     coroutines whose descriptor is closed under them, each checked to end
//     with the right error;
//   - generated sleeper tasks churned through a stackless.Pool (blocks
//     reused, some tasks canceled, released in random order), each round
//     checked for the exact number of sleeps, early wake-ups, a panic on
//     a released handle and a pool no larger than the peak;
//   - envs and loops closed while coroutines and tasks are suspended on
//     descriptors, timers and conds, each checked to unwind completely;
//   - a child process with RLIMIT_NOFILE lowered, whose conet server runs
//     out of descriptors under a connection flood, backs off, and must
//     serve normally once the flood is gone.
//
// Progress goes to stderr every few seconds. The last line on stdout is
// the summary:
//
//	cosoak: 30s: requests 123456, bytes verified 1.2 GB, channel values 2345678, faults injected 4321, lost 0, leaked 0 (fds 0, goroutines 0, timers 0, tasks 0), early wake-ups 0, failed checks 0
//
// Any lost byte, leak, early timer or failed check makes cosoak print the
// details and exit 1. If the run overruns its duration by more than a
// minute, cosoak dumps every goroutine's stack and what each event loop
// still waits for to stderr and exits 2, so a rare hang leaves its
// evidence.
package main

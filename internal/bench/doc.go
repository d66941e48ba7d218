//go:build unix

// Package bench holds the bodies of the benchmarks that compare the
// coroutine models, so that `go test -bench` in each package and
// cmd/cobench run the identical code.
//
// Each micro benchmark is a func(*testing.B): a package's benchmark is a
// one-line wrapper, and cobench runs the same function under
// testing.Benchmark. The bodies that need a whole process to themselves
// (memory per suspended coroutine, 100k sleeping coroutines, the echo and
// HTTP servers under load) are plain functions returning their figures;
// cobench runs each in a fresh child process.
//
// The models compared:
//
//   - stackful: runtime/stackful coroutines (goroutines switched with the
//     runtime's coroutine switch), libco's semantics;
//   - stackless: runtime/stackless tasks running state-machine frames, in
//     the shape cogen generates;
//   - goroutine: plain Go, goroutines, channels, time and net;
//   - and, where it helps reading the others, iter.Pull and a plain call.
package bench

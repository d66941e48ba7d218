package echo_test

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// The echo benchmarks serve one echoload run of b.N requests, 100
// connections of 64-byte ping-pong, and report the wall time per request
// (ns/op), requests per second, the server's CPU time per request
// (us-cpu/req) and its read and write system calls per request
// (rw-syscalls/req). Their bodies live in internal/bench, which cmd/cobench
// runs too.

// BenchmarkEchoStackless serves the load with one stackless task per
// connection on one loop, for each stackless form of Echo: the generated
// EchoFrame and the hand-written HandEchoFrame.
func BenchmarkEchoStackless(b *testing.B) {
	b.Run("generated", func(b *testing.B) { bench.Echo(b, "stackless/generated") })
	b.Run("hand", func(b *testing.B) { bench.Echo(b, "stackless/hand") })
}

// BenchmarkEchoStackful serves the same load with one stackful coroutine
// per connection running Echo, on the same kind of loop.
func BenchmarkEchoStackful(b *testing.B) { bench.Echo(b, "stackful") }

// BenchmarkEchoGoroutine serves the same load with Go's net package: one
// goroutine per connection, reading up to 64 bytes and writing them back.
func BenchmarkEchoGoroutine(b *testing.B) { bench.Echo(b, "goroutine") }

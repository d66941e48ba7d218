//go:build unix

package cosync_test

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// BenchmarkChanPingPong is one value sent and answered between two
// coroutines over two unbuffered channels, in each model, spread over
// bench.PingPongPairs pairs on one loop; "goroutine" is Go's channels
// between as many pairs of goroutines. The bodies are in internal/bench, shared with
// cmd/cobench's chan group.
func BenchmarkChanPingPong(b *testing.B) {
	for _, model := range bench.ChanModels {
		b.Run(model, func(b *testing.B) { bench.ChanPingPongModel(b, model, bench.PingPongPairs) })
	}
}

// BenchmarkChanPingPongOnePair is the same with one pair: the latency of a
// round trip on an otherwise idle loop, two polls included.
func BenchmarkChanPingPongOnePair(b *testing.B) {
	for _, model := range bench.ChanModels {
		b.Run(model, func(b *testing.B) { bench.ChanPingPongModel(b, model, 1) })
	}
}

// BenchmarkChanFanOut is one value through a pool of 1,000 workers: fed
// on one channel, answered on another.
func BenchmarkChanFanOut(b *testing.B) {
	for _, model := range bench.ChanModels {
		b.Run(model, func(b *testing.B) { bench.ChanFanOut(b, model, 1000) })
	}
}

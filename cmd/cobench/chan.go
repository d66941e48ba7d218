//go:build unix

package main

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// The chan group measures runtime/cosync's channels in both coroutine
// models beside Go's channels between goroutines: a ping-pong round trip
// (one value there and back, both ends blocking each time; spread over
// 100 pairs, and with a lone pair, each against goroutines in the same
// number of pairs), and one
// value through a pool of 1,000 workers fed on one channel and answered on
// another. The bodies are internal/bench's, shared with
// BenchmarkChanPingPong and BenchmarkChanFanOut in runtime/cosync.

// chanWorkers is the size of the fan-out/fan-in pool.
const chanWorkers = 1000

func chanMicros() []micro {
	const pp, one, fan = "chan ping-pong round trip", "chan ping-pong round trip, one pair", "1,000-worker fan-out/fan-in, per value"
	names := map[string]string{
		"stackful":  "stackful (cosync.Chan)",
		"stackless": "stackless (cosync.Chan, generated frames)",
		"goroutine": "goroutine (Go chan)",
	}
	refs := map[string]string{"stackless": "goal ≤ 0.25× goroutine", "stackful": "goal ≤ 1.0× goroutine"}
	var ms []micro
	for _, model := range bench.ChanModels {
		name := names[model] + ", 100 pairs on one loop"
		if model == "goroutine" {
			name = names[model] + ", 100 pairs"
		}
		ms = append(ms, micro{"chan", pp, name,
			func(b *testing.B) { bench.ChanPingPongModel(b, model, bench.PingPongPairs) }, model == "goroutine", refs[model]})
	}
	for _, model := range bench.ChanModels {
		ref := refs[model]
		if model == "stackless" {
			ref += "; no slower than 100 pairs"
		}
		ms = append(ms, micro{"chan", one, names[model],
			func(b *testing.B) { bench.ChanPingPongModel(b, model, 1) }, model == "goroutine", ref})
	}
	for _, model := range bench.ChanModels {
		ms = append(ms, micro{"chan", fan, names[model],
			func(b *testing.B) { bench.ChanFanOut(b, model, chanWorkers) }, model == "goroutine", ""})
	}
	return ms
}

//go:build linux

package loop_test

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// BenchmarkWheelAddCancel is one Loop.Reset plus Loop.Stop of a reused
// Timer, with random durations from 1 ms to 10 s: the loop's equivalent of
// time.AfterFunc + Stop. The body is bench.WheelAddCancel, which
// cmd/cobench runs too.
func BenchmarkWheelAddCancel(b *testing.B) { bench.WheelAddCancel(b) }

// BenchmarkAfterFuncStop is the Go baseline for BenchmarkWheelAddCancel,
// with the same durations.
func BenchmarkAfterFuncStop(b *testing.B) { bench.AfterFuncStop(b) }

// BenchmarkSleepLateness is one 10 ms sleep at a time in each model and in
// Go (time.Sleep), reporting the mean and 99th-percentile lateness of the
// wake-ups (us-late-mean, us-late-p99). The body is bench.SleepLateness,
// which cmd/cobench runs too, interleaved.
func BenchmarkSleepLateness(b *testing.B) {
	for _, model := range bench.LatenessModels {
		b.Run(model, func(b *testing.B) { bench.SleepLateness(b, model, bench.LatenessSleep) })
	}
}

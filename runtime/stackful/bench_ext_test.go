//go:build linux

package stackful_test

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// BenchmarkStackfulSwitch is one Resume plus one Yield. The body is
// bench.StackfulSwitch, which cmd/cobench runs too.
func BenchmarkStackfulSwitch(b *testing.B) { bench.StackfulSwitch(b) }

// BenchmarkIterPullSwitch is the same round trip on bare iter.Pull: one next
// plus one yield.
func BenchmarkIterPullSwitch(b *testing.B) { bench.IterPullSwitch(b) }

// BenchmarkStackfulCreateRelease creates a coroutine, runs it to its end
// (one Yield on the way) and releases it, with each stack mode: default,
// private128K (a 128 KiB private stack) and shared (a group of 16 carriers).
func BenchmarkStackfulCreateRelease(b *testing.B) {
	for _, mode := range bench.StackfulModes {
		b.Run(mode, func(b *testing.B) { bench.StackfulCreateRelease(b, mode) })
	}
}

// BenchmarkIterPullCreate is the same create, two switches and end on bare
// iter.Pull: the floor under BenchmarkStackfulCreateRelease/default.
func BenchmarkIterPullCreate(b *testing.B) { bench.IterPullCreate(b) }

package durabletest_test

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// The bodies are internal/bench's, which cobench's durable group runs.

func BenchmarkDurableSnapshot(b *testing.B) {
	for _, s := range bench.DurableShapes {
		b.Run(s.Name, func(b *testing.B) { bench.DurableSnapshot(b, s) })
	}
}

func BenchmarkDurableRestore(b *testing.B) {
	for _, s := range bench.DurableShapes {
		b.Run(s.Name, func(b *testing.B) { bench.DurableRestore(b, s) })
	}
}

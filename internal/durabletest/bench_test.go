package durabletest_test

import (
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// The bodies are internal/bench's, which cobench's durable group runs.

func BenchmarkSnapshot(b *testing.B) { bench.DurableSnapshot(b) }
func BenchmarkRestore(b *testing.B)  { bench.DurableRestore(b) }

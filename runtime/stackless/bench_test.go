//go:build linux

package stackless_test

import (
	"fmt"
	"testing"

	"github.com/cogen-go/cogen/internal/bench"
)

// The bodies of these benchmarks live in internal/bench, shared with
// cmd/cobench: 1,000 tasks take turns, so that the loop's one epoll_wait
// per round of its ready queue costs under 0.5 ns per switch, as in a
// loaded server, instead of dominating it.

// BenchmarkStacklessSwitch is one suspend and resume through the ready
// queue: a task calls Gosched, its waiter joins the back of the queue, and
// the loop steps it again once the tasks ahead of it have run.
func BenchmarkStacklessSwitch(b *testing.B) { bench.StacklessSwitch(b) }

// BenchmarkStacklessAwaitDepth is the same round with the waiting frame at
// the bottom of a chain of nested calls: a wake-up steps the innermost frame
// directly, so the cost per wake does not grow with the depth.
func BenchmarkStacklessAwaitDepth(b *testing.B) {
	for _, depth := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) { bench.StacklessGosched(b, depth) })
	}
}

// BenchmarkStacklessCreateRelease spawns a task with its frame in one
// allocation (SpawnFrame), runs it to its end through one Gosched and drops
// it: the stackless row of cobench's create group (goal: at most 100 ns,
// libco's is 159 ns). The "spawn" sub-benchmark allocates the frame apart
// and calls Spawn.
func BenchmarkStacklessCreateRelease(b *testing.B) {
	b.Run("frame", bench.StacklessCreateRelease)
	b.Run("spawn", bench.StacklessCreateReleaseSpawn)
	b.Run("pool", bench.StacklessPoolCreateRelease)
}

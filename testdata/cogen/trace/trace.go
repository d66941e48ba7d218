// Package trace records what a test program does, so that its stackful
// and stackless runs can be compared line by line.
package trace

import (
	"fmt"
	"math/rand"

	"github.com/cogen-go/cogen/runtime/loop"
)

// T is the trace of one run of a test program.
type T struct {
	Loop  *loop.Loop
	Seed  int64
	Rand  *rand.Rand // seeded with Seed: both runs see the same inputs
	lines []string
}

// New returns a trace for a run on l with inputs drawn from seed.
func New(l *loop.Loop, seed int64) *T {
	return &T{Loop: l, Seed: seed, Rand: rand.New(rand.NewSource(seed))}
}

// Printf appends a line.
func (t *T) Printf(format string, args ...any) {
	t.lines = append(t.lines, fmt.Sprintf(format, args...))
}

// Lines returns the lines so far.
func (t *T) Lines() []string { return t.lines }

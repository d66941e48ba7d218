//go:build unix

package main

import (
	"fmt"
	"os"
	"time"

	"github.com/cogen-go/cogen/internal/bench"
)

// runCheckpoint checkpoints s.durableN suspended durable tasks to disk and
// restores them, in a child process (bench.DurableCheckpoint).
func runCheckpoint(s settings, p *progress) ([]Row, error) {
	n := s.durableN
	p.step("durable: checkpoint %s suspended tasks to disk and restore them", count(n))
	var r bench.CheckpointResult
	if err := p.during(func() error {
		return runChild(task{Kind: "checkpoint", N: n}, 10*time.Minute, &r)
	}); err != nil {
		return nil, err
	}
	measure := fmt.Sprintf("checkpoint %s suspended tasks to disk and back (1 frame, two ints; length-prefixed through bufio, fsync)", count(n))
	note := fmt.Sprintf("%.1f bytes/task, %.1f MB file", r.BytesPerTask(), float64(r.Bytes)/1e6)
	if s.quick {
		note = joinNote(note, fmt.Sprintf("-quick: %s tasks, not 1M", count(n)))
	}
	rate := func(d time.Duration) (tasks, mb float64) {
		return float64(r.N) / d.Seconds(), float64(r.Bytes) / 1e6 / d.Seconds()
	}
	wt, wmb := rate(r.Write)
	rt, rmb := rate(r.Read)
	return []Row{
		{Group: "durable", Measure: measure, Model: "stackless Snapshot + write + fsync", Value: wt, Unit: "tasks/s", Base: true,
			Reference: "stackful, libco, goroutines: not possible", Note: joinNote(note, fmt.Sprintf("%.0f MB/s; %s in all", wmb, r.Write.Round(time.Millisecond)))},
		{Group: "durable", Measure: measure, Model: "stackless read + Restore (every task then run and checked)", Value: rt, Unit: "tasks/s",
			Note: joinNote(note, fmt.Sprintf("%.0f MB/s; %s in all", rmb, r.Read.Round(time.Millisecond)))},
	}, nil
}

// runCheckpointChild is the child's side: the file goes to a temporary
// directory, removed afterwards.
func runCheckpointChild(n int) (bench.CheckpointResult, error) {
	dir, err := os.MkdirTemp("", "cobench-durable-")
	if err != nil {
		return bench.CheckpointResult{}, err
	}
	defer os.RemoveAll(dir)
	return bench.DurableCheckpoint(n, dir)
}

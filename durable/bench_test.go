package durable_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/internal/testwf"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// BenchmarkDirStoreCheckpoint runs workflows of 20 steps (each a
// checkpoint committed to a directory store: a file written, fsynced and
// renamed, the directory fsynced) with 100 at a time in one runner; one op
// is one checkpoint.
func BenchmarkDirStoreCheckpoint(b *testing.B) {
	benchCheckpoints(b, b.TempDir())
}

// BenchmarkDirStoreCheckpointShm is BenchmarkDirStoreCheckpoint in
// /dev/shm (tmpfs: fsync costs nothing): the runner's and the store's CPU
// without the disk.
func BenchmarkDirStoreCheckpointShm(b *testing.B) {
	dir, err := os.MkdirTemp("/dev/shm", "durable-bench")
	if err != nil {
		b.Skip(err)
	}
	defer os.RemoveAll(dir)
	benchCheckpoints(b, dir)
}

func benchCheckpoints(b *testing.B, dir string) {
	const steps, width = 20, 100
	s, err := durable.OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := durable.NewRunner(s, durable.Options{Poll: time.Millisecond, Logf: b.Logf})
	go r.Run(context.Background())
	defer r.Close()
	n := (b.N + steps - 1) / steps
	b.ResetTimer()
	err = durable.Do(func(co *stackful.Co) error {
		for i := 0; i < n; i += width {
			var ids []durable.ID
			for j := i; j < min(i+width, n); j++ {
				id := durable.ID(fmt.Sprint("t", j))
				if err := durable.Start(co, s, id, testwf.NewCounterFrame(id, steps)); err != nil {
					return err
				}
				ids = append(ids, id)
			}
			for _, id := range ids {
				if _, err := durable.Await(co, s, id, time.Millisecond); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	st := r.Stats()
	b.ReportMetric(float64(st.Checkpoints)/b.Elapsed().Seconds(), "checkpoints/s")
}

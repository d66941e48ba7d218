//go:build unix

package bench

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cogen-go/cogen/internal/durabletest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// CheckpointResult is what DurableCheckpoint measured.
type CheckpointResult struct {
	N     int
	Bytes int64 // the file's size: every snapshot with its length prefix
	// Write is the time to snapshot the N tasks and write them through a
	// bufio.Writer, then flush, fsync and close the file.
	Write time.Duration
	// Read is the time to read the file back through a bufio.Reader and
	// Restore every task onto a loop.
	Read time.Duration
}

// BytesPerTask is the file's size over the tasks.
func (r CheckpointResult) BytesPerTask() float64 { return float64(r.Bytes) / float64(r.N) }

// checkpointX is the second int of every Pair task: task i returns i+checkpointX.
const checkpointX = 7

// DurableCheckpoint checkpoints n suspended durable tasks to a file in dir
// and restores them all, timing both halves (the creation of the tasks,
// the end of the originals and the check are not timed):
//
//   - n tasks of internal/durabletest's Pair (one frame, two ints) are
//     spawned on one loop and run to their Yield;
//   - each is snapshotted and written, its length first (a uvarint),
//     through a 1 MiB bufio.Writer; the file is flushed, fsynced and closed;
//   - the originals end (their loop closes) and are dropped;
//   - the file is read back through a bufio.Reader and every snapshot is
//     restored onto a new loop;
//   - then every restored task is resumed and run to completion, and each
//     must return its own key plus 7.
//
// The file is removed before it returns. Run it in a process of its own:
// a million tasks hold about 200 MB at a time.
func DurableCheckpoint(n int, dir string) (CheckpointResult, error) {
	r := CheckpointResult{N: n}
	path := filepath.Join(dir, "checkpoint.bin")
	defer os.Remove(path)

	l, err := loop.New()
	if err != nil {
		return r, err
	}
	tasks := make([]*stackless.Task, n)
	for i := range tasks {
		tasks[i] = stackless.Spawn(l, durabletest.NewPairFrame(i, checkpointX))
	}
	if err := l.RunOnce(); err != nil {
		l.Close()
		return r, err
	}
	for i, t := range tasks {
		if !t.Blocked() {
			l.Close()
			return r, fmt.Errorf("checkpoint: task %d is not suspended", i)
		}
	}

	t0 := time.Now()
	if r.Bytes, err = writeSnapshots(path, tasks); err != nil {
		l.Close()
		return r, err
	}
	r.Write = time.Since(t0)

	l.Close() // the originals run to their end
	tasks = nil
	runtime.GC()

	l2, err := loop.New()
	if err != nil {
		return r, err
	}
	defer l2.Close()
	t0 = time.Now()
	restored, err := readSnapshots(path, l2, n)
	if err != nil {
		return r, err
	}
	r.Read = time.Since(t0)
	return r, checkRestored(l2, restored)
}

// writeSnapshots writes a snapshot of every task to a new file at path,
// each after its length, and returns the file's size.
func writeSnapshots(path string, tasks []*stackless.Task) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var size int64
	var prefix [binary.MaxVarintLen64]byte
	for i, t := range tasks {
		data, err := stackless.Snapshot(t)
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("checkpoint: task %d: %w", i, err)
		}
		k := binary.PutUvarint(prefix[:], uint64(len(data)))
		w.Write(prefix[:k])
		w.Write(data)
		size += int64(k + len(data))
	}
	err = w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return size, err
}

// readSnapshots restores the n snapshots of the file at path onto l.
func readSnapshots(path string, l *loop.Loop, n int) ([]*stackless.Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := bufio.NewReaderSize(f, 1<<20)
	tasks := make([]*stackless.Task, n)
	var buf []byte
	for i := range tasks {
		size, err := binary.ReadUvarint(rd)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: snapshot %d: %w", i, err)
		}
		if uint64(cap(buf)) < size {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, fmt.Errorf("checkpoint: snapshot %d: %w", i, err)
		}
		if tasks[i], err = stackless.Restore(l, buf); err != nil {
			return nil, fmt.Errorf("checkpoint: snapshot %d: %w", i, err)
		}
	}
	if _, err := rd.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("checkpoint: bytes after %d snapshots", n)
	}
	return tasks, nil
}

// checkRestored resumes every restored task, runs l until they have all
// finished and checks each one's result.
func checkRestored(l *loop.Loop, tasks []*stackless.Task) error {
	results := make([]int, len(tasks))
	finished := 0
	durabletest.Finished = func(key, result int) {
		if key >= 0 && key < len(results) && results[key] == 0 {
			finished++
			results[key] = result
		}
	}
	defer func() { durabletest.Finished = func(int, int) {} }()
	for _, t := range tasks {
		t.Resume()
	}
	for finished < len(tasks) {
		before := finished
		if err := l.RunOnce(); err != nil {
			return err
		}
		if finished == before {
			return fmt.Errorf("checkpoint: %d of %d restored tasks finished, then none", finished, len(tasks))
		}
	}
	for key, got := range results {
		if got != key+checkpointX {
			return fmt.Errorf("checkpoint: restored task %d returned %d, want %d", key, got, key+checkpointX)
		}
	}
	return nil
}

// Command durable runs workflows that survive kill -9: each one is a
// //co:stackless durable function whose task is snapshotted to a file at
// every step (written to a temporary file and renamed over the previous
// checkpoint, so a checkpoint on disk is always whole), and a restarted
// process restores every unfinished workflow from its checkpoint and goes
// on from there. A finished workflow writes its trace to a done file,
// created once: the done file is the commit point, so a workflow completes
// exactly once however often the process dies.
//
//	durable -dir state -n 12
//
// The checkpoints need no fsync against a killed process (the kernel keeps
// what was written); surviving a power loss would need one before the
// rename, and one of the directory after it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func main() {
	dir := flag.String("dir", "durable-state", "directory of the checkpoints and done files")
	n := flag.Int("n", 12, "workflows")
	seed := flag.Uint64("seed", 1, "seed of the workflows' choices")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("durable: ")
	if err := run(*dir, *n, *seed); err != nil {
		log.Fatal(err)
	}
}

// The process's workflows, all on one loop.
var (
	stateDir string
	tasks    = map[int]*stackless.Task{}
	pending  []int // workflows that asked for a checkpoint
	saver    *stackless.Task
)

func ckptPath(id int) string { return filepath.Join(stateDir, fmt.Sprintf("wf%d.ckpt", id)) }
func donePath(id int) string { return filepath.Join(stateDir, fmt.Sprintf("wf%d.done", id)) }

// run finishes the workflows 0..n-1 that have not finished: restored from
// their checkpoints, or started.
func run(dir string, n int, seed uint64) error {
	stateDir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	l, err := loop.New()
	if err != nil {
		return err
	}
	defer l.Close()
	saver = stackless.Spawn(l, &saverFrame{})
	var all []*stackless.Task
	for id := range n {
		// A temporary file is left by a process killed between writing
		// it and renaming (a checkpoint) or linking and removing it (a
		// done file): no other process writes here, so it is garbage.
		for _, tmp := range []string{ckptPath(id) + ".tmp", donePath(id) + ".tmp"} {
			if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		if _, err := os.Stat(donePath(id)); err == nil {
			os.Remove(ckptPath(id)) // killed between the commit and this removal
			continue
		}
		var t *stackless.Task
		data, err := os.ReadFile(ckptPath(id))
		switch {
		case err == nil:
			if t, err = stackless.Restore(l, data); err != nil {
				return fmt.Errorf("workflow %d: %w", id, err)
			}
		case errors.Is(err, os.ErrNotExist):
			t = stackless.Spawn(l, NewWorkflowFrame(id, seed+uint64(id)))
		default:
			return err
		}
		tasks[id] = t
		all = append(all, t)
	}
	if err := stackless.Run(l, all...); err != nil {
		return err
	}
	return saveErr
}

// requestSave asks the saver to checkpoint workflow id at its coming
// suspension: resumed now, the saver is queued ahead of the workflow.
func requestSave(id int) {
	pending = append(pending, id)
	saver.Resume()
}

var saveErr error

// saverFrame is the task that writes checkpoints: each time it is resumed
// it snapshots the workflows that asked, which are suspended in their save.
type saverFrame struct{ stackless.Base }

func (f *saverFrame) Step(t *stackless.Task) stackless.Status {
	for {
		if t.Yield(); t.Blocked() {
			return stackless.Suspend
		}
		for _, id := range pending {
			data, err := stackless.Snapshot(tasks[id])
			if err == nil {
				err = writeAtomic(ckptPath(id), data)
			}
			if err != nil && saveErr == nil {
				saveErr = fmt.Errorf("checkpoint of workflow %d: %w", id, err)
				tasks[id].Cancel()
			}
		}
		pending = pending[:0]
	}
}

// writeAtomic replaces path with data: a reader sees the old or the new
// content, never a part.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// complete commits a finished workflow: its done file is created once
// (a hard link fails if it exists), then its checkpoint is removed. A
// second completion would leave a dup file, which the test looks for.
func complete(id int, trace []string) {
	tmp := donePath(id) + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(trace, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Link(tmp, donePath(id)); err != nil {
		if errors.Is(err, os.ErrExist) {
			os.WriteFile(filepath.Join(stateDir, fmt.Sprintf("wf%d.dup", id)), nil, 0o644)
		} else {
			log.Fatal(err)
		}
	}
	os.Remove(tmp)
	os.Remove(ckptPath(id))
}

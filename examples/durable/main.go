// Command durable runs workflows that survive kill -9: each one is a
// //co:stackless durable function run by a durable.Runner from a
// directory store (durable.OpenDir), which commits the workflow's
// snapshot at every checkpoint (written to a temporary file, fsynced and
// renamed). A restarted process finds the unfinished workflows in the
// store and resumes each from its last checkpoint; a finished workflow's
// trace is its result in the store, committed once with its end.
//
//	durable -dir state -n 12
//
// Starting a workflow is idempotent (its ID is its number): a process
// killed while starting them starts the missing ones the next time.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func main() {
	dir := flag.String("dir", "durable-state", "directory of the task store")
	n := flag.Int("n", 12, "workflows")
	seed := flag.Uint64("seed", 1, "seed of the workflows' choices")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("durable: ")
	if err := run(*dir, *n, *seed); err != nil {
		log.Fatal(err)
	}
}

func wfID(i int) durable.ID { return durable.ID(fmt.Sprint("wf", i)) }

// run finishes the workflows 0..n-1 that have not finished: resumed from
// their checkpoints, or started.
func run(dir string, n int, seed uint64) error {
	s, err := durable.OpenDir(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	r := durable.NewRunner(s, durable.Options{Poll: 10 * time.Millisecond})
	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(context.Background()) }()
	err = durable.Do(func(co *stackful.Co) error {
		for i := range n {
			err := durable.Start(co, s, wfID(i), NewWorkflowFrame(wfID(i), i, seed+uint64(i)))
			if err != nil && !errors.Is(err, durable.ErrExists) {
				return err
			}
		}
		for i := range n {
			in, err := durable.Await(co, s, wfID(i), 5*time.Millisecond)
			if err != nil {
				return err
			}
			if in.State != durable.Done {
				return fmt.Errorf("workflow %d: %s: %s", i, in.State, in.Error)
			}
		}
		return nil
	})
	r.Close()
	if rerr := <-runErr; err == nil {
		err = rerr
	}
	return err
}

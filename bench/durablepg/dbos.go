package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// DBOS Transact for Go runs the workload as documented: the workflow is a
// registered function, each step a dbos.RunAsStep (its output, the step's
// h, is checkpointed as a row of operation_outputs), each workflow started
// by dbos.RunWorkflow and awaited through its handle. Its system database
// lives in its own schema of the same PostgreSQL; its pool is DBOS's
// default (20 connections).

// dbosSchema is the schema of DBOS's system tables in the benchmark.
const dbosSchema = "durablepg_dbos"

// dbosExecutor is the executor ID of every DBOS worker of the benchmark: a
// DBOS process recovers, when it launches, the pending workflows of its
// own executor ID, so the worker that replaces a killed one takes its ID.
const dbosExecutor = "durablepg"

// dbosWorkflow is the workload's workflow: n steps from seed s.
func dbosWorkflow(ctx dbos.Context, in dbosInput) (uint64, error) {
	h := in.Seed
	for i := range in.N {
		v, err := dbos.RunAsStep(ctx, func(context.Context) (uint64, error) {
			return mix(h + uint64(i)), nil
		}, dbos.WithStepName("mix"))
		if err != nil {
			return 0, err
		}
		h = v
	}
	return h, nil
}

type dbosInput struct {
	Seed uint64
	N    int
}

type dbosEngine struct {
	ctx dbos.Context
}

// launchDBOS creates the DBOS context (migrating its schema), registers
// the workflow and launches it, which recovers the pending workflows of
// dbosExecutor.
func launchDBOS(url string) (*dbosEngine, error) {
	ctx, err := dbos.NewContext(context.Background(), dbos.Config{
		DatabaseURL:    url,
		AppName:        "durablepg",
		DatabaseSchema: dbosSchema,
		ExecutorID:     dbosExecutor,
		// The application version is derived from the binary otherwise;
		// a fixed one lets the replacement of a killed worker recover its
		// workflows whatever binary it runs.
		ApplicationVersion: "durablepg-1",
		Logger:             slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return nil, fmt.Errorf("dbos: %w", err)
	}
	dbos.RegisterWorkflow(ctx, dbosWorkflow, dbos.WithWorkflowName("durablepg.workflow"))
	if err := dbos.Launch(ctx); err != nil {
		return nil, fmt.Errorf("dbos: launch: %w", err)
	}
	return &dbosEngine{ctx: ctx}, nil
}

func (e *dbosEngine) close() { dbos.Shutdown(e.ctx, 10*time.Second) }

// run runs workflow seed (1..) to its end.
func (e *dbosEngine) run(seed uint64, n int) (uint64, error) {
	h, err := dbos.RunWorkflow(e.ctx, dbosWorkflow, dbosInput{Seed: seed, N: n})
	if err != nil {
		return 0, err
	}
	return h.GetResult()
}

// dbosPending is the query counting the workflows not finished.
const dbosPending = `SELECT count(*) FROM "` + dbosSchema + `".workflow_status WHERE status IN ('PENDING', 'ENQUEUED')`

// load keeps c workflows in flight from c goroutines, each running one
// workflow after another to its end, as a DBOS application does.
func (e *dbosEngine) load(w, c, n int, done func(uint64)) error {
	var next atomic.Int64
	errs := make(chan error, c)
	for range c {
		go func() {
			for {
				s := next.Add(1)
				if s > int64(w) {
					errs <- nil
					return
				}
				h, err := e.run(uint64(s), n)
				if err != nil {
					errs <- fmt.Errorf("dbos: workflow %d: %w", s, err)
					return
				}
				done(h)
			}
		}()
	}
	var err error
	for range c {
		err = errors.Join(err, <-errs)
	}
	return err
}

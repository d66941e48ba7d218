package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/pgstore"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// cogen's durable runner runs the workload from its PostgreSQL store: each
// workflow is started with durable.Start (a row holding the snapshot of
// the not-started frame), the runner of the worker claims it, runs it to
// each Gosched and commits the snapshot there (one statement: the fenced
// UPDATE of the task's row, the lease renewed in it) before the next
// step. The load keeps c workflows started and not finished, as DBOS's c
// goroutines do: a starter coroutine takes a slot of a semaphore of c
// before each Start, and each workflow's committed end gives one back.

// cogenSchema is the schema of the store in the benchmark.
const cogenSchema = "durablepg_cogen"

// cogenPending is the query counting the workflows not finished.
const cogenPending = `SELECT count(*) FROM "` + cogenSchema + `".tasks WHERE state IN ('running', 'sleeping', 'waiting')`

// cogenStarters is the number of coroutines starting workflows: Starts
// overlap, as DBOS's RunWorkflow calls from c goroutines do.
const cogenStarters = 8

type cogenEngine struct {
	store  *pgstore.Store
	runner *durable.Runner
	stop   context.CancelFunc
	ran    chan error
}

// openCogen opens the store (creating its schema) and starts the runner
// on its own loops.
func openCogen(cfg workerConfig) (*cogenEngine, error) {
	st, err := pgstore.OpenURL(cfg.url, pgstore.Options{Schema: cogenSchema, Conns: cfg.conns})
	if err != nil {
		return nil, err
	}
	// The schema is created on the store's first use: not in the load.
	if err := durable.Do(func(co *stackful.Co) error {
		_, err := st.Get(co, "none")
		if errors.Is(err, durable.ErrNotFound) {
			return nil
		}
		return err
	}); err != nil {
		st.Close()
		return nil, fmt.Errorf("cogen: opening the store: %w", err)
	}
	r := durable.NewRunner(st, durable.Options{
		Worker:   cogenWorker,
		Lease:    cfg.lease,
		MaxTasks: cfg.c,
		Loops:    cfg.loops,
		Poll:     cfg.poll,
		Logf:     log.Printf,
	})
	ctx, stop := context.WithCancel(context.Background())
	e := &cogenEngine{store: st, runner: r, stop: stop, ran: make(chan error, 1)}
	go func() { e.ran <- r.Run(ctx) }()
	return e, nil
}

// cogenWorker is the worker name of every runner of the benchmark, as
// dbosExecutor is DBOS's executor ID: one worker runs at a time, and the
// one that replaces a killed one takes its name, and with it (at its
// start, durable.WorkerReleaser) the killed one's tasks.
const cogenWorker = "durablepg"

func (e *cogenEngine) close() {
	e.stop()
	if err := <-e.ran; err != nil {
		log.Printf("cogen: runner: %v", err)
	}
	e.store.Close()
}

// load starts workflows 1..w from cogenStarters coroutines of an env of
// its own, at most c started and not finished, and returns once the
// runner has committed the end of all of them.
func (e *cogenEngine) load(w, c, n int, done func(uint64)) error {
	env, err := stackful.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()
	// A slot is given back once the runner has committed a workflow's
	// end (Stats.Done), checked by the main coroutine every millisecond.
	slots := cosync.NewSemaphore(int64(c))
	slots.Bind(env.Loop())
	done0 := e.runner.Stats().Done
	onFinish.Store(&done)
	defer onFinish.Store(nil)
	var next atomic.Int64
	var startErr error
	for range cogenStarters {
		env.Create(func(co *stackful.Co) {
			for startErr == nil {
				if err := slots.Acquire(co, 1); err != nil {
					startErr = err
					return
				}
				s := next.Add(1)
				if s > int64(w) {
					slots.Release(1)
					return
				}
				id := durable.ID("w" + strconv.FormatInt(s, 10))
				if err := durable.Start(co, e.store, id, NewWorkflowFrame(id, uint64(s), n)); err != nil {
					startErr = fmt.Errorf("cogen: start %s: %w", id, err)
					return
				}
			}
		}, nil).Resume()
	}
	// The main coroutine's Sleep runs the loop (the starters) until the
	// runner has committed every end.
	main := env.Main()
	for released := int64(0); startErr == nil && released < int64(w); main.Sleep(time.Millisecond) {
		for d := e.runner.Stats().Done - done0; released < d; released++ {
			slots.Release(1)
		}
	}
	return startErr
}

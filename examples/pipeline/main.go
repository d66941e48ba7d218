// Pipeline is a multi-stage pipeline on runtime/cosync, written once and
// run in either coroutine model: a generator feeds items on a channel to a
// pool of workers, which square them, count them in a mutex-guarded shared
// map and send the results to a collector; a wait group closes the results
// channel when the workers are done, and the collector gives up at a
// deadline through a select with a timeout. The coroutines are in package
// stages, marked //co:stackless; -model stackless runs their generated
// frames, -model stackful the source itself. Both print the same.
//
// Usage:
//
//	pipeline [-model stackless|stackful] [-n items] [-workers n] [-work d] [-deadline d]
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/cogen-go/cogen/examples/pipeline/stages"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("pipeline: ")
	var c config
	flag.StringVar(&c.model, "model", "stackless", "coroutine model: stackless (generated frames) or stackful")
	flag.IntVar(&c.items, "n", 20, "items through the pipeline")
	flag.IntVar(&c.workers, "workers", 4, "workers in the pool")
	flag.DurationVar(&c.work, "work", time.Millisecond, "a worker's time per item")
	flag.DurationVar(&c.deadline, "deadline", 10*time.Second, "the collector's deadline")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, c); err != nil {
		log.Fatal(err)
	}
}

type config struct {
	model          string
	items, workers int
	work, deadline time.Duration
}

// run builds the pipeline on a new loop, runs it until the collector ends,
// then closes the loop (which ends any stage still blocked, after a
// deadline) and prints what the collector and the tally saw.
func run(out io.Writer, c config) error {
	if c.model != "stackless" && c.model != "stackful" {
		return fmt.Errorf("unknown model %q (stackless or stackful)", c.model)
	}
	l, err := loop.New()
	if err != nil {
		return err
	}
	items := cosync.NewChan[int](0)
	results := cosync.NewChan[stages.Result](c.workers)
	tally := stages.NewTally()
	var wg cosync.WaitGroup
	wg.Add(c.workers)
	var sum stages.Summary
	var done func() bool
	var env *stackful.Env
	if c.model == "stackful" {
		env = stackful.NewEnvOn(l)
		start := func(fn func(co *stackful.Co)) *stackful.Co {
			co := env.Create(fn, nil)
			co.Resume()
			return co
		}
		col := start(func(co *stackful.Co) { stages.Collect(co, l, results, c.deadline, &sum) })
		start(func(co *stackful.Co) { stages.CloseWhenDone(co, &wg, results) })
		for id := range c.workers {
			start(func(co *stackful.Co) { stages.Worker(co, id, items, results, tally, c.work, &wg) })
		}
		start(func(co *stackful.Co) { stages.Generate(co, items, c.items) })
		done = func() bool { return col.Status() == stackful.Dead }
	} else {
		col := stackless.Spawn(l, stages.NewCollectFrame(l, results, c.deadline, &sum))
		stackless.Spawn(l, stages.NewCloseWhenDoneFrame(&wg, results))
		for id := range c.workers {
			stackless.Spawn(l, stages.NewWorkerFrame(id, items, results, tally, c.work, &wg))
		}
		stackless.Spawn(l, stages.NewGenerateFrame(items, c.items))
		done = col.Done
	}
	if !done() {
		if err := l.Run(done); err != nil {
			return err
		}
	}
	if env != nil {
		if err := env.Close(); err != nil { // unwinds the stages a deadline left blocked
			return err
		}
	}
	if err := l.Close(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d items through %d workers\n", c.model, c.items, c.workers)
	if sum.TimedOut {
		fmt.Fprintf(out, "deadline %v passed after %d of %d results\n", c.deadline, sum.Items, c.items)
		return nil
	}
	fmt.Fprintf(out, "collected %d results, sum of squares %d\n", sum.Items, sum.SumSquares)
	fmt.Fprintf(out, "per shard:")
	for s := range stages.Shards {
		fmt.Fprintf(out, " %d:%d", s, tally.PerShard[s])
	}
	fmt.Fprintf(out, "\nmost workers inside the critical section at once: %d\n", tally.MaxIn)
	return nil
}

//go:build linux

package main

import (
	"math/rand/v2"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// A pipeline round sends n values from a producer through a random number
// of workers to a collector over cosync channels of random capacities, and
// checks every value arrives exactly once. Rounds follow each other on one
// loop until stopped.
type pipeline struct {
	s    *soak
	name string
	l    *loop.Loop
	rng  *rand.Rand
	// start launches the round's coroutines or tasks.
	start func(p *pipeline, src, mid *cosync.Chan[int], n, workers int)

	seen    []int
	bad     int
	live    int // workers still running
	done    func() bool
	stopped bool // no new round
	timer   loop.Timer
	rounds  int
}

// pipelineCheck is how often a pipeline looks whether its round is over.
const pipelineCheck = 5 * time.Millisecond

// pipelineGap is the pause between rounds, which leaves the loop to the
// servers now and then.
const pipelineGap = 20 * time.Millisecond

func (p *pipeline) run() { p.l.Reset(&p.timer, 0, p.tick) }

func (p *pipeline) tick() {
	if p.done != nil {
		if !p.done() {
			p.l.Reset(&p.timer, pipelineCheck, p.tick)
			return
		}
		p.verify()
		p.done = nil
		if !p.stopped {
			p.l.Reset(&p.timer, pipelineGap, p.tick)
		}
		return
	}
	if p.stopped {
		return
	}
	n := 1 + p.rng.IntN(5000)
	workers := 1 + p.rng.IntN(16)
	src := cosync.NewChanOn[int](p.l, p.rng.IntN(9))
	mid := cosync.NewChanOn[int](p.l, p.rng.IntN(9))
	p.seen = make([]int, n)
	p.bad = 0
	p.live = workers
	p.start(p, src, mid, n, workers)
	p.rounds++
	p.l.Reset(&p.timer, pipelineCheck, p.tick)
}

func (p *pipeline) verify() {
	missing, dup := 0, 0
	for _, c := range p.seen {
		switch {
		case c == 0:
			missing++
		case c > 1:
			dup += c - 1
		}
	}
	if missing != 0 || dup != 0 || p.bad != 0 {
		p.s.fail("%s pipeline: %d values: %d missing, %d duplicated, %d never sent", p.name, len(p.seen), missing, dup, p.bad)
		p.s.lost.Add(int64(missing))
	}
	p.s.values.Add(int64(len(p.seen) - missing))
}

// stop ends the pipeline after its current round; finished reports when.
func (p *pipeline) stop() { p.stopped = true }

func (p *pipeline) finished() bool { return p.stopped && p.done == nil && !p.timer.Scheduled() }

func newStackfulPipeline(s *soak, env *stackful.Env) *pipeline {
	return &pipeline{s: s, name: "stackful", l: env.Loop(), rng: s.rng(4),
		start: func(p *pipeline, src, mid *cosync.Chan[int], n, workers int) {
			var cos []*stackful.Co
			spawn := func(fn func(co *stackful.Co)) { c := env.Create(fn, nil); c.Resume(); cos = append(cos, c) }
			spawn(func(co *stackful.Co) { collect(co, mid, p.seen, &p.bad) })
			for range workers {
				spawn(func(co *stackful.Co) { work(co, src, mid, &p.live) })
			}
			spawn(func(co *stackful.Co) { produce(co, src, n) })
			p.done = func() bool {
				for _, c := range cos {
					if c.Status() != stackful.Dead {
						return false
					}
				}
				return true
			}
		}}
}

func newStacklessPipeline(s *soak, l *loop.Loop, mine *[]*stackless.Task) *pipeline {
	return &pipeline{s: s, name: "stackless", l: l, rng: s.rng(5),
		start: func(p *pipeline, src, mid *cosync.Chan[int], n, workers int) {
			var ts []*stackless.Task
			ts = append(ts, stackless.Spawn(l, newCollectFrame(mid, p.seen, &p.bad)))
			for range workers {
				ts = append(ts, stackless.Spawn(l, newWorkFrame(src, mid, &p.live)))
			}
			ts = append(ts, stackless.Spawn(l, newProduceFrame(src, n)))
			*mine = append(*mine, ts...)
			p.done = func() bool {
				for _, t := range ts {
					if !t.Done() {
						return false
					}
				}
				return true
			}
		}}
}

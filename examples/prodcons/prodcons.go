package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Para is the state the producer and the consumers share (libco's
// stPara_t): a condition variable, the queue of data, the last data id and
// the last coroutine id handed out.
type Para struct {
	Cond     loop.Cond
	Rounds   int           // rounds the producer runs (libco's runs forever)
	Interval time.Duration // the producer's pause between rounds
	Out      io.Writer

	data []int
	id   int
	cid  int
	done bool
	rng  *rand.Rand
}

// NewPara returns the shared state of a run; seed fixes how many items each
// round produces (libco uses rand() % 5 + 1).
func NewPara(out io.Writer, rounds int, interval time.Duration, seed uint64) *Para {
	return &Para{Rounds: rounds, Interval: interval, Out: out, rng: rand.New(rand.NewPCG(seed, seed))}
}

// Producer adds one to five items per round, signals one consumer and
// pauses with poll(NULL, 0, interval), as libco's example_cond does; after
// the last round it tells the consumers to stop.
//
//co:stackless
func Producer(co *stackful.Co, p *Para) {
	p.cid++
	cid := p.cid
	for round := 0; round < p.Rounds; round++ {
		for i := p.rng.IntN(5) + 1; i > 0; i-- {
			p.id++
			p.data = append(p.data, p.id)
			fmt.Fprintf(p.Out, "[%d] + add new data:%d\n", cid, p.id)
		}
		p.Cond.Signal()
		co.Poll(nil, p.Interval)
	}
	p.done = true
	p.Cond.Broadcast()
}

// Consumer takes items off the queue and waits on the condition variable
// whenever it is empty, until the producer is done.
//
//co:stackless
func Consumer(co *stackful.Co, p *Para) {
	p.cid++
	cid := p.cid
	for {
		if len(p.data) == 0 {
			if p.done {
				return
			}
			co.Wait(&p.Cond, -1)
			continue
		}
		fmt.Fprintf(p.Out, "[%d] - del data:%d\n", cid, p.data[0])
		p.data = p.data[1:]
	}
}

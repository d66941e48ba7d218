package cosync_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// TestStressConservation runs actors doing random sends, receives and
// selects with random timeouts on a few channels, cancels random stackless
// tasks meanwhile, then drains the channels: every value whose send
// succeeded was received exactly once, and no value was received that was
// not sent. A value lost to a timeout or a cancel racing its hand-over, or
// delivered twice, fails it.
func TestStressConservation(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	forModels(t, func(t *testing.T, m Model) {
		for seed := range uint64(seeds) {
			stressOnce(t, m, seed)
		}
	})
}

func stressOnce(t *testing.T, m Model, seed uint64) {
	e := NewEnv(t)
	rng := rand.New(rand.NewPCG(seed, 99))
	chans := make([]*cosync.Chan[int], 1+rng.IntN(3))
	for i := range chans {
		chans[i] = cosync.NewChan[int](rng.IntN(3))
	}
	g := NewLedger()
	actors := 4 + rng.IntN(8)
	for id := range actors {
		e.Go(m, func(co *stackful.Co) { StressActor(co, id, chans, seed, 60, g) },
			func() stackless.Frame { return NewStressActorFrame(id, chans, seed, 60, g) })
	}
	if m == Stackless {
		for i := range actors / 3 {
			task := e.Task(rng.IntN(actors))
			e.L.AfterFunc(time.Duration(200+i*300)*time.Microsecond, task.Cancel)
		}
	}
	// Every 2 ms the channels are drained and then fed with fillers (-1, -2, ...),
	// which releases actors blocked without a timeout once the others
	// are done.
	filler := -1
	var tick loop.Timer
	var drain func()
	drain = func() {
		for _, c := range chans {
			for {
				v, ok, ready := c.TryRecv()
				if !ready || !ok {
					break
				}
				g.Received[v]++
			}
			for c.TrySend(filler) {
				g.Sent[filler]++
				filler--
				if m == Stackless && rng.IntN(2) == 0 {
					// Right after a hand-over: the receiver may be the
					// task canceled, before its call is made again.
					e.Task(rng.IntN(actors)).Cancel()
				}
			}
		}
		e.L.Reset(&tick, 2*time.Millisecond, drain)
	}
	e.L.Reset(&tick, 2*time.Millisecond, drain)
	e.RunUntilDone(20 * time.Second)
	e.L.CancelTimer(&tick)
	for _, c := range chans {
		for {
			v, ok, ready := c.TryRecv()
			if !ready || !ok {
				break
			}
			g.Received[v]++
		}
	}
	for v, n := range g.Sent {
		if n != 1 || g.Received[v] != 1 {
			t.Fatalf("seed %d %s: value %d sent %d times, received %d times", seed, m, v, n, g.Received[v])
		}
	}
	for v, n := range g.Received {
		if g.Sent[v] != n {
			t.Fatalf("seed %d %s: value %d received %d times, sent %d times", seed, m, v, n, g.Sent[v])
		}
	}
	if testing.Verbose() {
		t.Logf("seed %d %s: %d actors, %d ops, %d values sent, %d fillers", seed, m, actors, g.Ops, len(g.Sent), -1-filler)
	}
}

package costest

import (
	"math/rand/v2"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// A Ledger counts values sent and received, so that a stress run can check
// that every value sent was received exactly once.
type Ledger struct {
	Sent, Received map[int]int
	Ops            int
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{Sent: map[int]int{}, Received: map[int]int{}} }

// StressActor performs ops random operations on chans (send, receive, each
// with a random timeout, or a select over two channels with a timeout),
// recording in g what was sent and received. Values are id*1e6+i, unique
// per operation. A canceled task's operations fail at once, so it ends
// soon.
//
//co:stackless
func StressActor(co *stackful.Co, id int, chans []*cosync.Chan[int], seed uint64, ops int, g *Ledger) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	for i := 0; i < ops; i++ {
		v := id*1_000_000 + i
		c := chans[rng.IntN(len(chans))]
		d := chans[rng.IntN(len(chans))]
		timeout := time.Duration(rng.IntN(4)-1) * 200 * time.Microsecond // -1 (forever), 0, 200 or 400 µs
		g.Ops++
		switch rng.IntN(3) {
		case 0:
			if err := c.SendTimeout(co, v, timeout); err == nil {
				g.Sent[v]++
			}
		case 1:
			w, ok, err := c.RecvTimeout(co, timeout)
			if err == nil && ok {
				g.Received[w]++
			}
		default:
			var w int
			var ok bool
			switch cosync.Select(co, c.RecvCase(&w, &ok), d.SendCase(v), cosync.After(timeout)) {
			case 0:
				if ok {
					g.Received[w]++
				}
			case 1:
				g.Sent[v]++
			}
		}
	}
}

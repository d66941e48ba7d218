//go:build unix

package bench

//go:generate go tool cogen

import (
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// The coroutines of the chan group, written once and generated into
// stackless frames (chanco_cogen.go).

// pinger waits for start, then sends n values on ping and waits for each
// one's answer on pong.
//
//co:stackless
func pinger(co *stackful.Co, start *cosync.WaitGroup, ping, pong *cosync.Chan[int], n int) {
	start.Wait(co)
	for i := 0; i < n; i++ {
		ping.Send(co, i)
		pong.Recv(co)
	}
	ping.Close()
}

// ponger answers every value received on ping on pong, until ping closes.
//
//co:stackless
func ponger(co *stackful.Co, ping, pong *cosync.Chan[int]) {
	for {
		v, ok := ping.Recv(co)
		if !ok {
			return
		}
		pong.Send(co, v)
	}
}

// feeder waits for start, then sends n values on work and closes it.
//
//co:stackless
func feeder(co *stackful.Co, start *cosync.WaitGroup, work *cosync.Chan[int], n int) {
	start.Wait(co)
	for i := 0; i < n; i++ {
		work.Send(co, i)
	}
	work.Close()
}

// poolWorker doubles every value of work onto results until work closes,
// then marks itself done.
//
//co:stackless
func poolWorker(co *stackful.Co, work, results *cosync.Chan[int], wg *cosync.WaitGroup) {
	for {
		v, ok := work.Recv(co)
		if !ok {
			wg.Done()
			return
		}
		results.Send(co, 2*v)
	}
}

// collector receives n results and sums them into *sum.
//
//co:stackless
func collector(co *stackful.Co, results *cosync.Chan[int], n int, sum *int) {
	for i := 0; i < n; i++ {
		v, _ := results.Recv(co)
		*sum += v
	}
}

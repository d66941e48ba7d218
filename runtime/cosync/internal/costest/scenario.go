package costest

import (
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Sender sends vals on c in order, logging each send's outcome as
// "<name> sent <v>" or "<name> send <v>: <err>".
//
//co:stackless
func Sender(co *stackful.Co, c *cosync.Chan[int], vals []int, name string, log *Log) {
	for _, v := range vals {
		if err := c.Send(co, v); err != nil {
			log.Add("%s send %d: %v", name, v, err)
			return
		}
		log.Add("%s sent %d", name, v)
	}
}

// Receiver receives up to n values from c (n < 0: until it is closed),
// logging "<name> got <v>", then "<name> closed" if it is.
//
//co:stackless
func Receiver(co *stackful.Co, c *cosync.Chan[int], n int, name string, log *Log) {
	for i := 0; n < 0 || i < n; i++ {
		v, ok := c.Recv(co)
		if !ok {
			log.Add("%s closed", name)
			return
		}
		log.Add("%s got %d", name, v)
	}
}

// TimedRecv receives once with a timeout and logs the outcome.
//
//co:stackless
func TimedRecv(co *stackful.Co, c *cosync.Chan[int], timeout time.Duration, name string, log *Log) {
	v, ok, err := c.RecvTimeout(co, timeout)
	log.Add("%s recv %d %v %v", name, v, ok, err)
}

// TimedSend sends once with a timeout and logs the outcome.
//
//co:stackless
func TimedSend(co *stackful.Co, c *cosync.Chan[int], v int, timeout time.Duration, name string, log *Log) {
	err := c.SendTimeout(co, v, timeout)
	log.Add("%s send %d %v", name, v, err)
}

// Echo receives from in and sends each value plus one to out until in is
// closed; then it closes out. It is one side of the ping-pong benchmark.
//
//co:stackless
func Echo(co *stackful.Co, in, out *cosync.Chan[int]) {
	for {
		v, ok := in.Recv(co)
		if !ok {
			out.Close()
			return
		}
		out.Send(co, v+1)
	}
}

// Pinger sends 0 to n-1 on ping, waiting for each answer on pong and
// counting the round trips in *trips; then it closes ping.
//
//co:stackless
func Pinger(co *stackful.Co, ping, pong *cosync.Chan[int], n int, trips *int) {
	for i := 0; i < n; i++ {
		ping.Send(co, i)
		pong.Recv(co)
		*trips++
	}
	ping.Close()
}

// Spinner moves to the back of the loop's ready queue k times, recording
// *trips after each.
//
//co:stackless
func Spinner(co *stackful.Co, k int, trips *int, seen *[]int) {
	for i := 0; i < k; i++ {
		co.Gosched()
		*seen = append(*seen, *trips)
	}
}

//go:build linux

package stackless_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// sendFrame is the stackless form of
//
//	for i := range n { ch.Send(t, [2]int{id, i}) }
//	done <- id
type sendFrame struct {
	stackless.Base
	ch    *cosync.Chan[[2]int]
	id, n int
	i     int
	done  chan<- int
}

func (f *sendFrame) Step(t *stackless.Task) stackless.Status {
	for ; f.i < f.n; f.i++ {
		err := f.ch.Send(t, [2]int{f.id, f.i})
		if t.Blocked() {
			return stackless.Suspend
		}
		if err != nil {
			panic(err)
		}
	}
	f.done <- f.id
	return stackless.Done
}

// recvFrame receives until the channel is closed and hands what it got to
// out.
type recvFrame struct {
	stackless.Base
	ch  *cosync.Chan[[2]int]
	got [][2]int
	out chan<- [][2]int
}

func (f *recvFrame) Step(t *stackless.Task) stackless.Status {
	for {
		v, ok := f.ch.Recv(t)
		if t.Blocked() {
			return stackless.Suspend
		}
		if !ok {
			f.out <- f.got
			return stackless.Done
		}
		f.got = append(f.got, v)
	}
}

// TestGroupCosyncHandOff hands values across the loops of a stackless group
// through one cosync channel bound to loop 0: a sender task on each loop,
// the receiver on loop 1 (the other loop). Every value arrives once, each
// sender's in its order, and a close from a goroutine outside the group
// ends the receiver. Run it with -race.
func TestGroupCosyncHandOff(t *testing.T) {
	const per = 300
	g, err := stackless.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	ch := cosync.NewChanOn[[2]int](g.Loop(0), 0)
	out := make(chan [][2]int, 1)
	done := make(chan int, 2)
	g.Spawn(1, &recvFrame{ch: ch, out: out})
	for i := range 2 {
		g.Spawn(i, &sendFrame{ch: ch, id: i, n: per, done: done})
	}
	<-done
	<-done
	ch.GoClose()
	var vs [][2]int
	select {
	case vs = <-out:
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver did not finish")
	}
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	next := make([]int, 2)
	for _, v := range vs {
		if v[1] != next[v[0]] {
			t.Fatalf("sender %d's value %d arrived when %d was due", v[0], v[1], next[v[0]])
		}
		next[v[0]]++
	}
	if !slices.Equal(next, []int{per, per}) {
		t.Errorf("values received per sender %v, want %d each", next, per)
	}
}

//go:build linux

package stackful_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestGroupCosyncHandOff hands values across the envs of a group through
// one cosync channel bound to env 0's loop: a producer on each env and a
// goroutine outside the group send, a consumer on env 1 (the other loop)
// receives. Every value arrives once, each sender's in its order, and a
// Close made from env 1 ends the consumer. Run it with -race.
func TestGroupCosyncHandOff(t *testing.T) {
	gs := runtime.NumGoroutine()
	const per = 300
	g, err := stackful.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	ch := cosync.NewChanOn[[2]int](g.Loop(0), 4) // [sender, seq]
	got := make(chan [][2]int, 1)
	g.Go(1, func(co *stackful.Co) { // the consumer, on the other loop
		var vs [][2]int
		for {
			v, ok := ch.Recv(co)
			if !ok {
				break
			}
			vs = append(vs, v)
		}
		got <- vs
	})
	sent := make(chan int, 3)
	for env := range 2 {
		g.Go(env, func(co *stackful.Co) {
			for i := range per {
				if err := ch.Send(co, [2]int{env, i}); err != nil {
					t.Errorf("env %d: Send: %v", env, err)
					break
				}
			}
			sent <- env
		})
	}
	go func() {
		for i := range per {
			if err := ch.GoSend(context.Background(), [2]int{2, i}); err != nil {
				t.Errorf("GoSend: %v", err)
				break
			}
		}
		sent <- 2
	}()
	for range 3 {
		<-sent
	}
	g.Go(1, func(co *stackful.Co) { cosync.Call(co, ch.Loop(), ch.Close) })
	var vs [][2]int
	select {
	case vs = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the consumer did not finish")
	}
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	next := make([]int, 3)
	for _, v := range vs {
		if v[1] != next[v[0]] {
			t.Fatalf("sender %d's value %d arrived when %d was due", v[0], v[1], next[v[0]])
		}
		next[v[0]]++
	}
	if !slices.Equal(next, []int{per, per, per}) {
		t.Errorf("values received per sender %v, want %d each", next, per)
	}
	if n := cotest.SettledGoroutines(gs); n > gs {
		t.Errorf("%d goroutines after Shutdown, want %d", n, gs)
	}
}

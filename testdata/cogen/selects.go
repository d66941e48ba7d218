package selects

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers cosync.Select as a suspension point, with suspensions inside
// the case bodies: a select with one ready case among several (the program
// makes exactly one ready, so both models choose the same), a blocking
// select woken by a timer, a send case, a timeout, a default, and a select
// loop that ends when a channel closes.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	a := cosync.NewChan[int](1)
	b := cosync.NewChan[string](1)
	var x int
	var s string
	var ok bool
	for i := 0; i < 4; i++ {
		if (i+t.Rand.Intn(2))%2 == 0 {
			a.TrySend(i)
		} else {
			b.TrySend("v" + string(rune('a'+i)))
		}
		switch cosync.Select(co, a.RecvCase(&x, &ok), b.RecvCase(&s, &ok), cosync.Default()) {
		case 0:
			co.Gosched()
			t.Printf("a gave %d %v", x, ok)
		case 1:
			co.Sleep(time.Millisecond)
			t.Printf("b gave %s %v", s, ok)
			if err := a.Send(co, len(s)); err != nil {
				t.Printf("send: %v", err)
			}
			v, _ := a.Recv(co)
			t.Printf("echoed %d", v)
		default:
			t.Printf("nothing ready")
		}
	}

	// Blocking: a timer makes b ready later.
	t.Loop.AfterFunc(time.Duration(1+t.Rand.Intn(3))*time.Millisecond, func() { b.TrySend("late") })
	i := cosync.Select(co, a.RecvCase(&x, nil), b.RecvCase(&s, nil))
	t.Printf("blocking select chose %d: %s", i, s)

	// A send case with room, and a timeout when nothing comes.
	switch cosync.Select(co, a.SendCase(42), b.RecvCase(&s, nil)) {
	case 0:
		v, _ := a.Recv(co)
		t.Printf("sent, then received %d", v)
	case 1:
		t.Printf("unexpected receive")
	}
	if cosync.Select(co, b.RecvCase(&s, nil), cosync.After(2*time.Millisecond)) == 1 {
		t.Printf("timed out")
	}

	// A select loop that drains a channel a timer fills and closes.
	n := 1 + t.Rand.Intn(3)
	c := cosync.NewChan[int](n) // room for every value: no send is lost to timing
	for k := 0; k < n; k++ {
		k := k
		t.Loop.AfterFunc(time.Duration(k+1)*time.Millisecond, func() { c.TrySend((k + 1) * 100) })
	}
	t.Loop.AfterFunc(time.Duration(n+2)*time.Millisecond, func() { c.Close() })
	total := 0
	for {
		var v int
		var more bool
		if cosync.Select(co, c.RecvCase(&v, &more), cosync.After(time.Second)) != 0 || !more {
			break
		}
		co.Gosched()
		total += v
	}
	t.Printf("drained total %d", total)
}

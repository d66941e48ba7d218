package nested

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers statements without suspension points nested in lowered ones,
// whose branches and returns leave them: break and continue of a lowered
// loop from inside a plain switch, loop or select, goto out of a plain
// block, and return from inside plain loops.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	ch := make(chan int, 1)
outer:
	for i := 0; i < 6; i++ {
		co.Gosched()
		switch i % 3 {
		case 0:
			continue
		case 1:
			if i > 3 {
				break outer
			}
		}
		for j := 0; j < 3; j++ {
			if j == i {
				continue outer
			}
			if j > 1 {
				break
			}
		}
		select {
		case ch <- i:
			t.Printf("sent %d", i)
		default:
			v := <-ch //co:blocking buffered, never waits
			t.Printf("drained %d", v)
			if v > 3 {
				break outer
			}
		}
		t.Printf("end of iteration %d", i)
	}
	for k := 0; k < 3; k++ {
		co.Gosched()
		{
			if k == 1 {
				goto next
			}
		}
		t.Printf("k %d", k)
	next:
	}
	t.Printf("find %d", find(co, []int{3, 1, 4, 1, 5}, t.Rand.Intn(6)))
	t.Printf("deep %d", deep(co, t.Rand.Intn(3)))
}

//co:stackless
func find(co *stackful.Co, xs []int, want int) int {
	co.Gosched()
	for i, x := range xs {
		if x == want {
			return i
		}
	}
	return -1
}

//co:stackless
func deep(co *stackful.Co, n int) (res int) {
	for i := 0; i < 3; i++ {
		co.Gosched()
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				if i+j+k == n+2 {
					res = i*100 + j*10 + k
					return
				}
			}
		}
	}
	return -1
}

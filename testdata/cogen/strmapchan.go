package strmapchan

import (
	"sort"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type name string

// Run covers range over strings (runes, invalid UTF-8), maps (deletion
// during iteration) and channels with suspension points in the body.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	s := "héllo, 世界\xff!"
	for i, r := range s {
		co.Gosched()
		t.Printf("rune %d %q", i, r)
	}
	for i := range name("ab") {
		co.Gosched()
		t.Printf("named string %d", i)
	}
	m := map[int]string{}
	for i := 0; i < 5+t.Rand.Intn(5); i++ {
		m[i] = string(rune('a' + i))
	}
	var keys []int
	for k, v := range m {
		co.Gosched()
		keys = append(keys, k)
		m[k] = v + "!"
	}
	sort.Ints(keys)
	t.Printf("map keys %v", keys)
	count := 0
	for k := range m {
		co.Gosched()
		for other := range m {
			if other != k {
				delete(m, other)
			}
		}
		count++
	}
	t.Printf("deleted during range: %d iterations, %d left", count, len(m))
	ch := make(chan int, 10)
	for i := 0; i < 4; i++ {
		ch <- t.Rand.Intn(50)
	}
	close(ch)
	for v := range ch { //co:blocking buffered and closed, never waits
		co.Gosched()
		t.Printf("chan %d", v)
	}
	var empty map[string]int
	for range empty {
		co.Gosched()
		t.Printf("never")
	}
}

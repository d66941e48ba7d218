package ranges

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers range over slices, arrays, pointers to arrays and integers
// with suspension points in the body, including changes to the ranged
// value during the loop.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	s := make([]int, 3+t.Rand.Intn(3))
	for i := range s {
		s[i] = t.Rand.Intn(100)
	}
	for i, v := range s {
		co.Sleep(time.Duration(v%2) * time.Millisecond)
		if i == 0 {
			s = append(s, 1000) // not seen: the slice was evaluated once
			s[1] = -1           // seen: same backing array
		}
		t.Printf("slice %d %d", i, v)
	}
	arr := [3]string{"a", "b", "c"}
	for i, v := range arr {
		co.Gosched()
		arr[2] = "changed" // not seen: the array was copied
		t.Printf("array %d %s", i, v)
	}
	for i, v := range &arr {
		co.Gosched()
		arr[2] = "seen"
		t.Printf("ptr array %d %s", i, v)
	}
	for i := range arr {
		co.Gosched()
		t.Printf("array index %d", i)
	}
	var nilp *[2]int
	for i := range nilp {
		co.Gosched()
		t.Printf("nil ptr array index %d", i)
	}
	n := int64(t.Rand.Intn(4))
	for i := range n {
		co.Gosched()
		n = 100 // not seen
		t.Printf("int %d %T", i, i)
	}
	for range 2 {
		co.Gosched()
		t.Printf("int no var")
	}
	var sum int
	for _, v := range s {
		sum += v
		if v < 0 {
			co.Gosched()
			continue
		}
		if v > 900 {
			break
		}
	}
	t.Printf("sum %d", sum)
	var funcs []func() int
	for i, v := range []int{10, 20, 30} {
		co.Gosched()
		funcs = append(funcs, func() int { return i + v })
	}
	for _, f := range funcs {
		t.Printf("captured %d", f())
	}
	var k, v int
	for k, v = range []int{7, 8} {
		co.Gosched()
	}
	t.Printf("assign form %d %d", k, v)
}

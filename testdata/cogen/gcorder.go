package gcorder

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type box struct{ x int }

// Run covers the evaluation order gc gives operands to the left of a
// suspending call that changes them: builtins, []byte conversions, type
// assertions and map lookups with a converted key are evaluated at their
// place, variables, fields, elements and other lookups after the call.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	s := []int{1, 2, 3}
	t.Printf("len %d %d", len(s), grow(co, &s))
	t.Printf("cap min max %d %d %d %d", cap(s), min(s[0], 100), max(s[0], 0), grow(co, &s))
	buf := []byte("ab")
	m := map[string]int{"ab": 1, "zb": 2}
	t.Printf("bytes key %d", m[string(buf)]+flip(co, buf))
	t.Printf("bytes %s %d", []byte(string(buf)), flip(co, buf))
	t.Printf("string %s %d", string(buf), flip(co, buf))
	var i any = 1
	func() {
		defer func() { t.Printf("recovered %v", recover()) }()
		t.Printf("assert %d %d", i.(int), change(co, &i))
	}()
	b := &box{x: 1}
	t.Printf("field %d %d", b.x, bump(co, b))
	t.Printf("new make %d %d %d", *new(b.x), len(make([]int, b.x%7)), bump(co, b))
	k := 0
	tbl := make([]int, 4)
	tbl[k] = inc(co, &k)
	t.Printf("target %v", tbl)
	lit := map[int]int{1: b.x, 2: bump(co, b)}
	t.Printf("map literal %v", lit)
	ok := b.x > 0 && b.x < 500
	t.Printf("logical %v %v %d", ok, b.x > 0 && b.x < 500, bump(co, b))
	h := &holder{b: &box{x: 1}}
	t.Printf("receiver %d", h.b.add(swap(co, h)))
	f := func(n int) int { return n + 1 }
	t.Printf("callee %d", f(setFunc(co, &f)))
	func() {
		defer h.b.show(t, swap(co, h))
		h.b = &box{x: 1000}
	}()
}

type holder struct{ b *box }

func (b *box) add(n int) int { return b.x + n }

func (b *box) show(t *trace.T, n int) { t.Printf("deferred receiver %d %d", b.x, n) }

//co:stackless
func swap(co *stackful.Co, h *holder) int {
	co.Gosched()
	h.b = &box{x: h.b.x + 10}
	return 5
}

//co:stackless
func setFunc(co *stackful.Co, f *func(int) int) int {
	co.Gosched()
	*f = func(n int) int { return n * 100 }
	return 3
}

//co:stackless
func grow(co *stackful.Co, s *[]int) int {
	co.Gosched()
	*s = append(*s, 0)
	(*s)[0] += 10
	return len(*s)
}

//co:stackless
func flip(co *stackful.Co, b []byte) int {
	co.Gosched()
	if b[0] == 'a' {
		b[0] = 'z'
	} else {
		b[0] = 'a'
	}
	return 0
}

//co:stackless
func change(co *stackful.Co, i *any) int {
	co.Gosched()
	*i = "no longer an int"
	return 0
}

//co:stackless
func bump(co *stackful.Co, b *box) int {
	co.Gosched()
	b.x += 100
	return b.x
}

//co:stackless
func inc(co *stackful.Co, k *int) int {
	co.Gosched()
	*k++
	return 7
}

package defers

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers defer: last-in first-out order, arguments evaluated at the
// defer statement, deferred calls on every return path, a defer per loop
// iteration, deferred closures that change named results, and defers in
// nested calls of marked functions.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	defer t.Printf("run: last deferred call")
	x := t.Rand.Intn(10)
	defer t.Printf("run: x at the defer %d", x)
	defer func() { t.Printf("run: x at the end %d", x) }()
	co.Gosched()
	x += 100
	for i := 0; i < 3; i++ {
		defer t.Printf("run: iteration %d", i)
		co.Gosched()
	}
	for _, mode := range []int{0, 1, 2, 3} {
		n, err := early(co, t, mode)
		t.Printf("early(%d) = %d, %v", mode, n, err)
	}
	t.Printf("double = %d", double(co, t, x))
	var log []string
	record(co, &log, "a")
	t.Printf("log %v", log)
	p := &point{1, 2}
	defer p.show(t)
	defer t.Printf("run: method value on %v", *p)
	p.x = 7
	m := map[string]int{"k": 1}
	defer delete(m, "k")
	defer func(n int) { t.Printf("run: literal with argument %d, map %v", n, m) }(len(m))
	co.Gosched()
}

type point struct{ x, y int }

func (p point) show(t *trace.T) { t.Printf("point %d %d", p.x, p.y) }

// early returns from several places; its deferred closure sees and changes
// the named results on each path.
//
//co:stackless
func early(co *stackful.Co, t *trace.T, mode int) (n int, err error) {
	defer func() {
		t.Printf("early: deferred sees n=%d err=%v", n, err)
		if err != nil {
			n = -1
		}
	}()
	co.Gosched()
	if mode == 0 {
		return 10, nil
	}
	defer t.Printf("early: second defer, mode %d", mode)
	switch mode {
	case 1:
		return 20, errFake
	case 2:
		for i := 0; ; i++ {
			if i == 2 {
				n = i
				return
			}
		}
	}
	co.Gosched()
	n = 30
	return
}

type fakeErr struct{}

func (fakeErr) Error() string { return "fake" }

var errFake error = fakeErr{}

// double's deferred closure doubles its result after the return statement
// set it.
//
//co:stackless
func double(co *stackful.Co, t *trace.T, x int) (r int) {
	defer func() { r *= 2 }()
	co.Sleep(0)
	return x + 1
}

// record defers through a pointer and a variadic call.
//
//co:stackless
func record(co *stackful.Co, log *[]string, s string) {
	defer func(parts ...string) { *log = append(*log, parts...) }(s, "deferred")
	*log = append(*log, "body")
	co.Gosched()
	*log = append(*log, "after")
}

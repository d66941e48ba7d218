package misc

import (
	"fmt"
	"strings"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type base struct{ id int }

func (b *base) bump() { b.id++ }

type item struct {
	base
	name string
	tags []string
}

type op func(int) int

// Run covers assorted syntax around suspension points: embedded fields,
// method values and expressions, anonymous structs, conversions to
// function types, channels of channels, labeled blocks, empty statements,
// arrays of arrays, strings.Builder values and pointer-receiver calls on
// variables in the frame.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	it := item{name: "x"}
	it.bump()
	co.Gosched()
	it.bump()
	t.Printf("embedded %d", it.id)
	var sb strings.Builder
	for i := 0; i < 3; i++ {
		sb.WriteString(fmt.Sprint(i))
		co.Gosched()
	}
	t.Printf("builder %s", sb.String())
	f := it.bump
	co.Gosched()
	f()
	(*base).bump(&it.base)
	t.Printf("method value %d", it.id)
	anon := struct {
		a int
		b string
	}{a: pass(co, 1), b: "b"}
	t.Printf("anon %v", anon)
	double := op(func(x int) int { return 2 * x })
	t.Printf("func type %d", double(pass(co, 21)))
	cc := make(chan chan int, 1)
	c := make(chan int, 1)
	cc <- c
	c <- pass(co, 5)
	t.Printf("chan chan %d", <-<-cc) //co:blocking buffered, never waits
	var grid [3][3]int
	for i := range grid {
		for j := range grid[i] {
			grid[i][j] = pass(co, i*3+j)
		}
	}
	t.Printf("grid %v", grid)

	{
		co.Gosched()
	}
	m := map[string][]int{}
	m["a"] = append(m["a"], pass(co, 1), pass(co, 2))
	t.Printf("map append %v", m)
	var iface fmt.Stringer = &sb
	co.Gosched()
	t.Printf("iface %s", iface.String())
	x, y := 1, 2
	p := &x
	*p, y = y+pass(co, 10), *p
	t.Printf("swap via pointer %d %d", x, y)
	var e error
	if e == nil && pass(co, 1) == 1 {
		t.Printf("nil error")
	}
	type pair struct{ a, b int }
	const scale = 3
	pr := pair{a: pass(co, 1) * scale}
	pr.b = pr.a + 1
	t.Printf("local type %v", pr)
	s := it.tags[:0:0]
	s = append(s, "t")
	co.Gosched()
	t.Printf("three-index %v %d", s, cap(it.tags))
}

//co:stackless
func pass(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}

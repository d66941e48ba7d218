package gen_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// randProgram writes a random //co:stackless program: nested loops, ifs,
// switches with fallthrough, breaks and continues, closures (suspending
// ones included), short-circuit conditions and suspension points inside
// expressions, defers, panics recovered in deferred functions, and
// cosync.Select, over a few int variables. Every step is traced, so that the differential test compares
// the stackful and stackless runs of programs nobody wrote by hand.
func randProgram(pkg string, seed int64) string { return randProgramSized(pkg, seed, 4) }

// randProgramSized is randProgram with statements nested up to depth.
func randProgramSized(pkg string, seed int64, depth int) string {
	g := &progGen{r: rand.New(rand.NewSource(seed))}
	var b strings.Builder
	fmt.Fprintf(&b, `package %s

import (
	"iter"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// ready returns a channel holding v if put, empty otherwise.
func ready(put bool, v int) *cosync.Chan[int] {
	c := cosync.NewChan[int](1)
	if put {
		c.TrySend(v)
	}
	return c
}

// guard recovers the panic of its callee and returns -1 instead.
//
//co:stackless
func guard(co *stackful.Co, t *trace.T, v int) (r int) {
	defer func() {
		if p := recover(); p != nil {
			t.Printf("guard recovered %%v", p)
			r = -1
		}
	}()
	return risky(co, t, v)
}

//co:stackless
func risky(co *stackful.Co, t *trace.T, v int) int {
	defer t.Printf("risky %%d unwinds", v)
	co.Gosched()
	if v%%3 == 0 {
		panic(v)
	}
	return v
}

func seq(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i * 3) {
				return
			}
		}
	}
}

func plain(t *trace.T, v int) int {
	t.Printf("plain %%d", v)
	return v
}

//co:stackless
func step(co *stackful.Co, t *trace.T, v int) int {
	co.Gosched()
	t.Printf("step %%d", v)
	return v
}

//co:stackless
func truth(co *stackful.Co, t *trace.T, v bool) bool {
	co.Gosched()
	t.Printf("truth %%v", v)
	return v
}

//co:stackless
func child(co *stackful.Co, t *trace.T, a, b int) (int, int) {
	if a%%3 == 0 {
		co.Gosched()
	}
	return a + b, a - b
}

// Run is random program %d.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	v0, v1, v2, v3 := t.Rand.Intn(10), t.Rand.Intn(10), 0, 1
	var fs []func() int
`, pkg, seed)
	g.vars = []string{"v0", "v1", "v2", "v3"}
	g.block(&b, 1, depth)
	b.WriteString("\tfor _, f := range fs {\n\t\tt.Printf(\"closure %d\", f())\n\t}\n")
	b.WriteString("\tt.Printf(\"end %d %d %d %d\", v0, v1, v2, v3)\n}\n")
	return b.String()
}

type progGen struct {
	r     *rand.Rand
	vars  []string // assignable
	reads []string // readable only (loop variables)
	loops int      // enclosing loops (break and continue are allowed)
	n     int      // fresh names
}

func (g *progGen) fresh(p string) string {
	g.n++
	return fmt.Sprintf("%s%d", p, g.n)
}

func (g *progGen) v() string { return g.vars[g.r.Intn(len(g.vars))] }

// read is a variable to read: assignable or a loop variable.
func (g *progGen) read() string {
	all := append(append([]string{}, g.vars...), g.reads...)
	return all[g.r.Intn(len(all))]
}

// two returns two different assignable variables.
func (g *progGen) two() (string, string) {
	i := g.r.Intn(len(g.vars))
	j := (i + 1 + g.r.Intn(len(g.vars)-1)) % len(g.vars)
	return g.vars[i], g.vars[j]
}

// expr is an int expression; depth bounds its size.
func (g *progGen) expr(depth int) string {
	if depth <= 0 {
		switch g.r.Intn(3) {
		case 0:
			return fmt.Sprint(g.r.Intn(7))
		default:
			return g.read()
		}
	}
	switch g.r.Intn(9) {
	case 7:
		return fmt.Sprintf("guard(co, t, %s)", g.expr(depth-1))
	case 0:
		return fmt.Sprintf("step(co, t, %s)", g.expr(depth-1))
	case 1:
		return fmt.Sprintf("plain(t, %s)", g.expr(depth-1))
	case 2:
		return fmt.Sprintf("(%s + %s)", g.expr(depth-1), g.expr(depth-1))
	case 3:
		return fmt.Sprintf("(%s - %s)", g.expr(depth-1), g.expr(depth-1))
	case 4:
		return fmt.Sprintf("(%s * %s %% 7)", g.expr(depth-1), g.expr(depth-1))
	case 5:
		return fmt.Sprintf("[]int{%s, %s}[%d]", g.expr(depth-1), g.expr(depth-1), g.r.Intn(2))
	case 6:
		return fmt.Sprintf("func() int { return %s + 1 }()", g.read())
	}
	return g.read()
}

func (g *progGen) cond(depth int) string {
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("%s && truth(co, t, %s > %d)", g.cond(0), g.v(), g.r.Intn(5))
	case 1:
		return fmt.Sprintf("%s || truth(co, t, %s < %d)", g.cond(0), g.v(), g.r.Intn(5))
	}
	return fmt.Sprintf("%s %% 2 == %d", g.expr(depth), g.r.Intn(2))
}

func (g *progGen) block(b *strings.Builder, indent, depth int) {
	n := 1 + g.r.Intn(4)
	for i := 0; i < n; i++ {
		g.stmt(b, indent, depth)
	}
}

func (g *progGen) stmt(b *strings.Builder, indent, depth int) {
	tab := strings.Repeat("\t", indent)
	k := g.r.Intn(27)
	if depth <= 0 && k >= 5 {
		k = g.r.Intn(5)
	}
	switch k {
	case 0:
		target, value := g.v(), g.expr(2)
		if value == target {
			value += " + 1"
		}
		fmt.Fprintf(b, "%s%s = %s\n", tab, target, value)
	case 1:
		fmt.Fprintf(b, "%s%s += %s\n", tab, g.v(), g.expr(2))
	case 2:
		fmt.Fprintf(b, "%sco.Gosched()\n", tab)
	case 3:
		fmt.Fprintf(b, "%st.Printf(\"at %%d %%d %%d %%d\", v0, v1, v2, v3)\n", tab)
	case 4:
		a, c := g.two()
		fmt.Fprintf(b, "%s%s, %s = child(co, t, %s, %s)\n", tab, a, c, g.expr(1), g.expr(1))
	case 5:
		fmt.Fprintf(b, "%sif %s {\n", tab, g.cond(1))
		g.block(b, indent+1, depth-1)
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(b, "%s} else {\n", tab)
			g.block(b, indent+1, depth-1)
		}
		fmt.Fprintf(b, "%s}\n", tab)
	case 6:
		i := g.fresh("i")
		fmt.Fprintf(b, "%sfor %s := 0; %s < %d; %s++ {\n", tab, i, i, 1+g.r.Intn(3), i)
		g.loopBody(b, indent, depth, i)
	case 7:
		i, x := g.fresh("i"), g.fresh("x")
		fmt.Fprintf(b, "%sfor %s, %s := range []int{%s, %s, %s} {\n", tab, i, x, g.expr(1), g.expr(1), g.expr(0))
		g.loopBody(b, indent, depth, i, x)
	case 8:
		fmt.Fprintf(b, "%sswitch %s %% 3 {\n", tab, g.expr(1))
		for c := 0; c < 3; c++ {
			if c == 2 {
				fmt.Fprintf(b, "%sdefault:\n", tab)
			} else {
				fmt.Fprintf(b, "%scase %d:\n", tab, c)
			}
			g.block(b, indent+1, depth-1)
			if c < 2 && g.r.Intn(3) == 0 {
				fmt.Fprintf(b, "%s\tfallthrough\n", tab)
			}
		}
		fmt.Fprintf(b, "%s}\n", tab)
	case 9:
		if g.loops > 0 {
			fmt.Fprintf(b, "%sif %s {\n%s\tbreak\n%s}\n", tab, g.cond(1), tab, tab)
			return
		}
		fmt.Fprintf(b, "%s%s = %s + 2\n", tab, g.v(), g.expr(1))
	case 10:
		if g.loops > 0 {
			fmt.Fprintf(b, "%sif %s {\n%s\tcontinue\n%s}\n", tab, g.cond(1), tab, tab)
			return
		}
		fmt.Fprintf(b, "%sco.Gosched()\n", tab)
	case 11:
		f := g.fresh("f")
		fmt.Fprintf(b, "%s%s := func() { %s++ }\n", tab, f, g.v())
		g.block(b, indent, depth-1)
		fmt.Fprintf(b, "%s%s()\n", tab, f)
	case 12:
		y := g.fresh("y")
		fmt.Fprintf(b, "%s%s := %s\n", tab, y, g.expr(2))
		g.vars = append(g.vars, y)
		g.block(b, indent, depth-1)
		fmt.Fprintf(b, "%s_ = %s\n", tab, y)
		g.vars = g.vars[:len(g.vars)-1]
	case 13:
		l, i, j := g.fresh("L"), g.fresh("i"), g.fresh("j")
		jump := "continue"
		if g.r.Intn(2) == 0 {
			jump = "break"
		}
		fmt.Fprintf(b, "%s%s:\n%sfor %s := 0; %s < 2; %s++ {\n", tab, l, tab, i, i, i)
		fmt.Fprintf(b, "%s\tfor %s := 0; %s < 2; %s++ {\n", tab, j, j, j)
		saved := g.reads
		g.reads = append(append([]string{}, g.reads...), i, j)
		g.loops++
		fmt.Fprintf(b, "%s\t\tif %s {\n%s\t\t\t%s %s\n%s\t\t}\n", tab, g.cond(1), tab, jump, l, tab)
		g.block(b, indent+2, depth-1)
		g.loops--
		g.reads = saved
		fmt.Fprintf(b, "%s\t}\n%s}\n", tab, tab)
	case 14:
		if len(g.reads) > 0 {
			fmt.Fprintf(b, "%sfs = append(fs, func() int { return %s*10 + %s })\n", tab, g.reads[g.r.Intn(len(g.reads))], g.v())
			return
		}
		fmt.Fprintf(b, "%sco.Gosched()\n", tab)
	case 15:
		fmt.Fprintf(b, "%sswitch %s %% 4 {\n", tab, g.expr(1))
		fmt.Fprintf(b, "%scase step(co, t, 1):\n", tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%scase 2, step(co, t, %d):\n", tab, g.r.Intn(4))
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}\n", tab)
	case 16:
		i, r := g.fresh("i"), g.fresh("r")
		fmt.Fprintf(b, "%sfor %s, %s := range \"a\\xffé\" {\n", tab, i, r)
		fmt.Fprintf(b, "%s\t%s += %s + int(%s)\n", tab, g.v(), i, r)
		g.loopBody(b, indent, depth, i)
	case 18:
		z := g.fresh("z")
		fmt.Fprintf(b, "%svar %s int\n%st.Printf(\"zero %%d\", %s)\n", tab, z, tab, z)
		g.vars = append(g.vars, z)
		g.block(b, indent, depth-1)
		g.vars = g.vars[:len(g.vars)-1]
	case 19:
		k, v := g.fresh("k"), g.fresh("m")
		fmt.Fprintf(b, "%sfor %s, %s := range map[int]int{%s: %s} {\n", tab, k, v, g.expr(1), g.expr(1))
		g.loopBody(b, indent, depth, k, v)
	case 20:
		x := g.fresh("x")
		fmt.Fprintf(b, "%sfor %s := range seq(%d) {\n", tab, x, 1+g.r.Intn(3))
		g.loopBody(b, indent, depth, x)
	case 21:
		y, p := g.fresh("y"), g.fresh("p")
		fmt.Fprintf(b, "%s%s := %s\n%s%s := &%s\n", tab, y, g.expr(1), tab, p, y)
		g.vars = append(g.vars, y)
		g.block(b, indent, depth-1)
		g.vars = g.vars[:len(g.vars)-1]
		fmt.Fprintf(b, "%s*%s += 1\n%st.Printf(\"pointer %%d\", %s)\n", tab, p, tab, y)
		if g.loops > 0 {
			fmt.Fprintf(b, "%sfs = append(fs, func() int { return *%s })\n", tab, p)
		}
	case 22:
		fmt.Fprintf(b, "%sdefer t.Printf(\"deferred %%d %%d\", %s, %s)\n", tab, g.expr(1), g.expr(1))
	case 23:
		v := g.v()
		fmt.Fprintf(b, "%sdefer func() { %s++; t.Printf(\"deferred closure %%d\", %s) }()\n", tab, v, v)
	case 24:
		// A closure that suspends, called at once, recovering its own
		// panic: no break or continue of the loops outside it.
		loops := g.loops
		g.loops = 0
		fmt.Fprintf(b, "%sfunc() {\n%s\tdefer func() {\n%s\t\tif p := recover(); p != nil {\n%s\t\t\tt.Printf(\"recovered %%v\", p)\n%s\t\t}\n%s\t}()\n", tab, tab, tab, tab, tab, tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s\tif %s {\n%s\t\tpanic(%s)\n%s\t}\n", tab, g.cond(1), tab, g.v(), tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}()\n", tab)
		g.loops = loops
	case 25:
		h, d, v := g.fresh("h"), g.fresh("d"), g.v()
		fmt.Fprintf(b, "%s%s := func(%s int) int {\n%s\tco.Gosched()\n%s\t%s += %s\n%s\treturn %s\n%s}\n", tab, h, d, tab, tab, v, d, tab, v, tab)
		g.block(b, indent, depth-1)
		fmt.Fprintf(b, "%s%s = %s(%s) + %s(1)\n", tab, g.v(), h, g.expr(1), h)
	case 26:
		x := g.fresh("x")
		fmt.Fprintf(b, "%svar %s int\n", tab, x)
		fmt.Fprintf(b, "%sswitch cosync.Select(co, ready(%s, %s).RecvCase(&%s, nil), cosync.Default()) {\n%scase 0:\n", tab, g.cond(1), g.expr(1), x, tab)
		fmt.Fprintf(b, "%s\t%s += %s\n", tab, g.v(), x)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%sdefault:\n", tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}\n", tab)
	case 17:
		l := g.fresh("L")
		fmt.Fprintf(b, "%sif %s {\n%s\tgoto %s\n%s}\n%s{\n", tab, g.cond(1), tab, l, tab, tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}\n%s%s:\n%st.Printf(\"label\")\n", tab, tab, l, tab)
	}
}

func (g *progGen) loopBody(b *strings.Builder, indent, depth int, vars ...string) {
	tab := strings.Repeat("\t", indent)
	saved := g.reads
	g.reads = append(append([]string{}, g.reads...), vars...)
	g.loops++
	g.block(b, indent+1, depth-1)
	for _, v := range vars {
		fmt.Fprintf(b, "%s\t_ = %s\n", tab, v)
	}
	g.loops--
	g.reads = saved
	fmt.Fprintf(b, "%s}\n", tab)
}

// TestRandomProgramsCover checks that the 24 random programs of the
// differential test exercise each construct the generator knows.
func TestRandomProgramsCover(t *testing.T) {
	want := map[string]int{
		"defer t.Printf": 0, "defer func()": 0, "recover()": 0, "panic(": 0,
		"cosync.Select(": 0, "guard(co": 0, ":= func(d": 0, "}()": 0, "goto ": 0,
		"range seq(": 0, "fallthrough": 0,
	}
	for seed := int64(1); seed <= 24; seed++ {
		p := randProgram("p", seed)
		body := p[strings.Index(p, "func Run("):]
		for k := range want {
			want[k] += strings.Count(body, k)
		}
	}
	for k, n := range want {
		t.Logf("%q: %d", k, n)
		if n == 0 {
			t.Errorf("no random program has %q", k)
		}
	}
}

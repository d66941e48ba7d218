package gen_test

import (
	"fmt"
	"go/types"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// randProgram writes a random //co:stackless program: nested loops, ifs,
// switches with fallthrough, breaks and continues, closures (suspending
// ones included), short-circuit conditions and suspension points inside
// expressions, defers, panics recovered in deferred functions, and
// cosync.Select, over a few int variables. Every step is traced, so that
// the differential test compares the stackful and stackless runs of
// programs nobody wrote by hand.
//
// The grammar reaches the shapes that broke transforms before (issue 23):
// the variables are named like the identifiers and packages generated code
// introduces (hygieneNames), and so are the imports of trace and stackful
// (aliasImports) and package-level variables (the packages that only
// generated code imports); bool, interface and type switches with
// suspending cases; range over functions that misbehave (yield called
// after it returned false), panic, or see a body's panic pass through their
// deferred calls; local types printed with %T; named results changed by
// deferred functions; labeled break and continue out of switches; and the
// evaluation-order shapes: builtins (len, min, max), map lookups and type
// assertions left of a call that suspends and changes their operand. And
// those of issue 36: maps keyed by structs and arrays of 4, 8 and 12 bytes,
// a struct of one string, an int64 and an array of one pointer (lookups,
// assignments, op-assignments, literals) left of a call changing the key;
// the unsafe builtins left of a call changing their operands; generic
// functions and a generic type (type-parameter keys and elements,
// assertions to a type parameter, conversions of one to an interface);
// map and slice literals mixing lookups with suspending calls; range over
// a function with targets that depend on each other (k, arr[k]).
func randProgram(pkg string, seed int64) string { return randProgramSized(pkg, seed, 4) }

// randNames are the names random programs give their variables: the
// identifiers and packages generated code can introduce, less the names
// the programs use themselves and the predeclared ones.
var randNames = sync.OnceValue(func() []string {
	names, err := hygieneNames()
	if err != nil {
		panic(err)
	}
	taken := map[string]bool{}
	for _, n := range strings.Fields("co t fs step guard risky seq plain truth child ready Run cosync trace stackful iter " +
		"box grow bump swap named misbehave panicky deferSeq p ok f pkgLevel _ " +
		"unsafepkg keyP2 keyP3 keyS keyA4 keyA8 setKey bumpN pairs kstr kb gwrap gfill gsmall gint gassert gpair gconv gconvs gstore gcache put") {
		taken[n] = true
	}
	var out []string
	for _, n := range names {
		if !taken[n] && types.Universe.Lookup(n) == nil && !strings.HasPrefix(n, "v") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
})

// randPkgNames are the packages only generated code imports, whose names a
// package-level variable of a random program takes.
var randPkgNames = []string{"stackless", "utf8", "unsafe"}

// randProgramSized is randProgram with statements nested up to depth.
func randProgramSized(pkg string, seed int64, depth int) string {
	return aliasImports(randHeader(pkg)+randRun("Run", seed, depth), seed)
}

// randPackage holds the random programs of seeds in one package: each is
// a function run<seed>, and Run runs them in turn. Long runs use it: the
// helpers are compiled once for all of them.
func randPackage(pkg string, seeds []int64) string {
	var b strings.Builder
	b.WriteString(randHeader(pkg))
	for _, seed := range seeds {
		b.WriteString("\n")
		b.WriteString(randRun(fmt.Sprintf("run%d", seed), seed, 4))
	}
	b.WriteString("\n// Run runs the programs in turn.\n//\n//co:stackless\nfunc Run(co *stackful.Co, t *trace.T) {\n")
	for _, seed := range seeds {
		fmt.Fprintf(&b, "\tt.Printf(\"program %d\")\n\trun%d(co, t)\n", seed, seed)
		// A marked function of another package of the same cogen run,
		// which sorts after this one (randShared).
		fmt.Fprintf(&b, "\tt.Printf(\"hop %%d\", zshared.Hop(co, %d))\n", seed%97)
	}
	b.WriteString("}\n")
	// Only packages of randPackage import zshared: FuzzCogen's programs
	// (randProgramSized) are generated alone.
	src := strings.Replace(b.String(), "\t\"cogentest/trace\"\n", "\t\"cogentest/cases/zshared\"\n\t\"cogentest/trace\"\n", 1)
	return aliasImports(src, seeds[0])
}

// randSharedName is the package of marked functions every random package
// calls (cases/zshared). The workspace generates it in the same cogen run
// as its callers, and it sorts after them, so its callers are lowered
// before its frames exist: cogen must recognise Hop by its directive, as
// it does for the module's own packages (TestMultiPackage). Before that,
// every random package failed to generate ("the coroutine handle co may
// only call its waiting methods").
const randSharedName = "zshared"

// randShared is cases/zshared's source.
const randShared = `package zshared

import "github.com/cogen-go/cogen/runtime/stackful"

// Hop suspends once, then returns a value of x.
//
//co:stackless
func Hop(co *stackful.Co, x int) int {
	y := x*3 + 1
	co.Gosched()
	return y + x
}
`

// aliasImports imports trace and stackful under names that generated code
// could introduce, for two seeds in three: every use of those packages in
// a random program is a selector trace.X or stackful.X.
func aliasImports(src string, seed int64) string {
	pool := randNames()
	r := rand.New(rand.NewSource(seed))
	for _, imp := range []struct{ name, path string }{
		{"trace", "cogentest/trace"},
		{"stackful", "github.com/cogen-go/cogen/runtime/stackful"},
	} {
		if r.Intn(3) == 0 {
			continue
		}
		alias := pool[r.Intn(len(pool))]
		switch alias {
		case "fmt", "iter", "cosync", "stackful", "trace", "stackless", "utf8", "unsafe":
			continue // the programs' imports and package-level variables
		}
		if strings.Contains(src, "\t"+alias+" \"") {
			continue // the other import's alias
		}
		src = strings.Replace(src, "\t\""+imp.path+"\"\n", "\t"+alias+" \""+imp.path+"\"\n", 1)
		src = regexp.MustCompile(`\b`+imp.name+`\.`).ReplaceAllString(src, alias+".")
	}
	return src
}

// randRun writes the function name of the random program of seed.
func randRun(name string, seed int64, depth int) string {
	g := &progGen{r: rand.New(rand.NewSource(seed))}
	// Seven distinct names: four ints, a slice, a map and an interface.
	pool := randNames()
	used := map[string]bool{}
	var names []string
	for len(names) < 7 {
		n := pool[g.r.Intn(len(pool))]
		if !used[n] {
			used[n] = true
			names = append(names, n)
		}
	}
	g.used = used
	pkgVar := randPkgNames[g.r.Intn(len(randPkgNames))]
	var b strings.Builder
	fmt.Fprintf(&b, `// %[1]s is random program %[2]d.
//
//co:stackless
func %[1]s(co *stackful.Co, t *trace.T) {
	v0, v1, v2, v3 := t.Rand.Intn(10), t.Rand.Intn(10), 0, %[3]s
	sl, mp := []int{v0}, map[int]int{}
	var ay any = v1
	var fs []func() int
`, name, seed, pkgVar)
	g.vars = []string{"v0", "v1", "v2", "v3"}
	g.block(&b, 1, depth)
	b.WriteString("\tfor _, f := range fs {\n\t\tt.Printf(\"closure %d\", f())\n\t}\n")
	b.WriteString("\tt.Printf(\"end %d %d %d %d %v %v %v\", v0, v1, v2, v3, sl, mp, ay)\n}\n")
	return rename(b.String(), map[string]string{
		"v0": names[0], "v1": names[1], "v2": names[2], "v3": names[3],
		"sl": names[4], "mp": names[5], "ay": names[6],
	})
}

// randHeader is the package clause, imports and helpers of random programs.
func randHeader(pkg string) string {
	return fmt.Sprintf(`package %s

import (
	"fmt"
	"iter"
	unsafepkg "unsafe"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Map keys of every kind gc's map code tells apart: structs and arrays of
// 4 and 8 bytes (fast maps, the key copied at its place), of 12 bytes
// (slow maps), a struct of one string (a fast string map), an int64.
type (
	keyP2 struct{ a, b int32 }
	keyP3 struct{ a, b, c int32 }
	keyS struct{ s string }
	keyA4 [4]byte
	keyA8 [8]byte
)

// setKey stores v in *p after a suspension.
//
//co:stackless
func setKey[K any](co *stackful.Co, t *trace.T, p *K, v K) int {
	co.Gosched()
	t.Printf("setKey")
	*p = v
	return 1
}

// bumpN is bump, never inlined: gc orders a map literal's entries around
// an inlined call differently (gen/doc.go, "Evaluation order").
//
//go:noinline
//co:stackless
func bumpN(co *stackful.Co, t *trace.T, m map[int]int, k int) int {
	co.Gosched()
	m[k]++
	return m[k]
}

// pairs yields (i, 5+i) for i < n.
func pairs(n int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := range n {
			if !yield(i, 5+i) {
				return
			}
		}
	}
}

// The programs of a package may not use unsafe.
var _ = unsafepkg.Sizeof(0)

func kstr(v int) string { return fmt.Sprint(v) }

func kb(v int) byte { return byte(v) }

// gwrap returns v after a suspension.
//
//co:stackless
func gwrap[V any](co *stackful.Co, t *trace.T, v V) V {
	co.Gosched()
	return v
}

// gfill is the generic cache fill: a map index of type-parameter key and
// element assigned a suspending call's result.
//
//co:stackless
func gfill[K comparable, V any](co *stackful.Co, t *trace.T, m map[K]V, k K, v V) V {
	m[k] = gwrap(co, t, v)
	return m[k]
}

// gsmall reads a map keyed by a small struct or array type parameter
// (copied at its place in every instance) left of a call changing the key.
//
//co:stackless
func gsmall[K keyP2 | keyA8 | [2]int32](co *stackful.Co, t *trace.T, m map[K]int, k, next K) int {
	return m[k]*10 + setKey(co, t, &k, next)
}

// gint reads a map keyed by an integer type parameter (read late).
//
//co:stackless
func gint[K ~int64 | ~uint32](co *stackful.Co, t *trace.T, m map[K]int, k, next K) int {
	return m[k]*10 + setKey(co, t, &k, next)
}

// gassert asserts to a type parameter (gc's dynamic assertion, late) left
// of a call changing the interface.
//
//co:stackless
func gassert[T any](co *stackful.Co, t *trace.T, x any, next any) T {
	v, _ := gpair(x.(T), setKey(co, t, &x, next))
	return v
}

func gpair[T any](a T, b int) (T, int) { return a, b }

// gconv converts a map lookup of a type parameter to an interface: through
// its address for [2]int and [3]int (copied at its place), by value for a
// string (late).
//
//co:stackless
func gconv[T [2]int | [3]int](co *stackful.Co, t *trace.T, m map[string]T, next T) string {
	return fmt.Sprint(m["k"], setKey(co, t, &next, next), gstore(co, m, next))
}

//co:stackless
func gconvs[T ~string](co *stackful.Co, t *trace.T, m map[string]T, next T) string {
	return fmt.Sprint(m["k"], gstore(co, m, next))
}

//co:stackless
func gstore[T any](co *stackful.Co, m map[string]T, v T) int {
	co.Gosched()
	m["k"] = v
	return 0
}

// gcache is a generic type with a suspending method.
type gcache[K comparable, V any] struct{ m map[K]V }

//co:stackless
func (c *gcache[K, V]) put(co *stackful.Co, t *trace.T, k K, v V) V {
	c.m[k] = gwrap(co, t, v)
	return c.m[k]
}

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

// box returns v, as an int if it is even, else as a float64, after a
// suspension.
//
//co:stackless
func box(co *stackful.Co, t *trace.T, v int) any {
	co.Gosched()
	if v%%2 == 0 {
		return v
	}
	return float64(v)
}

// grow appends to *s after a suspension and returns the new length.
//
//co:stackless
func grow(co *stackful.Co, t *trace.T, s *[]int) int {
	co.Gosched()
	*s = append(*s, len(*s))
	return len(*s)
}

// bump increments m[k] after a suspension.
//
//co:stackless
func bump(co *stackful.Co, t *trace.T, m map[int]int, k int) int {
	co.Gosched()
	m[k]++
	return m[k]
}

// swap stores v in *a after a suspension: an int if v is even, else a
// float64.
//
//co:stackless
func swap(co *stackful.Co, t *trace.T, a *any, v int) int {
	co.Gosched()
	if v%%2 == 0 {
		*a = v
	} else {
		*a = float64(v)
	}
	return v
}

// named has named results that its deferred function changes, also when
// it recovers.
//
//co:stackless
func named(co *stackful.Co, t *trace.T, v int) (x, y int) {
	defer func() {
		x += 100
		if p := recover(); p != nil {
			t.Printf("named recovered %%v", p)
			y = -1
		}
	}()
	x = step(co, t, v)
	if v%%4 == 3 {
		panic("named")
	}
	return x, x * 2
}

// misbehave keeps calling yield after it returned false: Go panics.
func misbehave(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			yield(i)
		}
	}
}

// panicky panics after k values.
func panicky(k int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			if i == k {
				panic("iterator panics")
			}
			if !yield(i) {
				return
			}
		}
	}
}

// deferSeq records, in a deferred call, how it ended: a panic of the loop
// body passes through it.
func deferSeq(t *trace.T, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		defer func() {
			p := recover()
			t.Printf("iterator done %%v", p)
			if p != nil {
				panic(fmt.Sprint("iterator saw: ", p))
			}
		}()
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// Package-level variables named like the packages that only generated
// code imports.
var stackless, utf8, unsafe = 1, 2, 3

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

`, pkg)
}

var identRE = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\b`)

// rename replaces the placeholders v0-v3, sl, mp and ay of a program's
// function by the names chosen for it.
func rename(src string, to map[string]string) string {
	return identRE.ReplaceAllStringFunc(src, func(id string) string {
		if n, ok := to[id]; ok {
			return n
		}
		return id
	})
}

type progGen struct {
	r     *rand.Rand
	used  map[string]bool // names of the program's variables
	vars  []string        // assignable
	reads []string        // readable only (loop variables)
	loops int             // enclosing loops (break and continue are allowed)
	n     int             // fresh names
}

func (g *progGen) fresh(p string) string {
	for {
		g.n++
		if n := fmt.Sprintf("%s%d", p, g.n); !g.used[n] {
			return n
		}
	}
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
	switch g.r.Intn(12) {
	case 9:
		// gc evaluates len (a builtin) at its place, before the call.
		return "(len(sl) + grow(co, t, &sl))"
	case 10:
		// A map lookup left of a call that changes the map.
		k := g.r.Intn(3)
		return fmt.Sprintf("(mp[%d] + bump(co, t, mp, %d))", k, k)
	case 11:
		return fmt.Sprintf("%s(len(sl), %s, step(co, t, %s))", []string{"min", "max"}[g.r.Intn(2)], g.read(), g.expr(depth-1))
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
	k := g.r.Intn(40)
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
	case 27:
		// A bool switch: a case of && must not become tag == p && q.
		fmt.Fprintf(b, "%sswitch %s%%2 == 0 {\n", tab, g.expr(1))
		fmt.Fprintf(b, "%scase %s > 2 && %s < 5:\n", tab, g.read(), g.read())
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%scase truth(co, t, %s > 1), %s == 3 || %s == 4:\n", tab, g.read(), g.read(), g.read())
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}\n", tab)
	case 28:
		// An interface switch: comparisons of dynamic types and values.
		fmt.Fprintf(b, "%sswitch ay {\n%scase any(%s):\n", tab, tab, g.read())
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%scase box(co, t, %s), any(float64(%s)):\n", tab, g.expr(1), g.read())
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%sdefault:\n", tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}\n", tab)
	case 29:
		y := g.fresh("y")
		fmt.Fprintf(b, "%sswitch %s := box(co, t, %s).(type) {\n%scase int:\n", tab, y, g.expr(1), tab)
		fmt.Fprintf(b, "%s\t%s += %s\n", tab, g.v(), y)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%scase float64:\n%s\tco.Gosched()\n%s\t%s += int(%s)\n", tab, tab, tab, g.v(), y)
		fmt.Fprintf(b, "%sdefault:\n%s\tt.Printf(\"type %%T\", %s)\n%s}\n", tab, tab, y, tab)
	case 30:
		// A local type: %T and %v print its name.
		ty, x := g.fresh("pt"), g.fresh("x")
		fmt.Fprintf(b, "%stype %s struct{ a, b int }\n", tab, ty)
		fmt.Fprintf(b, "%s%s := %s{a: %s, b: step(co, t, %s)}\n", tab, x, ty, g.expr(1), g.expr(1))
		fmt.Fprintf(b, "%st.Printf(\"%%T %%v\", %s, %s)\n", tab, x, x)
	case 31:
		a, c := g.two()
		fmt.Fprintf(b, "%s%s, %s = named(co, t, %s)\n", tab, a, c, g.expr(1))
	case 32:
		// Range over a function that misbehaves, panics, or sees the
		// body's panic, in a closure that recovers.
		x := g.fresh("x")
		loops := g.loops
		g.loops = 0
		fmt.Fprintf(b, "%sfunc() {\n%s\tdefer func() {\n%s\t\tif p := recover(); p != nil {\n%s\t\t\tt.Printf(\"recovered %%v\", p)\n%s\t\t}\n%s\t}()\n", tab, tab, tab, tab, tab, tab)
		switch g.r.Intn(3) {
		case 0:
			fmt.Fprintf(b, "%s\tfor %s := range misbehave(3) {\n%s\t\tco.Gosched()\n%s\t\tif %s == %d {\n%s\t\t\tbreak\n%s\t\t}\n", tab, x, tab, tab, x, g.r.Intn(3), tab, tab)
		case 1:
			fmt.Fprintf(b, "%s\tfor %s := range panicky(%d) {\n%s\t\tco.Gosched()\n", tab, x, g.r.Intn(3), tab)
		default:
			fmt.Fprintf(b, "%s\tfor %s := range deferSeq(t, 3) {\n%s\t\tco.Gosched()\n%s\t\tif %s == %d {\n%s\t\t\tpanic(%s)\n%s\t\t}\n", tab, x, tab, tab, x, g.r.Intn(4), tab, g.v(), tab)
		}
		fmt.Fprintf(b, "%s\t\t%s += %s\n%s\t}\n%s}()\n", tab, g.v(), x, tab, tab)
		g.loops = loops
	case 33:
		// Labeled break and continue out of a switch in a loop.
		l, i := g.fresh("L"), g.fresh("i")
		fmt.Fprintf(b, "%s%s:\n%sfor %s := 0; %s < 3; %s++ {\n", tab, l, tab, i, i, i)
		fmt.Fprintf(b, "%s\tswitch (%s + %s) %% 3 {\n%s\tcase 0:\n%s\t\tco.Gosched()\n%s\t\tbreak %s\n", tab, g.read(), i, tab, tab, tab, l)
		fmt.Fprintf(b, "%s\tcase 1:\n%s\t\t%s += step(co, t, %s)\n%s\t\tcontinue %s\n%s\t}\n", tab, tab, g.v(), i, tab, l, tab)
		fmt.Fprintf(b, "%s\tt.Printf(\"label loop %%d\", %s)\n%s}\n", tab, i, tab)
	case 34:
		// A type assertion left of a call that changes its operand.
		fmt.Fprintf(b, "%sif _, ok := ay.(int); ok {\n%s\t%s = ay.(int) + swap(co, t, &ay, %s)\n%s}\n", tab, tab, g.v(), g.expr(1), tab)
	case 35:
		g.smallKey(b, tab)
	case 36:
		g.unsafeOp(b, tab)
	case 37:
		g.generic(b, tab)
	case 38:
		// Map and slice literals mixing lookups with suspending calls.
		k, l := g.r.Intn(3), g.fresh("l")
		switch g.r.Intn(3) {
		case 0:
			fmt.Fprintf(b, "%s%s := map[string]int{\"a\": mp[%d], \"b\": bumpN(co, t, mp, %d), \"c\": mp[%d] + %s}\n", tab, l, k, k, k, g.expr(1))
		case 1:
			fmt.Fprintf(b, "%s%s := []int{mp[%d], %s, bumpN(co, t, mp, %d), mp[%d]}\n", tab, l, k, g.expr(1), k, k)
		default:
			fmt.Fprintf(b, "%s%s := map[int][]int{mp[%d]: {mp[%d], bumpN(co, t, mp, %d)}, %d: {mp[%d]}}\n", tab, l, k, k, k, 10+k, k)
		}
		fmt.Fprintf(b, "%st.Printf(\"literal %%v\", %s)\n", tab, l)
	case 39:
		// Range over a function with targets that depend on each
		// other: gc assigns them one after the other.
		rk, ra := g.fresh("rk"), g.fresh("ra")
		fmt.Fprintf(b, "%svar %s int\n%svar %s [5]int\n", tab, rk, tab, ra)
		fmt.Fprintf(b, "%sfor %s, %s[%s] = range pairs(%d) {\n", tab, rk, ra, rk, 1+g.r.Intn(3))
		fmt.Fprintf(b, "%s\tco.Gosched()\n%s\t%s += %s[%s]\n", tab, tab, g.v(), ra, rk)
		fmt.Fprintf(b, "%s}\n%st.Printf(\"range targets %%d %%v\", %s, %s)\n", tab, tab, rk, ra)
	case 17:
		l := g.fresh("L")
		fmt.Fprintf(b, "%sif %s {\n%s\tgoto %s\n%s}\n%s{\n", tab, g.cond(1), tab, l, tab, tab)
		g.block(b, indent+1, depth-1)
		fmt.Fprintf(b, "%s}\n%s%s:\n%st.Printf(\"label\")\n", tab, tab, l, tab)
	}
}

// smallKey writes a map lookup, assignment or literal whose key is of one
// of the kinds gc's map code tells apart, left of a call that changes the
// key.
func (g *progGen) smallKey(b *strings.Builder, tab string) {
	type keyKind struct{ typ, mk string }
	kinds := []keyKind{
		{"keyP2", "keyP2{int32(%s), 1}"}, {"[2]int32", "[2]int32{int32(%s), 1}"},
		{"keyA4", "keyA4{kb(%s)}"}, {"keyA8", "keyA8{kb(%s)}"}, {"struct{ v int64 }", "struct{ v int64 }{int64(%s)}"},
		{"keyP3", "keyP3{int32(%s), 1, 2}"}, {"keyS", "keyS{kstr(%s)}"}, {"int64", "int64(%s)"},
		{"[1]*int", "[1]*int{&PTRS[%s]}"},
	}
	k := kinds[g.r.Intn(len(kinds))]
	ptrs := g.fresh("ptrs")
	k.mk = strings.ReplaceAll(k.mk, "PTRS", ptrs)
	key := func(i string) string { return fmt.Sprintf(k.mk, i) }
	kv, km := g.fresh("kk"), g.fresh("km")
	if strings.Contains(k.mk, ptrs) {
		fmt.Fprintf(b, "%s%s := [3]int{}\n", tab, ptrs)
	}
	fmt.Fprintf(b, "%s%s := %s\n", tab, kv, key(fmt.Sprintf("((%s)%%3+3)%%3", g.expr(1))))
	fmt.Fprintf(b, "%s%s := map[%s]int{%s: 10, %s: 11, %s: 12}\n", tab, km, k.typ, key("0"), key("1"), key("2"))
	next := key(fmt.Sprintf("((%s+1)%%3+3)%%3", g.read()))
	switch g.r.Intn(4) {
	case 0:
		fmt.Fprintf(b, "%s%s = %s[%s] + setKey(co, t, &%s, %s)\n", tab, g.v(), km, kv, kv, next)
	case 1:
		fmt.Fprintf(b, "%s%s[%s] = setKey(co, t, &%s, %s)\n", tab, km, kv, kv, next)
	case 2:
		fmt.Fprintf(b, "%s%s[%s] += setKey(co, t, &%s, %s)\n", tab, km, kv, kv, next)
	default:
		fmt.Fprintf(b, "%s%s = []int{%s[%s], setKey(co, t, &%s, %s)}[0]\n", tab, g.v(), km, kv, kv, next)
	}
	fmt.Fprintf(b, "%st.Printf(\"key %%v\", %s[%s])\n", tab, km, kv)
	if k.typ == "[1]*int" {
		fmt.Fprintf(b, "%st.Printf(\"keys %%d\", len(%s))\n", tab, km)
	} else {
		fmt.Fprintf(b, "%st.Printf(\"keys %%v\", %s)\n", tab, km)
	}
	if strings.Contains(k.mk, ptrs) {
		fmt.Fprintf(b, "%s_ = %s\n", tab, ptrs)
	}
}

// unsafeOp writes an unsafe builtin left of a call that changes its
// operands: gc reads them late.
func (g *progGen) unsafeOp(b *strings.Builder, tab string) {
	ub, up, un := g.fresh("ub"), g.fresh("up"), g.fresh("un")
	fmt.Fprintf(b, "%s%s := []byte(\"abcdef\")\n%s%s := &%s[((%s)%%3+3)%%3]\n%s%s := ((%s)%%3+3)%%3\n", tab, ub, tab, up, ub, g.expr(1), tab, un, g.read())
	next := fmt.Sprintf("&%s[((%s+1)%%3+3)%%3]", ub, g.read())
	fmt.Fprintf(b, "%s_, _ = %s, %s\n", tab, up, un)
	switch g.r.Intn(5) {
	case 0:
		fmt.Fprintf(b, "%st.Printf(\"unsafe %%s %%d\", unsafepkg.String(%s, 2), setKey(co, t, &%s, %s))\n", tab, up, up, next)
	case 1:
		fmt.Fprintf(b, "%st.Printf(\"unsafe %%s %%d\", unsafepkg.Slice(%s, %s+1), setKey(co, t, &%s, %s+1))\n", tab, up, un, un, un)
	case 2:
		fmt.Fprintf(b, "%st.Printf(\"unsafe %%c %%d\", *(*byte)(unsafepkg.Add(unsafepkg.Pointer(%s), %s)), setKey(co, t, &%s, 2-%s))\n", tab, up, un, un, un)
	case 3:
		s := g.fresh("us")
		fmt.Fprintf(b, "%s%s := string(%s)\n%st.Printf(\"unsafe %%c %%d\", *unsafepkg.StringData(%s), setKey(co, t, &%s, \"xyz\"))\n", tab, s, ub, tab, s, s)
	default:
		fmt.Fprintf(b, "%st.Printf(\"unsafe %%c %%d\", *unsafepkg.SliceData(%s), setKey(co, t, &%s, %s[1:]))\n", tab, ub, ub, ub)
	}
	fmt.Fprintf(b, "%s%s += int(%s[0]) %% 7\n", tab, g.v(), ub)
}

// generic writes a call of a generic marked function or method whose
// order gc decides per shape.
func (g *progGen) generic(b *strings.Builder, tab string) {
	x, y := g.expr(1), g.read()
	// Three of the seven shapes, so that the first seeds meet them all.
	first := g.r.Intn(7)
	for _, variant := range []int{first, (first + 2) % 7, (first + 4) % 7} {
		g.genericShape(b, tab, variant, x, y)
	}
}

func (g *progGen) genericShape(b *strings.Builder, tab string, variant int, x, y string) {
	switch variant {
	case 0:
		fmt.Fprintf(b, "%st.Printf(\"gfill %%v\", gfill(co, t, map[keyP2]string{}, keyP2{int32(%s), 1}, kstr(%s)))\n", tab, x, y)
	case 1:
		fmt.Fprintf(b, "%st.Printf(\"gfill %%v\", gfill(co, t, map[string][3]int{}, kstr(%s), [3]int{%s}))\n", tab, x, y)
	case 2:
		kt := []string{"keyP2", "keyA8", "[2]int32"}[g.r.Intn(3)]
		mk := map[string]string{"keyP2": "keyP2{int32(%s %% 3), 1}", "keyA8": "keyA8{kb(%s %% 3)}", "[2]int32": "[2]int32{int32(%s %% 3)}"}[kt]
		fmt.Fprintf(b, "%s%s = gsmall(co, t, map[%s]int{%s: 1, %s: 2}, %s, %s)\n", tab, g.v(), kt,
			fmt.Sprintf(mk, "0"), fmt.Sprintf(mk, "1"), fmt.Sprintf(mk, x), fmt.Sprintf(mk, "("+y+"+1)"))
		fmt.Fprintf(b, "%s%s = gint(co, t, map[int64]int{0: 1, 1: 2}, int64(%s %% 2), int64(%s %% 2))\n", tab, g.v(), y, x)
	case 3:
		fmt.Fprintf(b, "%st.Printf(\"gfill %%v\", gfill(co, t, map[keyA8]int{}, keyA8{kb(%s)}, %s))\n", tab, x, y)
	case 4:
		fmt.Fprintf(b, "%sif %s%%2 == 0 {\n%s\t%s = gassert[int](co, t, %s, %s)\n%s} else {\n%s\tt.Printf(\"gassert %%v\", gassert[[2]int](co, t, [2]int{%s}, [2]int{%s}))\n%s}\n",
			tab, y, tab, g.v(), x, y, tab, tab, x, y, tab)
	case 5:
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(b, "%st.Printf(\"gconv %%s\", gconv(co, t, map[string][2]int{\"k\": {%s}}, [2]int{%s, 1}))\n", tab, x, y)
		} else {
			fmt.Fprintf(b, "%st.Printf(\"gconv %%s\", gconvs(co, t, map[string]string{\"k\": kstr(%s)}, kstr(%s)))\n", tab, x, y)
		}
	default:
		c := g.fresh("gc")
		fmt.Fprintf(b, "%s%s := &gcache[keyA4, int]{m: map[keyA4]int{}}\n%s%s = %s.put(co, t, keyA4{kb(%s)}, %s)\n%st.Printf(\"gcache %%v\", %s.m)\n", tab, c, tab, g.v(), c, x, y, tab, c)
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
		"range misbehave(": 0, "range panicky(": 0, "range deferSeq(": 0, "named(co": 0, ".(type)": 0,
		"grow(co": 0, "bump(co": 0, "swap(co": 0, "min(len(": 0, "type pt": 0, "case any(": 0, "%2 == 0 {": 0,
		"setKey(co, t, &kk": 0, "unsafepkg.": 0, "bumpN(co": 0, "] = range pairs(": 0, "gfill(co": 0, "gsmall(co": 0,
		"gint(co": 0, "gassert[": 0, "gconv": 0, ".put(co": 0,
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

// TestRandomPrograms is the long mode of the differential test's random
// programs: COGEN_RANDOM_LONG=n runs the n programs of seeds
// COGEN_RANDOM_FIRST (default 100000) onwards, in batches of
// COGEN_RANDOM_BATCH (default 250) programs, each batch generated, vetted,
// built into one harness and run in both models in a module of its own.
// COGEN_RANDOM_PER_PACKAGE programs (default 10) share a package and its
// helpers (randPackage): a program costs less than half the CPU it costs
// alone. CI runs 500 (from a seed that moves with the commit: .ci/run);
// a long run 20,000 or more:
//
//	COGEN_RANDOM_LONG=20000 go test ./gen -run TestRandomPrograms -timeout 0
//
// A failing program is reproduced alone with the same seed:
// COGEN_RANDOM_LONG=1 COGEN_RANDOM_FIRST=<seed>.
func TestRandomPrograms(t *testing.T) {
	n := envInt("COGEN_RANDOM_LONG", 0)
	if n == 0 {
		t.Skip("COGEN_RANDOM_LONG=n runs n random programs (CI: 500)")
	}
	first, batch := envInt("COGEN_RANDOM_FIRST", 100000), envInt("COGEN_RANDOM_BATCH", 250)
	perPkg := max(1, envInt("COGEN_RANDOM_PER_PACKAGE", 10))
	if batch == 0 {
		batch = 250
	}
	for start := first; start < first+n; start += batch {
		end := min(start+batch, first+n)
		t.Run(fmt.Sprintf("seeds%d-%d", start, end-1), func(t *testing.T) {
			w := &workspace{}
			defer func() {
				if w.dir != "" {
					os.RemoveAll(w.dir)
				}
			}()
			if err := w.module(); err != nil {
				t.Fatal(err)
			}
			if err := w.writeProgram(randSharedName, randShared); err != nil {
				t.Fatal(err)
			}
			w.programs = end - start
			for pkg := start; pkg < end; pkg += perPkg {
				var seeds []int64
				for seed := pkg; seed < min(pkg+perPkg, end); seed++ {
					seeds = append(seeds, int64(seed))
				}
				name := fmt.Sprintf("random%d", pkg)
				if err := w.writeProgram(name, randPackage(name, seeds)); err != nil {
					t.Fatal(err)
				}
				w.random = append(w.random, name)
			}
			if err := w.generate(); err != nil {
				t.Fatal(err)
			}
			w.run()
			if w.runErr != nil {
				t.Fatal(w.runErr)
			}
			t.Logf("CPU seconds of %d programs in %d packages: cogen %.1f, build %.1f, vet %.1f, run %.1f", end-start, len(w.random),
				w.cpu["cogen"].Seconds(), w.cpu["build"].Seconds(), w.cpu["vet"].Seconds(), w.cpu["run"].Seconds())
			for _, c := range w.random {
				t.Run(c, func(t *testing.T) { checkResults(t, w, c) })
			}
		})
	}
}

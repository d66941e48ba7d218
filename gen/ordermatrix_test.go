package gen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The evaluation-order matrix: every kind of operand, in every position an
// operand can take, to the left of a suspending call that changes what the
// operand reads (the variable, the field, the pointer, the slice, the map,
// the bytes, the interface, the channel, the receiver, the closure). Each
// cell is a //co:stackless function; the differential test runs it in both
// models, and the stackful run is what gc does, so every cell checks that
// the generated code evaluates the operand where gc does. One package per
// operand kind keeps the build to one harness.

// operandKind is an operand expression over the cell's state.
type operandKind struct {
	name string
	typ  string // its Go type
	expr string // the operand, over st (*state) and x (an int local)
	zero string // the suspending call's argument and result: the operand's value before the call, so that comparing the two tells whether the operand was read before it
	show string // how a value v of typ is printed (default: v)
	cmp  bool   // comparable
	num  bool   // an int: usable as an index and in arithmetic
	lv   bool   // addressable: usable as an assignment target
	rng  bool   // rangeable
	ok   bool   // has a comma-ok form (assertion, map lookup, receive)
	// tparam makes the cells generic: "T ~int" declares the type
	// parameter T that typ and expr name, targ instantiates it.
	tparam, targ string
}

var operandKinds = []operandKind{
	{name: "var", typ: "int", expr: "x", zero: `1`, cmp: true, num: true, lv: true},
	{name: "field", typ: "int", expr: "st.v", zero: `5`, cmp: true, num: true, lv: true},
	{name: "valuefield", typ: "int", expr: "loc.v", zero: `0`, cmp: true, num: true, lv: true},
	{name: "deref", typ: "int", expr: "*st.p", zero: `3`, cmp: true, num: true, lv: true},
	{name: "index", typ: "int", expr: "st.s[0]", zero: `1`, cmp: true, num: true, lv: true},
	{name: "arrayindex", typ: "int", expr: "st.a[0]", zero: `4`, cmp: true, num: true, lv: true},
	{name: "mapindex", typ: "int", expr: `st.m["k"]`, zero: `8`, cmp: true, num: true, lv: true, ok: true},
	{name: "slice", typ: "[]int", expr: "st.s[0:2]", zero: "nil", rng: true},
	{name: "stringslice", typ: "string", expr: "st.str[0:2]", zero: `"ab"`, cmp: true, rng: true},
	{name: "len", typ: "int", expr: "len(st.s)", zero: `3`, cmp: true, num: true},
	{name: "cap", typ: "int", expr: "cap(st.s)", zero: `3`, cmp: true, num: true},
	{name: "min", typ: "int", expr: "min(st.v, 1000)", zero: `5`, cmp: true, num: true},
	{name: "max", typ: "int", expr: "max(st.v, 0)", zero: `5`, cmp: true, num: true},
	{name: "copy", typ: "int", expr: "copy(st.s, []int{st.v})", zero: `1`, cmp: true, num: true},
	{name: "real", typ: "float64", expr: "real(st.c)", zero: `3`, cmp: true},
	{name: "new", typ: "int", expr: "*new(st.v)", zero: `5`, cmp: true, num: true},
	{name: "make", typ: "[]int", expr: "make([]int, st.v%8)", zero: "nil", show: "len(%s)"},
	{name: "append", typ: "[]int", expr: "append(st.s[:1:1], st.v)", zero: "nil", rng: true},
	{name: "complex", typ: "complex128", expr: "complex(float64(st.v), 1)", zero: `complex(5, 1)`, cmp: true},
	{name: "conversion", typ: "float64", expr: "float64(st.v)", zero: `5`, cmp: true},
	{name: "bytes", typ: "[]byte", expr: "[]byte(st.str)", zero: "nil", show: "string(%s)", rng: true},
	{name: "runes", typ: "[]rune", expr: "[]rune(st.str)", zero: "nil", show: "string(%s)"},
	{name: "string", typ: "string", expr: "string(st.b)", zero: `"ab"`, cmp: true},
	{name: "byteskey", typ: "int", expr: "st.m2[string(st.b)]", zero: `1`, cmp: true, num: true, ok: true},
	{name: "iface", typ: "any", expr: "any(st.v)", zero: `any(5)`, cmp: true},
	{name: "ifacestruct", typ: "any", expr: "any(st.pt)", zero: `any(point{1, 2})`, cmp: true},
	{name: "ifacelit", typ: "any", expr: "any(point{st.v, 1})", zero: `any(point{5, 1})`, cmp: true},
	{name: "compare", typ: "bool", expr: "st.v > 50", zero: `false`, cmp: true},
	{name: "logical", typ: "bool", expr: "st.v > 0 && st.v < 50", zero: `true`, cmp: true},
	{name: "assert", typ: "int", expr: "st.i.(int)", zero: `1`, cmp: true, num: true, ok: true},
	{name: "assertptr", typ: "int", expr: "*st.ip.(*int)", zero: `1`, cmp: true, num: true},
	{name: "assertok", typ: "bool", expr: "assertOK(st.i)", zero: `true`, cmp: true},
	{name: "receive", typ: "int", expr: "<-st.ch", zero: `11`, cmp: true, num: true, ok: true},
	{name: "methodvalue", typ: "func() int", expr: "st.obj.get", zero: "st.f", show: "%s()"},
	{name: "methodcall", typ: "int", expr: "st.obj.get()", zero: `1`, cmp: true, num: true},
	{name: "closurecall", typ: "int", expr: "st.f()", zero: `10`, cmp: true, num: true},
	{name: "literal", typ: "point", expr: "point{st.v, x}", zero: `point{5, 1}`, cmp: true},
	{name: "sliceliteral", typ: "[]int", expr: "[]int{st.v, x}", zero: "nil", rng: true},
	{name: "mapliteral", typ: "map[string]int", expr: `map[string]int{"v": st.v}`, zero: "nil", show: `%s["v"]`},
	{name: "arith", typ: "int", expr: "st.v*2 + x", zero: `11`, cmp: true, num: true},
	{name: "concat", typ: "string", expr: `st.str + "!"`, zero: `"ab!"`, cmp: true},
	// Map keys of 4 or 8 bytes that are structs or arrays (a fast map
	// copies them at their place), a struct of one string (a fast string
	// map), and the key alone.
	{name: "smallkey", typ: "int", expr: "st.m4[st.k4]", zero: `1`, cmp: true, num: true, lv: true, ok: true},
	{name: "arraykey", typ: "int", expr: "st.m8[st.k8]", zero: `1`, cmp: true, num: true, lv: true, ok: true},
	{name: "bytekey", typ: "int", expr: "st.mb4[st.kb4]", zero: `1`, cmp: true, num: true, lv: true, ok: true},
	{name: "stringkey", typ: "int", expr: "st.ms[st.ks]", zero: `1`, cmp: true, num: true, lv: true, ok: true},
	{name: "smallstruct", typ: "pair", expr: "st.k4", zero: `pair{1, 1}`, cmp: true},
	// The unsafe builtins read their operands late.
	{name: "unsafestring", typ: "string", expr: "unsafe.String(st.up, 2)", zero: `"ab"`, cmp: true, rng: true},
	{name: "unsafeslice", typ: "[]byte", expr: "unsafe.Slice(st.up, st.n)", zero: "nil", show: "string(%s)"},
	{name: "unsafeadd", typ: "int", expr: "int(*(*byte)(unsafe.Add(unsafe.Pointer(st.up), st.n)))", zero: `98`, cmp: true, num: true},
	{name: "stringdata", typ: "int", expr: "int(*unsafe.StringData(st.str))", zero: `97`, cmp: true, num: true},
	// Generic cells: an assertion to a type parameter (gc's dynamic
	// assertion, late), and a conversion to one whose shape is converted
	// to an interface through its address (copied at its place there).
	{name: "tparamassert", typ: "T", expr: "st.i.(T)", zero: `1`, cmp: true, tparam: "T ~int", targ: "int"},
	{name: "tparamconv", typ: "T", expr: "T(st.a2)", zero: `[2]int{1, 2}`, cmp: true, tparam: "T ~[2]int", targ: "[2]int"},
}

// A position places an operand E to the left of the suspending call S of
// the same type, leaving the results in a and b (or tracing them itself).
type position struct {
	name  string
	ok    func(k operandKind) bool
	code  string // {{E}}, {{S}}, {{T}}, {{cell}}; sets a, b or traces
	ret   bool   // the cell calls a helper returning E, S
	typed bool   // a and b have E's type (printed as the kind shows them)
}

func any2(operandKind) bool        { return true }
func cmpKind(k operandKind) bool   { return k.cmp }
func numKind(k operandKind) bool   { return k.num }
func lvKind(k operandKind) bool    { return k.lv }
func rangeKind(k operandKind) bool { return k.rng }
func okKind(k operandKind) bool    { return k.ok }

// printable kinds print the same in both runs (no func values).
func printable(k operandKind) bool { return !strings.HasPrefix(k.typ, "func") }

var positions = []position{
	{name: "eqleft", ok: cmpKind, code: "a := ({{E}}) == {{S}}\n\tb := 0"},
	{name: "eqright", ok: cmpKind, code: "a := {{S}} == ({{E}})\n\tb := 0"},
	{name: "ifacecmp", ok: cmpKind, code: "a := ({{E}}) == any({{S}})\n\tb := any({{S}}) == ({{E}})"},
	{name: "add", ok: numKind, code: "a := ({{E}}) + {{S}}\n\tb := 0"},
	{name: "args", typed: true, ok: any2, code: "a, b := pass({{E}}, {{S}})"},
	{name: "ifaceargs", typed: true, ok: any2, code: "ia, ib := passAny({{E}}, {{S}})\n\ta, b := ia.({{T}}), ib.({{T}})"},
	{name: "ifaceelems", typed: true, ok: any2, code: "l := []any{{{E}}, {{S}}}\n\ta, b := l[0].({{T}}), l[1].({{T}})"},
	{name: "ifaceassign", typed: true, ok: any2, code: "var ia, ib any\n\tia, ib = {{E}}, {{S}}\n\ta, b := ia.({{T}}), ib.({{T}})"},
	{name: "sprint", ok: printable, code: "a := fmt.Sprint({{E}}, {{S}})\n\tb := 0"},
	{name: "variadic", typed: true, ok: any2, code: "l := list({{E}}, {{S}})\n\ta, b := l[0], l[1]"},
	{name: "sliceelems", typed: true, ok: any2, code: "l := []{{T}}{{{E}}, {{S}}}\n\ta, b := l[0], l[1]"},
	{name: "fields", typed: true, ok: any2, code: "l := struct{ a, b {{T}} }{{{E}}, {{S}}}\n\ta, b := l.a, l.b"},
	{name: "mapvalues", typed: true, ok: any2, code: "l := map[int]{{T}}{1: {{E}}, 2: {{S}}}\n\ta, b := l[1], l[2]"},
	{name: "mapkeys", ok: cmpKind, code: "l := map[{{T}}]int{{{E}}: 1, {{S}}: 2}\n\ta, b := len(l), 0"},
	{name: "define", typed: true, ok: any2, code: "a, b := {{E}}, {{S}}"},
	{name: "assign", typed: true, ok: any2, code: "var a, b {{T}}\n\ta, b = {{E}}, {{S}}"},
	{name: "varspec", typed: true, ok: any2, code: "var a, b {{T}} = {{E}}, {{S}}"},
	{name: "target", ok: lvKind, code: "{{E}} = {{S}}\n\ta, b := 0, 0"},
	{name: "targets", ok: lvKind, code: "var b int\n\t{{E}}, b = 5, {{S}}\n\ta := 0"},
	{name: "opassign", ok: lvKind, code: "{{E}} += {{S}}\n\ta, b := 0, 0"},
	{name: "index", ok: numKind, code: "tbl := make([]int, 1000)\n\tfor i := range tbl {\n\t\ttbl[i] = i * 3\n\t}\n\ta := tbl[{{E}}] + {{S}}\n\tb := 0"},
	{name: "indextarget", ok: numKind, code: "tbl := make([]int, 1000)\n\ttbl[{{E}}] = {{S}}\n\ta, b := firstSet(tbl), 0"},
	{name: "key", ok: cmpKind, code: "l := map[{{T}}]int{}\n\tl[{{E}}] = 5\n\ta, b := l[{{E}}], one({{S}})"},
	{name: "keytarget", ok: cmpKind, code: "l := map[{{T}}]int{}\n\tl[{{E}}] = one({{S}})\n\ta, b := len(l), 0"},
	{name: "return", typed: true, ok: any2, ret: true, code: "a, b := {{fn}}(co, st, x)"},
	{name: "send", typed: true, ok: any2, code: "ch := make(chan [2]{{T}}, 1)\n\tch <- [2]{{T}}{{{E}}, {{S}}}\n\tl := <-ch\n\ta, b := l[0], l[1]"},
	{name: "defer", ok: any2, code: "defer func(a, b {{T}}) {\n\t\tt.Printf(\"{{cell}} deferred %v %v\", {{showa}}, {{showb}})\n\t}({{E}}, {{S}})\n\ta, b := 0, 0"},
	{name: "go", typed: true, ok: any2, code: "done := make(chan [2]{{T}}, 1)\n\tgo func(a, b {{T}}) {\n\t\tdone <- [2]{{T}}{a, b}\n\t}({{E}}, {{S}})\n\tl := <-done\n\ta, b := l[0], l[1]"},
	{name: "if", ok: cmpKind, code: "a := false\n\tif ({{E}}) == {{S}} {\n\t\ta = true\n\t}\n\tb := 0"},
	{name: "for", ok: cmpKind, code: "a := 0\n\tfor n := 0; n < 1 && ({{E}}) != {{S}}; n++ {\n\t\ta++\n\t}\n\tb := 0"},
	{name: "switchtag", ok: cmpKind, code: "a := 0\n\tswitch ({{E}}) {\n\tcase {{S}}:\n\t\ta = 1\n\tdefault:\n\t\ta = 2\n\t}\n\tb := 0"},
	{name: "cases", ok: cmpKind, code: "a := 0\n\tswitch {{S}} {\n\tcase {{E}}:\n\t\ta = 1\n\t}\n\tb := 0"},
	{name: "casecall", ok: cmpKind, code: "a := 0\n\tswitch {\n\tcase ({{E}}) == {{S}}:\n\t\ta = 1\n\t}\n\tb := 0"},
	{name: "commaok", ok: okKind, code: "tbl := make([]int, 300)\n\tvar ok bool\n\ttbl[{{S}}%300], ok = {{E}}\n\ta, b := firstSet(tbl), ok"},
	{name: "commaokdefine", ok: okKind, code: "a, ok := {{E}}\n\tb := {{S}}\n\t_ = ok"},
	{name: "rangeint", ok: numKind, code: "a, b := 0, 0\n\tfor i := range {{E}} {\n\t\tif i == 0 {\n\t\t\t_ = {{S}}\n\t\t}\n\t\ta++\n\t}"},
	{name: "range", ok: rangeKind, code: "a, b := 0, 0\n\tfor i, v := range {{E}} {\n\t\tif i == 0 {\n\t\t\t_ = {{S}}\n\t\t}\n\t\tt.Printf(\"{{cell}} range %v %v\", i, v)\n\t\ta++\n\t}"},
}

// matrixPackage writes the package of one operand kind's cells.
func matrixPackage(pkg string, k operandKind) string {
	var b strings.Builder
	fmt.Fprintf(&b, `package %s

import (
	"fmt"
	"unsafe"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type point struct{ x, y int }

var _ = unsafe.Sizeof(0)

type pair struct{ a, b int32 }

type strKey struct{ s string }

type obj struct{ n int }

func (o *obj) get() int { return o.n }

// state is what the operands read and mut changes.
type state struct {
	t   *trace.T
	x   *int
	v   int
	p   *int
	s   []int
	a   [3]int
	m   map[string]int
	m2  map[string]int
	b   []byte
	str string
	i   any
	ip  any
	ch  chan int
	obj *obj
	f   func() int
	pt  point
	lp  *int
	c   complex128
	k4  pair
	m4  map[pair]int
	k8  [8]byte
	m8  map[[8]byte]int
	kb4 [4]byte
	mb4 map[[4]byte]int
	ks  strKey
	ms  map[strKey]int
	up  *byte
	n   int
	a2  [2]int
}

func newState(t *trace.T, x *int, loc *int) *state {
	one, v := 1, 3
	st := &state{t: t, x: x, v: 5, p: &v, s: []int{1, 2, 3}, a: [3]int{4, 5, 6},
		m: map[string]int{"k": 8}, m2: map[string]int{"ab": 1, "zb": 2}, b: []byte("ab"),
		str: "ab", i: 1, ip: &one, ch: make(chan int, 4), obj: &obj{n: 1},
		f: func() int { return 10 }, pt: point{1, 2}, lp: loc, c: 3,
		k4: pair{1, 1}, m4: map[pair]int{{1, 1}: 1, {2, 2}: 2}, k8: [8]byte{1}, m8: map[[8]byte]int{{1}: 1, {2}: 2},
		kb4: [4]byte{1}, mb4: map[[4]byte]int{{1}: 1, {2}: 2}, ks: strKey{"a"}, ms: map[strKey]int{{"a"}: 1, {"b"}: 2},
		up: &[]byte("abcd")[0], n: 1, a2: [2]int{1, 2}}
	st.ch <- 11
	st.ch <- 12
	return st
}

func (st *state) String() string {
	return fmt.Sprintf("x=%%d v=%%d p=%%d s=%%v a=%%v m=%%v b=%%s str=%%s i=%%v ch=%%d obj=%%d f=%%d pt=%%v loc=%%v",
		*st.x, st.v, *st.p, st.s, st.a, st.m, st.b, st.str, st.i, len(st.ch), st.obj.n, st.f(), st.pt, *st.lp)
}

// mut suspends, then changes everything an operand can read.
//
//co:stackless
func mut[T any](co *stackful.Co, st *state, v T) T {
	co.Gosched()
	*st.x += 100
	st.v += 100
	w := *st.p + 1000
	st.p = &w
	st.s = append(st.s, 100)
	st.s[0] += 100
	st.a[0] += 100
	st.m["k"] += 100
	st.b[0] = 'z'
	st.str = "zz" + st.str
	st.i = "changed"
	two := 2
	st.ip = &two
	st.ch = make(chan int, 4)
	st.ch <- 77
	st.obj = &obj{n: 2}
	st.f = func() int { return 20 }
	st.pt.x += 100
	*st.lp += 100
	st.c += 100
	st.k4 = pair{2, 2}
	st.k8[0] = 2
	st.kb4[0] = 2
	st.ks = strKey{"b"}
	st.up = &[]byte("wxyz")[0]
	st.n = 2
	st.a2[0] += 100
	st.t.Printf("mut")
	return v
}

func pass[T any](a, b T) (T, T) { return a, b }

func passAny(a, b any) (any, any) { return a, b }

func list[T any](v ...T) []T { return v }

func one[T any](T) int { return 1 }

func assertOK(i any) bool {
	_, ok := i.(int)
	return ok
}

func firstSet(tbl []int) int {
	for i, v := range tbl {
		if v != 0 {
			return i*10000 + v
		}
	}
	return -1
}

type holder struct{ v int }

// Run runs every cell of operand kind %s.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
`, pkg, k.name)
	var cells []string
	for _, p := range positions {
		if p.ok(k) {
			cells = append(cells, p.name)
		}
	}
	inst, tparams, tname := "", "", ""
	if k.tparam != "" {
		inst, tparams = "["+k.targ+"]", "["+k.tparam+"]"
		tname = "[" + strings.Fields(k.tparam)[0] + "]"
	}
	for _, c := range cells {
		fmt.Fprintf(&b, "\t%s%s(co, t)\n", c+"Cell", inst)
	}
	b.WriteString("}\n")
	show := func(v string) string {
		if k.show == "" {
			return v
		}
		return fmt.Sprintf(k.show, v)
	}
	for _, p := range positions {
		if !p.ok(k) {
			continue
		}
		cell := p.name + "Cell"
		s := fmt.Sprintf("mut(co, st, %s(%s))", k.typ, k.zero)
		if k.zero == "nil" || strings.HasPrefix(k.typ, "func") || k.typ == "point" {
			s = fmt.Sprintf("mut[%s](co, st, %s)", k.typ, k.zero)
		}
		code := p.code
		if p.ret {
			fmt.Fprintf(&b, `
//co:stackless
func %sRet%s(co *stackful.Co, st *state, x int) (%s, %s) {
	st.x = &x
	var loc holder
	st.lp = &loc.v
	return %s, %s
}
`, cell, tparams, k.typ, k.typ, k.expr, s)
		}
		r := strings.NewReplacer("{{E}}", k.expr, "{{S}}", s, "{{T}}", k.typ, "{{cell}}", k.name+"/"+p.name,
			"{{showa}}", show("a"), "{{showb}}", show("b"), "{{fn}}", cell+"Ret"+tname)
		code = r.Replace(code)
		sa, sb := "a", "b"
		if p.typed {
			sa, sb = show("a"), show("b")
		}
		fmt.Fprintf(&b, `
//co:stackless
func %s%s(co *stackful.Co, t *trace.T) {
	x := 1
	var loc holder
	st := newState(t, &x, &loc.v)
	_, _ = x, loc
	defer func() {
		if r := recover(); r != nil {
			t.Printf("%s/%s panic: %%v", r)
		}
		t.Printf("%s/%s state %%v", st)
	}()
	%s
	t.Printf("%s/%s %%v %%v", %s, %s)
}
`, cell, tparams, k.name, p.name, k.name, p.name, code, k.name, p.name, sa, sb)
	}
	return b.String()
}

// markChannelOps puts //co:blocking on every line with a channel operation:
// the matrix's channels are buffered and never wait, which the blocking
// check (go vet with cogen) cannot know.
func markChannelOps(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.Contains(l, "<-") && !strings.Contains(l, "//") {
			lines[i] = l + " //co:blocking buffered, never waits"
		}
	}
	return strings.Join(lines, "\n")
}

// matrixPackages returns the matrix's packages by name and its number of
// cells.
func matrixPackages() (map[string]string, int) {
	out := map[string]string{}
	n := 0
	for _, k := range operandKinds {
		out["matrix"+k.name] = markChannelOps(matrixPackage("matrix"+k.name, k))
		for _, p := range positions {
			if p.ok(k) {
				n++
			}
		}
	}
	return out, n
}

// TestEvalOrderMatrix checks every cell of the matrix in both models and
// names the cells whose traces differ.
func TestEvalOrderMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	w := setup(t)
	w.runOnce.Do(w.run)
	if w.runErr != nil {
		t.Fatal(w.runErr)
	}
	_, cells := matrixPackages()
	t.Logf("%d operand kinds, %d positions, %d cells", len(operandKinds), len(positions), cells)
	for _, name := range w.matrix {
		lines := w.results[name]
		ok := 0
		for _, l := range lines {
			f := strings.Fields(l)
			switch f[0] {
			case "OK":
				ok++
			case "FAIL":
				t.Errorf("%s: %s", name, strings.Join(cellDiffs(lines), "\n"))
			}
			if f[0] == "FAIL" {
				break
			}
		}
		if ok == 0 && len(lines) == 0 {
			t.Errorf("no result for %s", name)
		}
	}
}

// cellDiffs compares the traces of a failed matrix package cell by cell.
func cellDiffs(lines []string) []string {
	full, less := map[string][]string{}, map[string][]string{}
	var order []string
	for _, l := range lines {
		if strings.HasPrefix(l, "FAIL") && len(full)+len(less) > 0 {
			break // the next seeds repeat the first one's cells
		}
		var m map[string][]string
		var rest string
		if r, ok := strings.CutPrefix(l, "  stackful:  "); ok {
			m, rest = full, r
		} else if r, ok := strings.CutPrefix(l, "  stackless: "); ok {
			m, rest = less, r
		} else {
			continue
		}
		cell, _, _ := strings.Cut(rest, " ")
		if cell == "mut" {
			continue
		}
		if _, seen := full[cell]; !seen {
			if _, seen := less[cell]; !seen {
				order = append(order, cell)
			}
		}
		m[cell] = append(m[cell], rest)
	}
	sort.Strings(order)
	var out []string
	for _, c := range order {
		if fmt.Sprint(full[c]) != fmt.Sprint(less[c]) {
			out = append(out, fmt.Sprintf("cell %s:\n  gc:        %s\n  generated: %s", c, strings.Join(full[c], " | "), strings.Join(less[c], " | ")))
		}
	}
	if len(out) == 0 {
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// TestWriteMatrix writes the matrix's packages into $COGEN_MATRIX_DUMP, to
// look at a cell or run cogen on it by hand (skipped otherwise).
func TestWriteMatrix(t *testing.T) {
	dir := os.Getenv("COGEN_MATRIX_DUMP")
	if dir == "" {
		t.Skip()
	}
	pkgs, _ := matrixPackages()
	for name, src := range pkgs {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, name+".go"), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

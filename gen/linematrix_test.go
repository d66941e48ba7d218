package gen_test

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The line matrix is the corpus program linematrix.go, written by
// lineMatrix from the templates below: every statement and expression
// position of a //co:stackless function (conditions, tags, cases, range
// expressions, call arguments, composite elements, return values, defer
// paths, closures, the operands of multi-line expressions) holds a probe.
// A call probe, at, records the file:line runtime.Caller reports for it; a
// panic probe (an index out of range, a division by zero, a failed type
// assertion, a nil dereference) is recovered by the function's deferred
// caught, which records the line of the function's own frame on the
// panicking stack. The differential test runs it in both models: the
// stackful run reports gc's lines for the source, the stackless run those
// of the generated code through its //line directives, and they must agree.

// lineTemplate is a function body; @N marks a hole of value N (a digit).
type lineTemplate struct {
	name string
	body string
	ret  bool // the body returns (the function has results)
}

var lineTemplates = []lineTemplate{
	{"stmt", `
	co.Gosched()
	t.Printf("v %d", @1)
	x := @2
	x += @3
	t.Printf("x %d", x)`, false},
	{"ifLowered", `
	co.Gosched()
	if @0 > 0 {
		co.Gosched()
	} else if @2 > 1 {
		co.Gosched()
		t.Printf("else if %d", @3)
	}
	t.Printf("after %d", @4)`, false},
	{"ifCopied", `
	co.Gosched()
	if @0 > 0 {
		t.Printf("no")
	} else if @2 > 1 {
		t.Printf("yes %d", @3)
	}`, false},
	{"ifSuspendingCond", `
	co.Gosched()
	if step(co, 1) > @0 && @1 > 0 {
		t.Printf("then %d", @2)
	}`, false},
	{"forLowered", `
	co.Gosched()
	for i := @0; i < @2; i += @1 {
		co.Gosched()
		t.Printf("i %d", i)
	}
	t.Printf("after %d", @5)`, false},
	{"forCopied", `
	co.Gosched()
	for i := @0; i < @2; i += @1 {
		t.Printf("i %d", i)
	}`, false},
	{"forSuspendingCond", `
	co.Gosched()
	for i := 0; i < step(co, 2)+@0; i++ {
		t.Printf("i %d %d", i, @1)
	}`, false},
	{"switchLowered", `
	co.Gosched()
	switch @2 {
	case @1:
		t.Printf("one")
	case @3,
		@2:
		co.Gosched()
		t.Printf("two")
	}`, false},
	{"switchSuspendingCase", `
	co.Gosched()
	switch @2 {
	case step(co, 1):
		t.Printf("one")
	case @2:
		t.Printf("two")
	}`, false},
	{"switchTagless", `
	co.Gosched()
	switch {
	case @1 > 5:
		co.Gosched()
	case @2 > 1:
		t.Printf("two")
	}`, false},
	{"switchCopied", `
	co.Gosched()
	switch x := @2; x {
	case @1:
		t.Printf("one")
	default:
		t.Printf("other %d", @3)
	}`, false},
	{"typeSwitch", `
	co.Gosched()
	switch v := any(@2).(type) {
	case string:
		t.Printf("string")
	case int:
		co.Gosched()
		t.Printf("int %d", v+@1)
	}`, false},
	{"rangeSlice", `
	co.Gosched()
	for _, v := range xs[:@2] {
		co.Gosched()
		t.Printf("v %d", v)
	}`, false},
	{"rangeInt", `
	co.Gosched()
	for i := range @2 {
		co.Gosched()
		t.Printf("i %d %d", i, @1)
	}`, false},
	{"rangeMap", `
	co.Gosched()
	for k, v := range map[int]int{@1: @2} {
		co.Gosched()
		t.Printf("%d %d", k, v)
	}`, false},
	{"rangeCopied", `
	co.Gosched()
	for i, c := range "ab"[:@1] {
		t.Printf("%d %c %d", i, c, @2)
	}`, false},
	{"callArgs", `
	co.Gosched()
	t.Printf("%d %d %d",
		@1,
		step(co, 2),
		@3)`, false},
	{"compositeElems", `
	co.Gosched()
	ys := []int{
		@1,
		step(co, 2),
		@3,
	}
	p := pair{
		a: @4,
		b: step(co, 5) + @6,
	}
	m := map[int]int{
		@7: step(co, 8),
	}
	t.Printf("%v %v %v", ys, p, m)`, false},
	{"binaryMultiline", `
	co.Gosched()
	x := @1 +
		step(co, 2)*
			@3
	t.Printf("%d", x)`, false},
	{"methodChain", `
	co.Gosched()
	var c counter
	c.
		add(@1).
		add(step(co, 2)).
		add(@3)
	t.Printf("%d", c.n)`, false},
	{"returnValues", `
	co.Gosched()
	return @1 +
		step(co, 2) +
		@3`, true},
	{"returnCopied", `
	co.Gosched()
	if @1 > 0 {
		return @2
	}
	return @3`, true},
	{"deferPaths", `
	defer t.Printf("deferred %d", @1)
	defer func() {
		t.Printf("closure %d", @2)
	}()
	co.Gosched()
	defer func(v int) {
		t.Printf("closure %d %d", v, @3)
	}(@4)
	co.Gosched()`, false},
	{"closures", `
	co.Gosched()
	fn := func(v int) int {
		return v + @1
	}
	t.Printf("%d", fn(step(co, 2)))
	g := func() {
		co.Gosched()
		t.Printf("%d", @3)
	}
	g()`, false},
	{"assignTargets", `
	co.Gosched()
	ys := make([]int, 4)
	ys[@1] = step(co, 2)
	ys[@2]++
	ch := make(chan int, 1)
	ch <- @3 //co:blocking
	t.Printf("%v %d", ys, <-ch) //co:blocking`, false},
	{"labeled", `
	co.Gosched()
outer:
	for i := 0; i < @2; i++ {
		for j := 0; j < @2; j++ {
			co.Gosched()
			if j == @1 {
				continue outer
			}
			t.Printf("%d %d", i, j)
		}
	}`, false},
	{"varDecl", `
	co.Gosched()
	var a, b = @1,
		step(co, 2)
	t.Printf("%d %d", a, b)`, false},
	{"shortCircuit", `
	co.Gosched()
	ok := @1 > 0 &&
		step(co, 1) > @0 ||
		@2 > 9
	t.Printf("%v", ok)`, false},
}

// linePanics are the panic probes, each panicking at the line of its
// first token: the index bracket, the division, the assertion, the star.
var linePanics = []string{"xs[k+%d]", "%d/zero", "iface.(int)+%d", "*nilp+%d"}

var holeRE = regexp.MustCompile(`@[0-9]`)

// lineMatrix returns the source of the line matrix program.
func lineMatrix() []byte {
	var b bytes.Buffer
	b.WriteString(lineMatrixHeader)
	var calls []string
	fill := func(body string, panicAt, kind int) string {
		j := 0
		return holeRE.ReplaceAllStringFunc(body, func(h string) string {
			defer func() { j++ }()
			v := int(h[1] - '0')
			if j == panicAt {
				return fmt.Sprintf(linePanics[kind], v)
			}
			return fmt.Sprintf("at(t, %d)", v)
		})
	}
	n := 0
	emit := func(tpl lineTemplate, what string, body string) {
		n++
		name := fmt.Sprintf("l%d", n)
		fmt.Fprintf(&b, "\n// %s: %s, %s.\n//\n//co:stackless\n", name, tpl.name, what)
		fmt.Fprintf(&b, "func %s(co *stackful.Co, t *trace.T) (r int) {\n\tdefer caught(t, %q)%s", name, name, body)
		if !tpl.ret {
			b.WriteString("\n\treturn")
		}
		b.WriteString("\n}\n")
		calls = append(calls, name)
	}
	for i, tpl := range lineTemplates {
		emit(tpl, "call probes", fill(tpl.body, -1, 0))
		holes := len(holeRE.FindAllString(tpl.body, -1))
		for j := range holes {
			kind := (i + j) % len(linePanics)
			emit(tpl, fmt.Sprintf("a panic in hole %d", j), fill(tpl.body, j, kind))
		}
	}
	b.WriteString("\n// Run runs every probe function.\n//\n//co:stackless\nfunc Run(co *stackful.Co, t *trace.T) {\n")
	for _, c := range calls {
		fmt.Fprintf(&b, "\tt.Printf(\"%s returns %%d\", %s(co, t))\n", c, c)
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		panic(fmt.Sprintf("line matrix: %v\n%s", err, b.Bytes()))
	}
	return out
}

const lineMatrixHeader = `// TestLineMatrix writes this file from the templates in
// gen/linematrix_test.go (go test ./gen -run TestLineMatrix -update): edit
// them, not this file.

// Package linematrix probes the line of every statement and expression
// position of //co:stackless functions: see gen/linematrix_test.go.
package linematrix

import (
	"path/filepath"
	"runtime"
	"strings"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

var (
	xs         = []int{1, 2, 3}
	k, zero    = 10, 0
	iface  any = "s"
	nilp   *int
)

type pair struct{ a, b int }

type counter struct{ n int }

func (c *counter) add(v int) *counter {
	c.n += v
	return c
}

// at records the line it is called from and returns v.
func at(t *trace.T, v int) int {
	_, file, line, _ := runtime.Caller(1)
	t.Printf("at %s:%d", filepath.Base(file), line)
	return v
}

// caught recovers a panic and records where it was raised: the first
// frame outside the runtime below the outermost runtime.gopanic (the
// stackless model runs deferred calls above the panicking Step, on its
// stack), and whether that frame is fn's (fn itself in the stackful
// model, fn's Step method in the stackless one, or a function literal
// in them, which has a frame type of its own if it suspends).
func caught(t *trace.T, fn string) {
	r := recover()
	if r == nil {
		return
	}
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	var below []runtime.Frame
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			below = below[:0]
		} else {
			below = append(below, f)
		}
		if !more {
			break
		}
	}
	for _, f := range below {
		if strings.HasPrefix(f.Function, "runtime.") {
			continue
		}
		name := f.Function[strings.LastIndex(f.Function, "/")+1:]
		own := false
		for _, fr := range []string{"linematrix." + fn, "linematrix.(*" + fn + "Frame).Step"} {
			own = own || name == fr || strings.HasPrefix(name, fr+".")
		}
		// The frame of a suspending function literal of fn.
		own = own || strings.HasPrefix(name, "linematrix.(*"+fn+"Func")
		t.Printf("panic %v at %s:%d (own frame %v)", r, filepath.Base(f.File), f.Line, own)
		return
	}
	t.Printf("panic %v: no frame", r)
}

// step suspends and returns v.
//
//co:stackless
func step(co *stackful.Co, v int) int {
	co.Gosched()
	return v
}
`

// TestLineMatrix keeps the corpus program linematrix.go as lineMatrix
// writes it (go test ./gen -run TestLineMatrix -update rewrites it; the
// differential test runs it).
func TestLineMatrix(t *testing.T) {
	path := filepath.Join(corpus, "linematrix.go")
	want := lineMatrix()
	if *update {
		if err := os.WriteFile(path, want, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what lineMatrix writes (go test ./gen -run TestLineMatrix -update):\n%s", path, diffLines(string(got), string(want)))
	}
}

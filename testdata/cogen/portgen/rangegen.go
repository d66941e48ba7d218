//go:build ignore

// Rangegen writes ../rangegen.go, a port of $GOROOT/test/rangegen.go (the
// range-over-func torture test; Copyright 2023 The Go Authors, BSD-style
// license, see $GOROOT/LICENSE): the same generated loop nests of goto,
// labeled break and continue, return and defer statements around
// range-over-func loops, as //co:stackless functions whose loop bodies
// suspend, run for every exit code by Run. The stackful run (real Go) is
// the oracle of the differential test. select statements become tagless
// switches (a select around a suspension is refused); the rest is
// rangegen's generator as it is.
//
//	go run rangegen.go >../rangegen.go
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
)

func main() {
	b0, b := new(bytes.Buffer), new(bytes.Buffer)
	var runs bytes.Buffer
	for depth := 1; depth <= 3; depth++ {
		for double := -1; double < depth && double <= 0; double++ {
			name := fmt.Sprintf("testFunc%d_%d", depth, double+1)
			code := gen(b, name, "", "yield2", depth, double, func(int) bool { return true })
			fmt.Fprintf(&runs, "\tfor c := range %d {\n\t\to := &output{}\n\t\tret := %s(co, o, c)\n\t\tt.Printf(\"%s(%%d) = %%d %%v\", c, ret, fmt.Sprint(o.trace...))\n\t}\n", code+1, name, name)
		}
	}
	fmt.Fprintf(b0, header, runs.String())
	b0.Write(b.Bytes())
	src, err := format.Source(b0.Bytes())
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(src)
}

const header = `// Code ported from $GOROOT/test/rangegen.go by portgen/rangegen.go; edit that.

package rangegen

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func yield2(yield func(int) bool) { _ = yield(1) && yield(2) }

type output struct {
	trace []any
}

func (o *output) log(x any) {
	o.trace = append(o.trace, x)
}

func (o *output) log1(x, y any) {
	o.trace = append(o.trace, x, y)
}

// Run runs every generated function with every exit code.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
%s}

`

func p(b *bytes.Buffer, format string, args ...any) {
	fmt.Fprintf(b, format, args...)
}

func gen(b *bytes.Buffer, name, prefix, rangeExpr string, depth, double int, allowed func(int) bool) int {
	p(b, "//co:stackless\nfunc %s(co *stackful.Co, o *output, code int) int {\n", name)
	p(b, "	dfr := 0; _ = dfr\n")
	code := genLoop(b, 0, prefix, rangeExpr, depth, double, 0, "", allowed)
	p(b, "	return 0\n")
	p(b, "}\n\n")
	return code
}

func genLoop(b *bytes.Buffer, d int, prefix, rangeExpr string, depth, double, code int, labelSuffix string, allowed func(int) bool) int {
	limit := 1
	if d == double {
		limit = 2
	}
	for rep := 0; rep < limit; rep++ {
		if rep == 1 {
			labelSuffix = "R"
		}
		s := fmt.Sprintf("%d%s", d, labelSuffix)
		p(b, "	o.log(`top%s`)\n", s)
		p(b, "	l%sa := 0\n", s)
		p(b, "goto L%sa; L%sa:	o.log(`L%sa`)\n", s, s, s)
		p(b, "	if l%sa++; l%sa >= 2 { o.log(`loop L%sa`); return -1 }\n", s, s, s)
		p(b, "	l%sfor := 0\n", s)
		p(b, "goto L%sfor; L%sfor: for f := 0; f < 1; f++ { o.log(`L%sfor`)\n", s, s, s)
		p(b, "	if l%sfor++; l%sfor >= 2 { o.log(`loop L%sfor`); return -1 }\n", s, s, s)
		p(b, "	l%ssw := 0\n", s)
		p(b, "goto L%ssw; L%ssw: switch { default: o.log(`L%ssw`)\n", s, s, s)
		p(b, "	if l%ssw++; l%ssw >= 2 { o.log(`loop L%ssw`); return -1 }\n", s, s, s)
		p(b, "	l%ssel := 0\n", s)
		p(b, "goto L%ssel; L%ssel: switch { default: o.log(`L%ssel`)\n", s, s, s)
		p(b, "	if l%ssel++; l%ssel >= 2 { o.log(`loop L%ssel`); return -1 }\n", s, s, s)
		p(b, "	l%s := 0\n", s)
		p(b, "goto L%s; L%s:	for %s i%s := range %s {\n", s, s, prefix, s, rangeExpr)
		p(b, "	o.log1(`L%s top`, i%s)\n", s, s)
		p(b, "	co.Gosched()\n")
		p(b, "	if l%s++; l%s >= 4 { o.log(`loop L%s`); return -1 }\n", s, s, s)
		printTests := func() {
			if code++; allowed(code) {
				p(b, "	if code == %v { break }\n", code)
			}
			if code++; allowed(code) {
				p(b, "	if code == %v { continue }\n", code)
			}
			if code++; allowed(code) {
				p(b, "	switch { case code == %v: continue }\n", code)
			}
			if code++; allowed(code) {
				p(b, "	if code == %v { return %[1]v }\n", code)
			}
			if code++; allowed(code) {
				p(b, "	if code == %v { switch { default: break } }\n", code)
			}
			if code++; allowed(code) {
				p(b, "	if code == %v { switch { default: break } }\n", code)
			}
			if code++; allowed(code) {
				p(b, "	if code == %v { dfr++; defer o.log1(`defer %d`, dfr) }\n", code, code)
			}
			for i := d; i > 0; i-- {
				suffix := labelSuffix
				if i < double {
					suffix = ""
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { break L%d%s }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { switch { default: break L%d%s } }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { break L%d%s }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { break L%d%ssw }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { break L%d%ssel }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { break L%d%sfor }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { continue L%d%sfor }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { goto L%d%sa }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { goto L%d%s }\n", code, i, suffix)
				}
				if code++; allowed(code) {
					p(b, "	if code == %v { goto L%d%sb }\n", code, i, suffix)
				}
			}
		}
		printTests()
		if d < depth {
			if rep == 1 {
				double = d // signal to children to use the rep=1 labels
			}
			code = genLoop(b, d+1, prefix, rangeExpr, depth, double, code, labelSuffix, allowed)
			printTests()
		}
		p(b, "	o.log(`L%s bot`)\n", s)
		p(b, "	}\n")
		p(b, "	o.log(`L%ssel bot`)\n", s)
		p(b, "	}\n")
		p(b, "	o.log(`L%ssw bot`)\n", s)
		p(b, "	}\n")
		p(b, "	o.log(`L%sfor bot`)\n", s)
		p(b, "	}\n")
		p(b, "	o.log(`done%s`)\n", s)
		p(b, "goto L%sb; L%sb: o.log(`L%sb`)\n", s, s, s)
	}
	return code
}

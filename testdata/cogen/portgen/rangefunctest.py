# rangefunctest.py writes ../rangefuncport.go and ../rangefuncportouter.go,
# ports of $GOROOT/src/cmd/compile/internal/rangefunc/rangefunc_test.go
# (Copyright 2023 The Go Authors; BSD-style license, see $GOROOT/LICENSE):
# its tests become //co:stackless functions that record on the trace, with
# suspensions in every range-over-func body (all) or the outermost ones only
# (outer).
#
#	python3 rangefunctest.py all rangefuncport >../rangefuncport.go
#	python3 rangefunctest.py outer rangefuncportouter >../rangefuncportouter.go
#	gofmt -w ../rangefuncport*.go
import re, sys, subprocess
GR = subprocess.check_output(['go','env','GOROOT'], text=True).strip()
src = open(GR + '/src/cmd/compile/internal/rangefunc/rangefunc_test.go').read()
variant = sys.argv[1]   # "all" or "outer"
pkg = sys.argv[2]

# drop the file header up to the imports' end
src = src[src.index('type Seq[T any]'):]

marked = ['veryBad', 'veryBadCheck', 'okay', 'Bug70035', 'f', 'g', 'h', 'j', 'k', 'm', 'n']
tests = re.findall(r'^func (Test\w+)\(t \*testing\.T\)', src, re.M)
helpers = re.findall(r'^func (test\w+)\(t \*testing\.T\)', src, re.M)

# TestPanicReturns calls f..n through a table of func values: call them directly.
a = src.index('type terrifyTestCase struct')
b = src.index('// twice calls yield twice')
src = src[:a] + '''func TestPanicReturns(t *testing.T) {
	got := []string{f(), g(), h(), k(), j(), m(), n()}
	want := []string{"f return", "g return", "h return", "k return", "j return", "m return", "n return and n closure return"}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("Got %s expected %s", got[i], want[i])
		} else {
			t.Logf("Got expected %s", got[i])
		}
	}
}

''' + src[b:]
# TestTwoLevelReturn*: the closure suspends, so it takes the handle.
src = src.replace('\tf := func() int {', '\tfn := func(co *stackful.Co) int {').replace('\ty := f()', '\ty := fn(co)')

out = []
lines = src.split('\n')
in_marked = False
rf = re.compile(r'^(\s*)for .*range (Check2?\(|OfSliceIndex|BadOfSliceIndex|VeryBadOfSliceIndex|SwallowPanicOfSliceIndex|PanickyOfSliceIndex|CooperativeBadOfSliceIndex|trick\w+\.iter|terrify|twice|slices\.Values).*\{$')
exitre = re.compile(r'^(\s*)(break|continue \w+|goto \w+|return\b.*)$')
depth_stack = []
for i, line in enumerate(lines):
    m = re.match(r'^func (\w+)\((t \*testing\.T)?([^)]*)\)(.*)\{$', line)
    if m and (m.group(1) in tests or m.group(1) in helpers or m.group(1) in marked):
        name = m.group(1)
        newname = 'run' + name[4:] if name.startswith('Test') else name
        params = 'co *stackful.Co'
        if m.group(2):
            params += ', t *trace.T'
        if m.group(3):
            params += ', ' + m.group(3)
        out.append('//co:stackless')
        out.append('func %s(%s)%s{' % (newname, params, m.group(4)))
        in_marked = True
        continue
    if line.startswith('func '):
        in_marked = False
    if line == '}':
        out.append(line)
        in_marked = in_marked and False
        continue
    if in_marked:
        em = exitre.match(line)
        if variant == 'all' and em and not line.strip().startswith('return') or (variant == 'all' and em and line.strip().startswith('return') and any(rf.match(l) for l in lines[max(0,i-12):i])):
            out.append(em.group(1) + 'co.Gosched()')
        out.append(line)
        fm = rf.match(line)
        if fm and (variant == 'all' or fm.group(1) == '\t'):
            out.append(fm.group(1) + '\tco.Gosched()')
        continue
    out.append(line)
src = '\n'.join(out)

# calls of the marked functions take the handle
for name in marked + helpers:
    src = re.sub(r'(?<![\w.])%s\((t\b)?' % name, lambda mm: '%s(co, %s' % (name, 't, ' if mm.group(1) else ''), src)
src = re.sub(r'func (\w+)\(co, ', r'func \1(', src)  # undo on declarations
src = src.replace('(co, t, )', '(co, t)').replace('(co, )', '(co)')
src = src.replace('t *testing.T', 't *trace.T')
# The cooperative tests' channel operations wait for a goroutine that
# answers at once: allowed blocking (the analyzer refuses unmarked ones).
src = src.replace('\tproceed <- true\n', '\tproceed <- true //co:blocking the goroutine of the iterator receives at once\n')
src = src.replace('\tif r := <-proceed; r != nil {\n', '\tif r := <-proceed; r != nil { //co:blocking its goroutine answers at once\n')
src = re.sub(r'(?<![\w.])t\.(Errorf|Logf)\("', lambda mm: 't.Printf("%s: ' % mm.group(1), src)
src = re.sub(r't\.Error\("([^"%]*)"\)', r't.Printf("Error: \1")', src)

calls = '\n'.join('\tt.Printf("== %s")\n\t%s(co, t)' % (n, 'run' + n[4:]) for n in tests)
header = '''// Code ported from $GOROOT/src/cmd/compile/internal/rangefunc/rangefunc_test.go
// (Copyright 2023 The Go Authors; BSD-style license, see $GOROOT/LICENSE),
// with the tests turned into //co:stackless functions that record on a
// trace, and suspensions (co.Gosched) inserted %s.
// The differential test runs it in both models: real Go is the oracle.

package %s

import (
	"fmt"
	"regexp"
	"slices"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs every ported test in order.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
%s
}

''' % ({'all': 'at the top of every range-over-func\n// loop body and before the branches and returns that leave such loops',
        'outer': 'at the top of the outermost\n// range-over-func loop bodies only, so that inner loops are copied whole\n// inside lowered ones'}[variant], pkg, calls)
print(header + src)

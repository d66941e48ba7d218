# range4.py writes ../range4.go, a port of $GOROOT/test/range4.go (Copyright
# 2023 The Go Authors; BSD-style license, see $GOROOT/LICENSE): its tests of
# range over functions become //co:stackless functions whose range-over-func
# bodies suspend, and their failure reports go to the trace.
#
#	python3 range4.py >../range4.go && gofmt -w ../range4.go
import re, subprocess

GR = subprocess.check_output(['go', 'env', 'GOROOT'], text=True).strip()
src = open(GR + '/test/range4.go').read()
src = src[src.index('var gj int'):]
a = src.index('func main() {')
src = src[:a]

# Both models run at once on one loop, so the globals the tests record in
# (saved, ncalls) are kept per trace.
src = src.replace('var saved []int', 'var saved = map[*trace.T][]int{}')
src = src.replace('func save(x int) {\n\tsaved = append(saved, x)', 'func save(t *trace.T, x int) {\n\tsaved[t] = append(saved[t], x)')
src = re.sub(r'(?<![\w.])save\((?!t )', 'save(t, ', src)
src = src.replace('\tsaved = nil', '\tsaved[t] = nil').replace(', saved, want)', ', saved[t], want)')
src = src.replace('var ncalls = 0', 'var ncalls = map[*trace.T]int{}')
src = src.replace('func getvar(p *int) *int {\n\tncalls++', 'func getvar(t *trace.T, p *int) *int {\n\tncalls[t]++')
src = src.replace('*getvar(&', '*getvar(t, &')
a = src.index('func testcalls()')
b = src.index('type iter3YieldFunc')
src = src[:a] + src[a:b].replace('ncalls = 0', 'ncalls[t] = 0').replace('if ncalls != 4', 'if ncalls[t] != 4').replace('calls:", ncalls,', 'calls:", ncalls[t],') + src[b:]

marked = re.findall(r'^func ((?:test)?func\d|testcalls1?)\(\)', src, re.M)
for name in marked:
    src = re.sub(r'^func %s\(\)' % name, '//co:stackless\nfunc %s(co *stackful.Co, t *trace.T)' % name, src, flags=re.M)
    src = re.sub(r'(?<![\w.])%s\(\)' % name, '%s(co, t)' % name, src)
# testfunc4's literal suspends: it takes the handle
src = src.replace('\tfunc() {\n\t\tfor i = range yield4 {', '\tfunc(co *stackful.Co) {\n\t\tfor i = range yield4 {')
src = src.replace('\t\t}\n\t}()\n\tif j != 3 {', '\t\t}\n\t}(co)\n\tif j != 3 {')
out = []
rf = re.compile(r'^(\s*)for .*range (yield\w+|iter2\(.*\)|iter3\(.*\)) \{$')
for line in src.split('\n'):
    out.append(line)
    m = rf.match(line)
    if m:
        out.append(m.group(1) + '\tco.Gosched()')
src = '\n'.join(out)
src = re.sub(r'(?<![\w.])println\((.*)\)$', r't.Printf("%s", fmt.Sprintln(\1))', src, flags=re.M)

calls = ''.join('\t%s(co, t)\n\tt.Printf("%s done")\n' % (n, n) for n in marked if n.startswith('test'))
print('''// Code ported from $GOROOT/test/range4.go by portgen/range4.py; edit that.

package range4

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs the tests of range4.go; a failing one panics, as there.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Printf("panic: %%v", r)
		}
	}()
%s}

%s''' % (calls, src))

# goroottest.py writes a port of a run test of $GOROOT/test (Copyright The Go
# Authors; BSD-style license, see $GOROOT/LICENSE) to stdout: its test*
# functions become //co:stackless functions with a co.Gosched() at the top
# of every range loop body, their reports go to the trace, the globals they
# count in are kept per trace (both models run at once on one loop), and
# types they declare move to package level.
#
#	python3 goroottest.py range.go rangego nmake,ncalls >../rangego.go
#	python3 goroottest.py range3.go range3 "" >../range3.go
#	gofmt -w ../rangego.go ../range3.go
import re, subprocess, sys

GR = subprocess.check_output(['go', 'env', 'GOROOT'], text=True).strip()
name, pkg = sys.argv[1], sys.argv[2]
counters = [g for g in sys.argv[3].split(',') if g]
src = open(GR + '/test/' + name).read()
src = src[re.search(r'^(func|var|type|const) ', src, re.M).start():]
src = src[:src.index('func main() {')]

# go vet (which the differential test runs) objects to string(int).
src = src.replace('s += string(i)', 's += string(rune(i))')
# Types declared in a test cannot be named by the frame (a diagnostic):
# they move to package level.
hoisted = re.findall(r'^\ttype \w+ .*$', src, re.M)
src = re.sub(r'^\ttype \w+ .*\n', '', src, flags=re.M)
src = ''.join(h[1:] + '\n\n' for h in hoisted) + src

tests = re.findall(r'^func (test\w*)\(\)', src, re.M)
# Functions that use a counter take the trace.
users = []
for m in re.finditer(r'^func (\w+)\(([^)]*)\)[^{]*\{\n(.*?)^\}', src, re.M | re.S):
    if m.group(1) not in tests and any(re.search(r'\b%s\b' % g, m.group(3)) for g in counters):
        users.append(m.group(1))
for g in counters:
    src = re.sub(r'^var %s = 0$' % g, 'var %s = map[*trace.T]int{}' % g, src, flags=re.M)
    src = re.sub(r'(?<![\w.])%s(?!\w)(?! = map)' % g, '%s[t]' % g, src)
    src = src.replace('var %s[t] = map' % g, 'var %s = map' % g)
for u in users:
    src = re.sub(r'^func %s\(' % u, 'func %s(t *trace.T, ' % u, src, flags=re.M)
    src = re.sub(r'(?<![\w.])%s\(' % u, '%s(t, ' % u, src)
    src = src.replace('func %s(t, ' % u, 'func %s(' % u).replace('%s(t, )' % u, '%s(t)' % u)
    src = src.replace('func %s(t *trace.T, )' % u, 'func %s(t *trace.T)' % u)
for tname in tests:
    src = re.sub(r'^func %s\(\)' % tname, '//co:stackless\nfunc %s(co *stackful.Co, t *trace.T)' % tname, src, flags=re.M)
out, marked = [], False
for line in src.split('\n'):
    if line.startswith('func '):
        marked = '(co *stackful.Co, t *trace.T)' in line
    if marked:
        line = re.sub(r'(?<![\w.])println\((.*)\)$', r't.Printf("%s", fmt.Sprintln(\1))', line)
    out.append(line)
    if marked and re.match(r'^\s*for .*\brange (seq|c|ch)\b.*\{$', line):
        # a channel fed by a goroutine that never waits for the loop
        out[-1] = line + ' //co:blocking fed by a goroutine'
    if marked and re.match(r'^\s*for .*\brange\b.*\{$', line):
        out.append(re.match(r'^(\s*)', line).group(1) + '\tco.Gosched()')
src = '\n'.join(out)
calls = ''.join('\t%s(co, t)\n\tt.Printf("%s done")\n' % (n, n) for n in tests)
print('''// Code ported from $GOROOT/test/%s by portgen/goroottest.py; edit that.

package %s

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run runs the tests of %s; a failing one panics, as there.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Printf("panic: %%v", r)
		}
	}()
%s}

%s''' % (name, pkg, name, calls, src))

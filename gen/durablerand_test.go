package gen_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The generator of durable shapes (issue 35): random durable workflows
// whose locals alias each other through pointers into frame slots (ints,
// struct fields, array and slice elements, loop-body variables), share
// maps and slices (at different offsets, appended within their capacity),
// hold cycles (a map containing itself, lists of nodes pointing back),
// call a durable callee that writes through its pointer parameter between
// suspensions, and carry time values in a zone with daylight-saving
// changes, an enum and a big.Int through a registered codec. Each
// workflow traces a digest of its state (values, and which pointers,
// slices and maps are the same) before every suspension; the harness
// snapshots it after every line of its trace, and a fresh process restores
// every snapshot, runs it to its end and compares the whole trace with the
// uninterrupted run's.

// durRandWorkflow writes the durable function W<seed>.
func durRandWorkflow(seed int64) string {
	r := rand.New(rand.NewPCG(uint64(seed), 0x35))
	var b strings.Builder
	step := 0
	pick := func(n int) int { return r.IntN(n) }
	v := func() int { return r.IntN(9) + 1 }
	const digest = "dig(&x0, &x1, &x2, &b0, &b1, s0, s1, m0, m1, p0, p1, r0, r1, tree, t0, st, &bi, ps, bs)"
	checkpoint := func(ind string) {
		step++
		fmt.Fprintf(&b, "%slogf(\"W%d %d %%s\", %s)\n%sco.Gosched()\n", ind, seed, step, digest, ind)
	}
	fmt.Fprintf(&b, "//co:stackless durable\nfunc W%d(co *stackful.Co) string {\n", seed)
	b.WriteString(`	x0, x1, x2 := 1, 2, 3
	var b0, b1 Box
	b0.In.P, b1.In.P = &x2, &b0.In.N
	b0.M = map[string]int{"z": 26}
	s0 := []int{1, 2, 3}
	s1 := s0[1:]
	m0 := map[string]int{"a": 1}
	m1 := m0
	p0, p1 := &x0, &b0.Arr[1]
	var r0, r1 *Node
	tree := Tree{}
	t0 := time.Date(2026, 10, 20, 12, 0, 0, 0, zone)
	st := Low
	var bi big.Int
	ps := []*int{&x1}
	bs := []Box{{ID: 1, In: Inner{P: &x0}}, {ID: 2, In: Inner{P: &b1.Arr[2]}}}
`)
	ops := []func(ind string){
		func(ind string) { fmt.Fprintf(&b, "%sp%d = &x%d\n", ind, pick(2), pick(3)) },
		func(ind string) { fmt.Fprintf(&b, "%sp%d = &b%d.Arr[%d]\n", ind, pick(2), pick(2), pick(3)) },
		func(ind string) { fmt.Fprintf(&b, "%sp%d = &b%d.In.N\n", ind, pick(2), pick(2)) },
		func(ind string) {
			j, k := pick(2), pick(3)
			fmt.Fprintf(&b, "%sif len(s%d) > %d {\n%s\tp%d = &s%d[%d]\n%s}\n", ind, j, k, ind, pick(2), j, k, ind)
		},
		func(ind string) { fmt.Fprintf(&b, "%s*p%d += %d\n", ind, pick(2), v()) },
		func(ind string) { fmt.Fprintf(&b, "%s*b%d.In.P += %d\n", ind, pick(2), v()) },
		func(ind string) { fmt.Fprintf(&b, "%sb%d.In.P = p%d\n", ind, pick(2), pick(2)) },
		func(ind string) { fmt.Fprintf(&b, "%ss%d = s%d\n", ind, pick(2), pick(2)) },
		func(ind string) {
			j := pick(2)
			fmt.Fprintf(&b, "%sif len(s%d) > 1 {\n%s\ts%d = s%d[1:]\n%s}\n", ind, j, ind, pick(2), j, ind)
		},
		func(ind string) { i := pick(2); fmt.Fprintf(&b, "%ss%d = append(s%d, %d)\n", ind, i, i, v()) },
		func(ind string) {
			i := pick(2)
			fmt.Fprintf(&b, "%sif len(s%d) > 0 {\n%s\ts%d[0] += %d\n%s}\n", ind, i, ind, i, v(), ind)
		},
		func(ind string) { fmt.Fprintf(&b, "%sm%d = m%d\n", ind, pick(2), pick(2)) },
		func(ind string) { fmt.Fprintf(&b, "%sb%d.M = m%d\n", ind, pick(2), pick(2)) },
		func(ind string) { fmt.Fprintf(&b, "%sm%d[\"k%d\"] += %d\n", ind, pick(2), v(), v()) },
		func(ind string) { fmt.Fprintf(&b, "%sm%d = map[string]int{\"n\": %d}\n", ind, pick(2), v()) },
		func(ind string) { fmt.Fprintf(&b, "%sr%d = &Node{V: %d, Next: r%d}\n", ind, pick(2), v(), pick(2)) },
		func(ind string) {
			i, j := pick(2), pick(2)
			fmt.Fprintf(&b, "%sif r%d != nil {\n%s\tr%d.Next = r%d\n%s}\n", ind, i, ind, i, j, ind)
		},
		func(ind string) {
			i, j := pick(2), pick(2)
			fmt.Fprintf(&b, "%sif r%d != nil {\n%s\tr%d.Kids = append(r%d.Kids, r%d)\n%s}\n", ind, i, ind, i, i, j, ind)
		},
		func(ind string) { fmt.Fprintf(&b, "%stree[\"self\"] = tree\n", ind) },
		func(ind string) { fmt.Fprintf(&b, "%stree[\"k%d\"] = Tree{\"up\": tree}\n", ind, v()) },
		func(ind string) { fmt.Fprintf(&b, "%st0 = t0.AddDate(0, %d, 0)\n", ind, pick(3)) },
		func(ind string) { fmt.Fprintf(&b, "%st0 = t0.Add(%d * time.Hour)\n", ind, v()) },
		func(ind string) { fmt.Fprintf(&b, "%sst = Status((int(st) + %d) %% 3)\n", ind, v()) },
		func(ind string) { fmt.Fprintf(&b, "%sbi.Add(&bi, big.NewInt(%d<<40))\n", ind, v()) },
		func(ind string) { fmt.Fprintf(&b, "%sps = append(ps, p%d)\n", ind, pick(2)) },
		func(ind string) {
			fmt.Fprintf(&b, "%sif len(ps) > 0 {\n%s\t*ps[len(ps)-1] += %d\n%s}\n", ind, ind, v(), ind)
		},
		func(ind string) { i := pick(2); fmt.Fprintf(&b, "%sb%d = b%d\n", ind, i, 1-i) },
		func(ind string) {
			k := pick(3)
			fmt.Fprintf(&b, "%sif len(bs) > %d {\n%s\tp%d = &bs[%d].Arr[%d]\n%s}\n", ind, k, ind, pick(2), k, pick(3), ind)
		},
		func(ind string) { fmt.Fprintf(&b, "%sbs = append(bs, b%d)\n", ind, pick(2)) },
		func(ind string) {
			fmt.Fprintf(&b, "%sif len(bs) > 1 {\n%s\tbs[1].In.P = p%d\n%s}\n", ind, ind, pick(2), ind)
		},
		func(ind string) {
			fmt.Fprintf(&b, "%sx%d += bump(co, p%d, s%d, m%d, %d)\n", ind, pick(3), pick(2), pick(2), pick(2), v())
		},
	}
	loop := func(ind string) {
		fmt.Fprintf(&b, "%sfor i := range 2 {\n%s\ty := x%d + i\n%s\tpy := &y\n%s\tp%d = py\n", ind, ind, pick(3), ind, ind, pick(2))
		for range 1 + pick(3) {
			ops[pick(len(ops))](ind + "\t")
		}
		fmt.Fprintf(&b, "%s\t*py += %d\n", ind, v())
		checkpoint(ind + "\t")
		fmt.Fprintf(&b, "%s\tx%d += y\n%s}\n", ind, pick(3), ind)
	}
	for n := 12 + pick(24); n > 0; n-- {
		switch x := pick(20); {
		case x < 4:
			checkpoint("\t")
		case x == 5:
			loop("\t")
		default:
			ops[pick(len(ops))]("\t")
		}
	}
	checkpoint("\t")
	b.WriteString("\treturn " + digest + "\n}\n\n")
	return b.String()
}

// durRandHeader is the package of the workflows: their types, the
// codec, the durable callee and the digest.
const durRandHeader = `package dur

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"time"
	_ "time/tzdata"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

var Log = func(string) {}

func logf(format string, args ...any) { Log(fmt.Sprintf(format, args...)) }

var zone, _ = time.LoadLocation("America/New_York")

type Status int8

const (
	Low Status = iota
	Mid
	High
)

type Inner struct {
	N int
	P *int
}

type Box struct {
	ID  int
	In  Inner
	Arr [3]int
	M   map[string]int
}

type Node struct {
	V    int
	Next *Node
	Kids []*Node
}

type Tree map[string]Tree

var BigCodec = stackless.Codec[big.Int]{
	Marshal:   func(x *big.Int) ([]byte, error) { return x.GobEncode() },
	Unmarshal: func(b []byte, x *big.Int) error { return x.GobDecode(b) },
}

//co:stackless durable
func bump(co *stackful.Co, p *int, s []int, m map[string]int, n int) int {
	logf("bump %d %d %v", *p, n, s)
	co.Gosched()
	*p += n
	if len(s) > 0 {
		s[0] += n
	}
	m["bump"] += n
	logf("bump after %d %v %d", *p, s, m["bump"])
	co.Gosched()
	return n
}

func same(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }

func nodes(r *Node) string {
	var sb strings.Builder
	seen := map[*Node]int{}
	for i := 0; r != nil && i < 6; i++ {
		if j, ok := seen[r]; ok {
			fmt.Fprintf(&sb, "@%d", j)
			break
		}
		seen[r] = i
		fmt.Fprintf(&sb, "%d(%d)>", r.V, len(r.Kids))
		for _, k := range r.Kids {
			if k != nil {
				fmt.Fprintf(&sb, "k%d", k.V)
			}
		}
		r = r.Next
	}
	return sb.String()
}

func sliceSame(a, b []int) string {
	if len(a) == 0 || len(b) == 0 {
		return "-"
	}
	return fmt.Sprint(&a[0] == &b[0], &a[len(a)-1] == &b[len(b)-1])
}

func dig(x0, x1, x2 *int, b0, b1 *Box, s0, s1 []int, m0, m1 map[string]int, p0, p1 *int, r0, r1 *Node, tree Tree, t0 time.Time, st Status, bi *big.Int, ps []*int, bs []Box) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "x=%d,%d,%d ", *x0, *x1, *x2)
	for _, b := range []*Box{b0, b1} {
		fmt.Fprintf(&sb, "box{%d %d %d %v %v} ", b.ID, b.In.N, *b.In.P, b.Arr, b.M)
	}
	for _, p := range []*int{p0, p1} {
		fmt.Fprintf(&sb, "p=%d[%t%t%t%t%t%t%t] ", *p, p == x0, p == x1, p == x2, p == &b0.In.N, p == &b1.In.N, p == &b0.Arr[1], p == b0.In.P)
	}
	fmt.Fprintf(&sb, "s=%v/%d %v/%d %s ", s0, cap(s0), s1, cap(s1), sliceSame(s0, s1))
	fmt.Fprintf(&sb, "m=%v %v %t %t %t ", m0, m1, same(m0, m1), same(m0, b0.M), same(m1, b1.M))
	fmt.Fprintf(&sb, "r=%s %s %t ", nodes(r0), nodes(r1), r0 == r1)
	fmt.Fprintf(&sb, "tree=%d %t ", len(tree), tree["self"] != nil && same(tree, tree["self"]))
	fmt.Fprintf(&sb, "t=%s st=%d bi=%s ps=", t0, st, bi)
	for _, p := range ps {
		fmt.Fprintf(&sb, "%d,", *p)
	}
	fmt.Fprintf(&sb, " bs=%d/%d", len(bs), cap(bs))
	for i := range bs {
		fmt.Fprintf(&sb, " {%d %v %d %t %t}", bs[i].ID, bs[i].Arr, *bs[i].In.P, p0 == &bs[i].Arr[0], bs[i].In.P == p1)
	}
	return sb.String()
}
`

// durRandHarness snapshots every workflow after every line of its trace
// ("snap dir"), and restores every snapshot in a fresh process ("restore
// dir"), comparing the traces.
const durRandHarness = `package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"cogentest/dur"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

type stepFunc struct {
	stackless.Base
	step func(t *stackless.Task) stackless.Status
}

func (f *stepFunc) Step(t *stackless.Task) stackless.Status { return f.step(t) }

func run(l *loop.Loop, tasks ...*stackless.Task) {
	var guard loop.Timer
	l.Reset(&guard, 60*time.Second, func() { l.Close() })
	if err := stackless.Run(l, tasks...); err != nil {
		panic(err)
	}
	l.CancelTimer(&guard)
}

func newLoop() *loop.Loop {
	l, err := loop.New()
	if err != nil {
		panic(err)
	}
	return l
}

func record(onLine func(n int)) *[]string {
	tr := new([]string)
	dur.Log = func(line string) {
		*tr = append(*tr, line)
		onLine(len(*tr))
	}
	return tr
}

func snapshotAt(k int, frame stackless.Frame) (data []byte, prefix []string, ok bool) {
	l := newLoop()
	defer l.Close()
	var target, stopper *stackless.Task
	var snapErr error
	tr := record(func(n int) {
		if n == k {
			stopper.Resume()
		}
	})
	stopper = stackless.Spawn(l, &stepFunc{step: func(tk *stackless.Task) stackless.Status {
		if tk.Yield(); tk.Blocked() {
			return stackless.Suspend
		}
		prefix = slices.Clone(*tr)
		data, snapErr = stackless.Snapshot(target)
		target.Cancel()
		dur.Log = func(string) {}
		return stackless.Done
	}})
	target = stackless.Spawn(l, frame)
	run(l, target)
	if len(*tr) < k {
		return nil, nil, false
	}
	run(l, stopper)
	if errors.Is(snapErr, stackless.ErrNotCarriable) && strings.Contains(snapErr.Error(), "finished") {
		return nil, nil, false
	}
	if snapErr != nil {
		panic(fmt.Sprintf("Snapshot after line %d: %v", k, snapErr))
	}
	return data, prefix, true
}

func main() {
	mode, dir := os.Args[1], os.Args[2]
	switch mode {
	case "snap":
		seeds := make([]int64, 0, len(dur.Workflows))
		for s := range dur.Workflows {
			seeds = append(seeds, s)
		}
		sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
		for _, seed := range seeds {
			fmt.Fprintf(os.Stderr, "workflow W%d\n", seed)
			newFrame := dur.Workflows[seed]
			l := newLoop()
			tr := record(func(int) {})
			run(l, stackless.Spawn(l, newFrame()))
			l.Close()
			want := *tr
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.want", seed)), []byte(strings.Join(want, "\n")), 0o666)
			for k := 1; k <= len(want); k++ {
				data, prefix, ok := snapshotAt(k, newFrame())
				if !ok {
					continue
				}
				if !slices.Equal(prefix, want[:len(prefix)]) {
					fmt.Printf("FAIL seed %d: the run snapshotted after line %d differs before the snapshot\n", seed, k)
					os.Exit(1)
				}
				base := filepath.Join(dir, fmt.Sprintf("%d-%d", seed, k))
				os.WriteFile(base+".snap", data, 0o666)
				os.WriteFile(base+".prefix", []byte(fmt.Sprint(len(prefix))), 0o666)
			}
		}
	case "restore":
		snaps, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
		failed := 0
		for _, f := range snaps {
			base := strings.TrimSuffix(f, ".snap")
			var seed int64
			var k, n int
			fmt.Sscanf(filepath.Base(base), "%d-%d", &seed, &k)
			wantB, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.want", seed)))
			want := strings.Split(string(wantB), "\n")
			nb, _ := os.ReadFile(base + ".prefix")
			fmt.Sscan(string(nb), &n)
			fmt.Fprintf(os.Stderr, "restore W%d after line %d\n", seed, k)
			data, _ := os.ReadFile(f)
			l := newLoop()
			tr := record(func(int) {})
			task, err := stackless.Restore(l, data)
			if err != nil {
				fmt.Printf("FAIL seed %d after line %d: Restore: %v\n", seed, k, err)
				failed++
				l.Close()
				continue
			}
			run(l, task)
			l.Close()
			if got := append(slices.Clone(want[:n]), *tr...); !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				g, w := "(end)", "(end)"
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				fmt.Printf("FAIL seed %d, restored after line %d (%d bytes): line %d\n got %s\nwant %s\n", seed, k, len(data), i+1, g, w)
				failed++
			}
		}
		fmt.Printf("restored %d snapshots, %d failed\n", len(snaps), failed)
		if failed > 0 {
			os.Exit(1)
		}
	}
}
`

// durRandPackage is the package of the workflows of seeds.
func durRandPackage(seeds []int64) string {
	var b strings.Builder
	b.WriteString(durRandHeader)
	b.WriteString("\nvar Workflows = map[int64]func() stackless.Frame{\n")
	for _, s := range seeds {
		fmt.Fprintf(&b, "\t%d: func() stackless.Frame { return NewW%dFrame() },\n", s, s)
	}
	b.WriteString("}\n\n")
	for _, s := range seeds {
		b.WriteString(durRandWorkflow(s))
	}
	return b.String()
}

// TestDurableRandom is the differential test of random durable workflows:
// COGEN_DURABLE_RANDOM=n generates the n workflows of seeds
// COGEN_DURABLE_FIRST (default 1) onwards into one package, snapshots
// each after every line of its trace, and restores every snapshot in a
// fresh process, which must finish with the uninterrupted run's trace.
// CI runs 300 from a seed that moves with the commit (.ci/run); a long
// run thousands (COGEN_DURABLE_RANDOM=5000, in batches of
// COGEN_DURABLE_BATCH, default 150: the compiler needs about 1.6 GB for 300
// in one package). A failing workflow is reproduced
// alone with COGEN_DURABLE_RANDOM=1 COGEN_DURABLE_FIRST=<seed>;
// COGEN_DURABLE_KEEP=1 keeps the module and prints its directory.
func TestDurableRandom(t *testing.T) {
	n := envInt("COGEN_DURABLE_RANDOM", 0)
	if n == 0 {
		t.Skip("COGEN_DURABLE_RANDOM=n runs n random durable workflows (CI: 300)")
	}
	first, batch := envInt("COGEN_DURABLE_FIRST", 1), max(1, envInt("COGEN_DURABLE_BATCH", 150))
	for start := first; start < first+n; start += batch {
		end := min(start+batch, first+n)
		t.Run(fmt.Sprintf("seeds%d-%d", start, end-1), func(t *testing.T) { durRandBatch(t, start, end) })
	}
}

func durRandBatch(t *testing.T, start, end int) {
	w := &workspace{}
	if err := w.module(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("COGEN_DURABLE_KEEP") == "1" {
		t.Logf("module in %s", w.dir)
	} else {
		defer os.RemoveAll(w.dir)
	}
	var seeds []int64
	for s := start; s < end; s++ {
		seeds = append(seeds, int64(s))
	}
	if err := w.writeProgram("dur", durRandPackage(seeds)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "./cases/...")
	cmd.Dir = w.dir
	cmd.Env = append(goEnv(w.dir), asCogen+"=1")
	if out, err := w.timed("cogen", cmd); err != nil {
		t.Fatalf("cogen: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(w.dir, "harness"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "harness", "main.go"), []byte(strings.ReplaceAll(durRandHarness, "cogentest/dur", "cogentest/cases/dur")), 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(w.dir, "harness.bin")
	cmd = exec.CommandContext(ctx, "go", "build", "-o", bin, "./harness")
	cmd.Dir = w.dir
	cmd.Env = goEnv(w.dir)
	if out, err := w.timed("build", cmd); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	snaps := filepath.Join(w.dir, "snaps")
	if err := os.MkdirAll(snaps, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"snap", "restore"} {
		cmd = exec.CommandContext(ctx, bin, mode, snaps)
		out, err := w.timed("run", cmd)
		if err != nil {
			t.Fatalf("harness %s: %v\n%s", mode, err, out)
		}
		if mode == "restore" {
			t.Logf("%s", strings.TrimSpace(string(out)))
		}
	}
	t.Logf("CPU seconds of %d workflows: cogen %.1f, build %.1f, run %.1f", end-start,
		w.cpu["cogen"].Seconds(), w.cpu["build"].Seconds(), w.cpu["run"].Seconds())
}

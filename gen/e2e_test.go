package gen_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/cogen-go/cogen/gen"
)

// The end-to-end tests build one temporary module holding every program of
// the corpus (../testdata/cogen/<case>.go becomes package cases/<case>), run the test
// binary itself as cogen on it, compare the output with the golden files,
// then build one harness that runs each program as stackful and as
// generated stackless code on the same loop and compares their traces.

var update = flag.Bool("update", false, "rewrite the golden files")

// corpus holds the test programs, their goldens and the trace package,
// in the module's top-level testdata (ignored by go tooling).
var corpus = filepath.Join("..", "testdata", "cogen")

const asCogen = "COGEN_TEST_AS_COGEN"

func TestMain(m *testing.M) {
	if os.Getenv(asCogen) == "1" {
		os.Exit(gen.Main(os.Args[1:], os.Stderr))
	}
	code := m.Run()
	if ws.dir != "" {
		os.RemoveAll(ws.dir)
	}
	if fuzzWS.dir != "" {
		os.RemoveAll(fuzzWS.dir)
	}
	os.Exit(code)
}

type workspace struct {
	once   sync.Once
	dir    string
	cases  []string // testdata programs
	random []string // packages of random programs (differential test only)
	// programs is how many programs the module holds (random programs,
	// corpus programs, hygiene programs and matrix packages): the time
	// limits of generating, building and running grow with it, so that a
	// larger corpus on a loaded machine is judged by its traces, not by
	// the clock (see deadline).
	programs int
	hygiene  []string // the hygiene corpus (hygiene_test.go)
	matrix   []string // packages of the evaluation-order matrix (ordermatrix_test.go)
	err      error
	genOut   string
	runOnce  sync.Once
	results  map[string][]string // case -> harness lines
	runErr   error
	// cpu is the CPU time of each phase's commands (cogen, build, vet,
	// run), children included.
	cpu map[string]time.Duration
}

// timed runs cmd and adds its CPU time to w.cpu[phase].
func (w *workspace) timed(phase string, cmd *exec.Cmd) ([]byte, error) {
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil {
		if w.cpu == nil {
			w.cpu = map[string]time.Duration{}
		}
		w.cpu[phase] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return out, err
}

var ws workspace

func goEnv(dir string) []string {
	env := append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod -buildvcs=false")
	return env
}

func caseNames(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(corpus, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".go"))
	}
	sort.Strings(names)
	return names
}

// setup builds the module and generates code once per test binary.
func setup(t *testing.T) *workspace {
	t.Helper()
	ws.once.Do(func() {
		ws.cases = caseNames(t)
		ws.err = ws.build()
	})
	if ws.err != nil {
		t.Fatalf("setting up the test module: %v", ws.err)
	}
	return &ws
}

func copyFile(dst, src string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o666)
}

func (w *workspace) build() error {
	if err := w.module(); err != nil {
		return err
	}
	for _, c := range w.cases {
		if err := copyFile(filepath.Join(w.dir, "cases", c, c+".go"), filepath.Join(corpus, c+".go")); err != nil {
			return err
		}
	}
	// The random programs share packages of randomPerPackage (see
	// randPackage): their helpers compile once. Each calls randShared.
	if err := w.writeProgram(randSharedName, randShared); err != nil {
		return err
	}
	end := firstRandom + int64(randomPrograms)
	for pkg := firstRandom; pkg < end; pkg += randomPerPackage {
		var seeds []int64
		for seed := pkg; seed < min(pkg+randomPerPackage, end); seed++ {
			seeds = append(seeds, seed)
		}
		name := fmt.Sprintf("random%d", pkg)
		if err := w.writeProgram(name, randPackage(name, seeds)); err != nil {
			return err
		}
		w.random = append(w.random, name)
	}
	progs, err := hygienePrograms()
	if err != nil {
		return err
	}
	matrix, _ := matrixPackages()
	for _, set := range []struct {
		progs map[string]string
		names *[]string
	}{{progs, &w.hygiene}, {matrix, &w.matrix}} {
		for name, src := range set.progs {
			if err := w.writeProgram(name, src); err != nil {
				return err
			}
			*set.names = append(*set.names, name)
		}
		sort.Strings(*set.names)
	}
	w.programs = randomPrograms + len(w.cases) + len(w.hygiene) + len(w.matrix)
	return w.generate()
}

// deadline is the time limit of a phase over the whole module: base, plus
// perProgram for each of its programs.
func (w *workspace) deadline(base, perProgram time.Duration) time.Duration {
	return base + time.Duration(w.programs)*perProgram
}

// writeProgram adds the program src as package cases/name.
func (w *workspace) writeProgram(name, src string) error {
	dir := filepath.Join(w.dir, "cases", name)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".go"), []byte(src), 0o666)
}

// module creates the temporary module, with the trace package.
func (w *workspace) module() error {
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	w.dir, err = os.MkdirTemp("", "cogen-e2e-")
	if err != nil {
		return err
	}
	gomod := fmt.Sprintf("module cogentest\n\ngo 1.26.0\n\nrequire github.com/cogen-go/cogen v0.0.0\n\nreplace github.com/cogen-go/cogen => %s\n", root)
	if err := os.WriteFile(filepath.Join(w.dir, "go.mod"), []byte(gomod), 0o666); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(w.dir, "go.sum"), filepath.Join(root, "go.sum")); err != nil {
		return err
	}
	return copyFile(filepath.Join(w.dir, "trace", "trace.go"), filepath.Join(corpus, "trace", "trace.go"))
}

// generate runs cogen on every program of the module.
func (w *workspace) generate() error {
	ctx, cancel := context.WithTimeout(context.Background(), w.deadline(3*time.Minute, 2*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "./cases/...")
	cmd.Dir = w.dir
	cmd.Env = append(goEnv(w.dir), asCogen+"=1")
	out, err := w.timed("cogen", cmd)
	w.genOut = string(out)
	if err != nil {
		return fmt.Errorf("cogen ./cases/...: %v\n%s", err, out)
	}
	return nil
}

// randomPrograms is how many random programs the differential test runs
// with the corpus (seeds firstRandom to firstRandom+randomPrograms-1): 24,
// or COGEN_RANDOM_PROGRAMS (COGEN_RANDOM_FIRST moves the seeds), in
// packages of 8 (TestDifferential/random1 runs seeds 1 to 8). Long runs use
// TestRandomPrograms, which builds them in batches.
var randomPrograms, firstRandom = envInt("COGEN_RANDOM_PROGRAMS", 24), int64(envInt("COGEN_RANDOM_FIRST", 1))

const randomPerPackage = 8

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// TestGolden compares the generated file of every corpus program with
// <corpus>/<case>.golden (refresh with go test ./gen -update).
func TestGolden(t *testing.T) {
	w := setup(t)
	for _, c := range w.cases {
		t.Run(c, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(w.dir, "cases", c, c+"_cogen.go"))
			if err != nil {
				t.Fatalf("no generated file: %v", err)
			}
			golden := filepath.Join(corpus, c+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./gen -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("generated code differs from %s (run go test ./gen -update if intended):\n%s", golden, diffLines(string(want), string(got)))
			}
		})
	}
}

// TestDeterministic regenerates in a copy and expects identical bytes.
func TestDeterministic(t *testing.T) {
	w := setup(t)
	files, diags, err := gen.RunDir(w.dir, []string{"./cases/..."}, "")
	if err != nil || len(diags) > 0 {
		t.Fatalf("second run: %v %v", err, diags)
	}
	// +1: cases/zshared, which the random packages call (randShared).
	if n := len(w.cases) + len(w.random) + len(w.hygiene) + len(w.matrix) + 1; len(files) != n {
		t.Fatalf("second run produced %d files for %d cases", len(files), n)
	}
	for _, f := range files {
		old, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, f.Content) {
			t.Errorf("%s differs between runs", f.Path)
		}
	}
}

func diffLines(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("first difference at line %d:\nwant: %s\ngot:  %s", i+1, x, y)
		}
	}
	return ""
}

var harness = template.Must(template.New("main").Parse(`package main

import (
	"fmt"
	"os"
	"reflect"
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
{{range .}}	"cogentest/cases/{{.}}"
{{end}})

type program struct {
	name string
	full func(*stackful.Co, *trace.T)
	less func(*trace.T) stackless.Frame
}

var programs = []program{
{{range .}}	{"{{.}}", {{.}}.Run, func(t *trace.T) stackless.Frame { return {{.}}.NewRunFrame(t) }},
{{end}}}

// runBoth runs a program in both models, concurrently on one loop.
func runBoth(p program, seed int64) (a, b []string, problem string) {
	l, err := loop.New()
	if err != nil {
		return nil, nil, err.Error()
	}
	defer l.Close()
	env := stackful.NewEnvOn(l)
	defer env.Close()
	ta, tb := trace.New(l, seed), trace.New(l, seed)
	co := env.Create(func(co *stackful.Co) { p.full(co, ta) }, nil)
	frame := p.less(tb)
	task := stackless.Spawn(l, frame)
	co.Resume()
	deadline := time.Now().Add(20 * time.Second)
	done := func() bool { return co.Status() == stackful.Dead && task.Done() }
	if err := l.Run(func() bool { return done() || time.Now().After(deadline) }); err != nil {
		return ta.Lines(), tb.Lines(), err.Error()
	}
	if !done() {
		return ta.Lines(), tb.Lines(), "timeout"
	}
	if v, ok := task.Panicked(); ok {
		return ta.Lines(), tb.Lines(), fmt.Sprint("stackless panicked: ", v)
	}
	return ta.Lines(), tb.Lines(), ""
}

func main() {
	for _, p := range programs {
		fmt.Printf("SIZE %s %d %d\n", p.name, reflect.TypeOf(p.less(nil)).Elem().Size(), reflect.TypeFor[stackless.Base]().Size())
		for seed := int64(1); seed <= 4; seed++ {
			a, b, problem := runBoth(p, seed)
			if problem == "" && fmt.Sprint(a) != fmt.Sprint(b) {
				problem = "traces differ"
			}
			if problem != "" {
				fmt.Printf("FAIL %s %d %s\n", p.name, seed, problem)
				for _, line := range a {
					fmt.Printf("  stackful:  %s\n", line)
				}
				for _, line := range b {
					fmt.Printf("  stackless: %s\n", line)
				}
				continue
			}
			fmt.Printf("OK %s %d %d\n", p.name, seed, len(a))
			if seed == 1 {
				for _, line := range a {
					fmt.Printf("  trace: %s\n", line)
				}
			}
		}
	}
	os.Stdout.Sync()
}
`))

// run builds the harness and runs every program once.
func (w *workspace) run() {
	var buf bytes.Buffer
	if err := harness.Execute(&buf, append(append(append(append([]string{}, w.cases...), w.random...), w.hygiene...), w.matrix...)); err != nil {
		w.runErr = err
		return
	}
	dir := filepath.Join(w.dir, "harness")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		w.runErr = err
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), buf.Bytes(), 0o666); err != nil {
		w.runErr = err
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.deadline(4*time.Minute, 4*time.Second))
	defer cancel()
	bin := filepath.Join(w.dir, "harness.bin")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./harness")
	build.Dir = w.dir
	build.Env = goEnv(w.dir)
	if out, err := w.timed("build", build); err != nil {
		w.runErr = fmt.Errorf("building the harness: %v\n%s", err, out)
		return
	}
	vet := exec.CommandContext(ctx, "go", "vet", "./cases/...")
	vet.Dir = w.dir
	vet.Env = goEnv(w.dir)
	if out, err := w.timed("vet", vet); err != nil {
		w.runErr = fmt.Errorf("go vet of the generated code: %v\n%s", err, out)
		return
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = w.dir
	out, err := w.timed("run", cmd)
	if err != nil {
		w.runErr = fmt.Errorf("running the harness: %v\n%s", err, out)
		return
	}
	w.results = map[string][]string{}
	current := ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "OK" || f[0] == "FAIL" || f[0] == "SIZE") {
			current = f[1]
		}
		if current != "" && len(f) > 0 {
			w.results[current] = append(w.results[current], line)
		}
	}
}

// TestDifferential runs every testdata program as stackful and as
// generated stackless code, with several seeds for randomized inputs, and
// requires identical traces.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	w := setup(t)
	w.runOnce.Do(w.run)
	if w.runErr != nil {
		t.Fatal(w.runErr)
	}
	t.Logf("CPU seconds: cogen %.1f, build %.1f, vet %.1f, run %.1f",
		w.cpu["cogen"].Seconds(), w.cpu["build"].Seconds(), w.cpu["vet"].Seconds(), w.cpu["run"].Seconds())
	for _, c := range append(append([]string{}, w.cases...), w.random...) {
		t.Run(c, func(t *testing.T) { checkResults(t, w, c) })
	}
}

// checkResults checks the harness's lines for one program: every seed
// ran, both models agreed and the trace is not empty.
func checkResults(t *testing.T, w *workspace, c string) {
	lines := w.results[c]
	ok := 0
	for _, l := range lines {
		f := strings.Fields(l)
		switch f[0] {
		case "FAIL":
			t.Error(strings.Join(lines, "\n"))
			return
		case "OK":
			if f[3] == "0" {
				t.Errorf("empty trace: %s", l)
			}
			ok++
		case "SIZE":
			size, _ := strconv.Atoi(f[2])
			base, _ := strconv.Atoi(f[3])
			t.Logf("frame size of %s.RunFrame: %d bytes (%d of fields)", c, size, size-base)
			// liveness.Run keeps t, keep, total and i, and keep and
			// i share a field (never live at once): 24 bytes of
			// fields; its 128-byte array and the other locals are
			// dead at every suspension.
			if c == "liveness" && size-base != 24 {
				t.Errorf("liveness.RunFrame has %d bytes of fields, want 24", size-base)
			}
		case "trace:":
			t.Log(l)
		}
	}
	if ok == 0 {
		t.Errorf("no result for %s", c)
	}
}

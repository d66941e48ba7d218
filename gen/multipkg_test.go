package gen_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The packages of TestMultiPackage: lib has marked functions (a plain
// one, a durable one, a method), caller calls them from marked functions
// (a durable one among them). caller sorts before lib, as in go generate
// ./... and cogen ./... .
const (
	multiLib = `package lib

import "github.com/cogen-go/cogen/runtime/stackful"

// Sum adds 0..n-1, yielding before each addition.
//
//co:stackless
func Sum(co *stackful.Co, n int) int {
	s := 0
	for i := range n {
		co.Gosched()
		s += i
	}
	return s
}

// Receive yields, then returns name.
//
//co:stackless durable
func Receive(co *stackful.Co, name string) string {
	co.Gosched()
	return name
}

// A Client counts.
type Client struct{ N int }

// Get yields, then returns c.N.
//
//co:stackless
func (c *Client) Get(co *stackful.Co) int {
	co.Gosched()
	return c.N
}

// Plain has a handle but is not marked.
func Plain(co *stackful.Co) int { return 1 }
`
	multiCaller = `package caller

import (
	"multi/lib"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// Total calls lib's marked function and method.
//
//co:stackless
func Total(co *stackful.Co, c *lib.Client) int {
	return lib.Sum(co, 3) + c.Get(co)
}

// Flow calls lib's durable function.
//
//co:stackless durable
func Flow(co *stackful.Co) string {
	return lib.Receive(co, "x")
}
`
	// multiUse refers to lib's generated constructor outside marked
	// functions: while lib has no generated file, an expected error.
	multiUse = `package caller

import "multi/lib"

// NewSum is lib's generated constructor.
var NewSum = lib.NewSumFrame
`
	// The second version marks a new function of lib that caller calls:
	// lib's and caller's generated files from the first version are stale.
	multiLib2 = multiLib + `
// Max yields, then returns the larger of a and b.
//
//co:stackless
func Max(co *stackful.Co, a, b int) int {
	co.Gosched()
	return max(a, b)
}
`
	multiCaller2 = multiCaller + `
// Both calls lib's new function.
//
//co:stackless
func Both(co *stackful.Co) int {
	return lib.Max(co, lib.Sum(co, 2), 1)
}
`
)

// TestMultiPackage: a package calling the marked functions of another
// package of the module is generated alike whether that package is
// generated in the same run (listed before or after it, from a clean
// state or over stale generated files), in an earlier run or in a later
// one (go generate ./... runs cogen package by package, in path order),
// also when it refers to that package's generated names outside marked
// functions, and go vet -vettool=cogen, which sees the other package's frames only,
// agrees.
func TestMultiPackage(t *testing.T) {
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gomod := fmt.Sprintf("module multi\n\ngo 1.26.0\n\nrequire github.com/cogen-go/cogen v0.0.0\n\nreplace github.com/cogen-go/cogen => %s\n", root)
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", gomod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	outputs := []string{"caller/caller_cogen.go", "lib/lib_cogen.go"}
	// generated returns the generated files, by name ("" for a missing one).
	generated := func() map[string]string {
		got := map[string]string{}
		for _, name := range outputs {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			got[name] = string(b)
		}
		return got
	}
	clean := func() {
		for _, name := range outputs {
			os.Remove(filepath.Join(dir, name))
		}
	}
	restore := func(files map[string]string) {
		for name, content := range files {
			write(name, content)
		}
	}
	run := func(args ...string) {
		t.Helper()
		if out, code := cogen(t, dir, args...); code != 0 {
			t.Fatalf("cogen %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	same := func(what string, want map[string]string) {
		t.Helper()
		got := generated()
		var names []string
		for name := range want {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if got[name] != want[name] {
				t.Errorf("%s: %s differs from the output of generating lib, then caller:\n%s\nwant:\n%s", what, name, got[name], want[name])
			}
		}
	}

	write("lib/lib.go", multiLib)
	write("caller/caller.go", multiCaller)
	write("caller/use.go", multiUse)
	// The reference: lib generated on its own, then caller, which sees
	// lib's frames.
	run("./lib")
	run("./caller")
	ref := generated()
	for name, content := range ref {
		if content == "" {
			t.Fatalf("%s not generated", name)
		}
	}
	for _, order := range [][]string{{"./..."}, {"./caller", "./lib"}, {"./lib", "./caller"}} {
		clean()
		run(order...)
		same("one run from a clean state, cogen "+strings.Join(order, " "), ref)
	}
	// go generate ./...: caller first, while lib has no generated file.
	clean()
	run("./caller")
	run("./lib")
	same("caller generated before lib, in separate runs", ref)

	// Stale generated files: lib gains a marked function that caller calls.
	write("lib/lib.go", multiLib2)
	write("caller/caller.go", multiCaller2)
	run("./lib")
	run("./caller")
	ref2 := generated()
	if ref2["caller/caller_cogen.go"] == ref["caller/caller_cogen.go"] || ref2["lib/lib_cogen.go"] == ref["lib/lib_cogen.go"] {
		t.Fatal("the second version generates the same files as the first")
	}
	for _, order := range [][]string{{"./..."}, {"./caller", "./lib"}} {
		restore(ref)
		run(order...)
		same("one run over stale files, cogen "+strings.Join(order, " "), ref2)
	}
	restore(ref)
	run("./caller")
	run("./lib")
	same("caller regenerated before lib, in separate runs, over stale files", ref2)

	if out, code := cogen(t, dir, "-n", "./..."); code != 0 {
		t.Errorf("cogen -n ./... right after generating: exit %d\n%s", code, out)
	}
	// Only caller's own generated names may be referred to unqualified.
	write("caller/bad.go", "package caller\n\nvar _ = NewSumFrame\n")
	if out, code := cogen(t, dir, "./caller"); code != 1 || !strings.Contains(out, "undefined: NewSumFrame") {
		t.Errorf("an unqualified reference to lib's generated name: exit %d\n%s", code, out)
	}
	os.Remove(filepath.Join(dir, "caller", "bad.go"))
	if testing.Short() {
		return
	}
	// go vet sees lib's frames in its export data, not its source: it
	// recognises the same calls and finds caller's output current.
	cmd := exec.Command("go", "vet", "-vettool="+os.Args[0], "./...")
	cmd.Dir = dir
	cmd.Env = append(goEnv(dir), asCogen+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet -vettool=cogen ./...: %v\n%s", err, out)
	}
}

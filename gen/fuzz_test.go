package gen_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/gen"
)

// FuzzCogen feeds random programs to the generator: the fuzzed seed and
// nesting depth choose a program of randProgramSized (loops, switches,
// gotos, closures that suspend, defers, panics and recovers, selects, ...).
// For each one: cogen does not panic and reports nothing (every construct
// the program generator writes is supported), the generated code passes go
// vet (so it compiles), and the program's stackful and stackless runs give
// the same trace for seeds 1 to 4.
//
// go test runs the seed corpus (a fixed slice, a few seconds per program);
// go test ./gen -run '^$' -fuzz FuzzCogen -fuzztime 10m explores further
// on a quiet machine (the engine gives up on a worker whose input takes 10 s:
// a loaded machine reports that as "fuzzing process hung"). For long runs
// under load, COGEN_RANDOM_PROGRAMS runs many programs in one harness (see
// randomPrograms).
func FuzzCogen(f *testing.F) {
	for _, s := range []struct {
		seed  int64
		depth uint8
	}{{1001, 3}, {2002, 4}, {3003, 5}} {
		f.Add(s.seed, s.depth)
	}
	f.Fuzz(func(t *testing.T, seed int64, depth uint8) {
		if testing.Short() {
			t.Skip("builds and runs programs")
		}
		dir := fuzzModule(t)
		src := randProgramSized("fz", seed, 1+int(depth%5))
		pkgDir := filepath.Join(dir, "cases", "fz")
		os.Remove(filepath.Join(pkgDir, "fz_cogen.go"))
		if err := os.WriteFile(filepath.Join(pkgDir, "fz.go"), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
		files, diags, err := gen.RunDir(dir, []string{"./cases/fz"}, "")
		if err != nil || len(diags) > 0 {
			t.Fatalf("cogen: %v %v\nprogram:\n%s", err, diags, src)
		}
		for _, file := range files {
			if err := os.WriteFile(file.Path, file.Content, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// The fuzzing engine stops a worker whose input runs for 10 s, so
		// under -fuzz the build of the harness is the compile check; the
		// seed corpus (go test) also vets.
		if !fuzzing() {
			vet := exec.CommandContext(ctx, "go", "vet", "./cases/fz")
			vet.Dir, vet.Env = dir, goEnv(dir)
			if out, err := vet.CombinedOutput(); err != nil {
				t.Fatalf("go vet of the generated code: %v\n%s\nprogram:\n%s", err, out, src)
			}
		}
		bin := filepath.Join(dir, "harness.bin")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./harness")
		build.Dir, build.Env = dir, goEnv(dir)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building the harness: %v\n%s", err, out)
		}
		run := exec.CommandContext(ctx, bin)
		run.Dir = dir
		out, err := run.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("\nFAIL ")) || !bytes.Contains(out, []byte("\nOK fz 4 ")) {
			t.Fatalf("differential run: %v\n%s\nprogram:\n%s", err, out, src)
		}
	})
}

// fuzzing reports whether the test binary runs as a fuzzing worker.
func fuzzing() bool {
	f := flag.Lookup("test.fuzzworker")
	return f != nil && f.Value.String() == "true"
}

var fuzzWS struct {
	once sync.Once
	dir  string
	err  error
}

// fuzzModule returns a module holding the trace package, the package
// cases/fz the fuzz target rewrites, and a harness for it; one per process.
func fuzzModule(t *testing.T) string {
	fuzzWS.once.Do(func() {
		fuzzWS.dir, fuzzWS.err = newFuzzModule()
		// gen.RunDir loads packages in this process: the same settings
		// as the go commands the tests run (goEnv).
		for _, kv := range goEnv(fuzzWS.dir)[len(os.Environ()):] {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	})
	if fuzzWS.err != nil {
		t.Fatal(fuzzWS.err)
	}
	return fuzzWS.dir
}

func newFuzzModule() (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "cogen-fuzz-")
	if err != nil {
		return "", err
	}
	gomod := fmt.Sprintf("module cogentest\n\ngo 1.26.0\n\nrequire github.com/cogen-go/cogen v0.0.0\n\nreplace github.com/cogen-go/cogen => %s\n", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o666); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(dir, "go.sum"), filepath.Join(root, "go.sum")); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(dir, "trace", "trace.go"), filepath.Join(corpus, "trace", "trace.go")); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "cases", "fz"), 0o777); err != nil {
		return "", err
	}
	var buf strings.Builder
	if err := harness.Execute(&buf, []string{"fz"}); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o777); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "harness", "main.go"), []byte(buf.String()), 0o666)
}

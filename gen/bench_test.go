package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

// benchSource writes a package of n marked functions (loops, waits,
// switches, calls of each other) into a GOPATH tree that uses the stub
// runtime packages of testdata/src.
func benchSource(tb testing.TB, n int) string {
	gopath := tb.TempDir()
	dir := filepath.Join(gopath, "src")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		tb.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "src"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, stub := range []string{"github.com", "golang.org"} {
		if err := os.Symlink(filepath.Join(src, stub), filepath.Join(dir, stub)); err != nil {
			tb.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString("package bench\n\nimport (\n\t\"time\"\n\n\t\"github.com/cogen-go/cogen/runtime/stackful\"\n)\n")
	for i := 0; i < n; i++ {
		callee := ""
		if i > 0 {
			callee = fmt.Sprintf("\t\tsum += f%d(co, x%%7)\n", i-1)
		}
		fmt.Fprintf(&b, `
//co:stackless
func f%d(co *stackful.Co, n int) int {
	sum := 0
	var buf [16]byte
	for x := 0; x < n; x++ {
		co.Sleep(time.Duration(x) * time.Microsecond)
%s		switch x %% 3 {
		case 0:
			k, err := co.Read(x, buf[:])
			if err != nil || k == 0 {
				continue
			}
			sum += k
		case 1:
			for i, c := range buf {
				if c == 0 && co.Wait(nil, time.Millisecond) {
					sum += i
				}
			}
		default:
			co.Gosched()
		}
	}
	return sum
}
`, i, callee)
	}
	pkgDir := filepath.Join(dir, "bench")
	if err := os.MkdirAll(pkgDir, 0o777); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "bench.go"), []byte(b.String()), 0o666); err != nil {
		tb.Fatal(err)
	}
	return gopath
}

func loadGOPATH(tb testing.TB, gopath, pattern string) *packages.Package {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedTypesSizes | packages.NeedImports,
		Dir:  gopath,
		Env:  append(os.Environ(), "GOPATH="+gopath, "GO111MODULE=off", "GOFLAGS=", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		tb.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		tb.Fatalf("loading %s: %v", pattern, pkgs[0].Errors)
	}
	return pkgs[0]
}

// BenchmarkCogenTransform analyzes and generates a package of 200 marked
// functions (the package is loaded and type-checked once, outside the
// timing; the time of that load is reported as load-ms).
func BenchmarkCogenTransform(b *testing.B) {
	gopath := benchSource(b, 200)
	start := time.Now()
	pkg := loadGOPATH(b, gopath, "bench")
	load := time.Since(start)
	b.ReportAllocs()
	b.ResetTimer()
	var size int
	for b.Loop() {
		res, diags, err := analyze(pkg, nil)
		if err != nil || len(diags) > 0 {
			b.Fatalf("%v %v", err, diags)
		}
		files, err := Generate(pkg.Fset, pkg.Types, res)
		if err != nil {
			b.Fatal(err)
		}
		size = len(files[0].Content)
	}
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
	b.ReportMetric(float64(size), "output-bytes")
}

// TestTransformBudget keeps the generation of 200 functions under the
// one-second budget (checked loosely: machines are noisy).
func TestTransformBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a package")
	}
	if raceEnabled {
		t.Skip("a timing budget means nothing under the race detector")
	}
	pkg := loadGOPATH(t, benchSource(t, 200), "bench")
	start, cpu0 := time.Now(), processCPU()
	res, diags, err := analyze(pkg, nil)
	if err != nil || len(diags) > 0 {
		t.Fatalf("%v %v", err, diags)
	}
	files, err := Generate(pkg.Fset, pkg.Types, res)
	if err != nil {
		t.Fatal(err)
	}
	// The bound is on the CPU the process used, which other processes on
	// a busy machine do not inflate as they do the wall time (logged).
	cpu, wall := processCPU()-cpu0, time.Since(start)
	t.Logf("%v of CPU, %v wall", cpu, wall)
	if cpu > 3*time.Second {
		t.Errorf("generating 200 functions took %v of CPU (%v wall), budget 1s", cpu, wall)
	}
	if len(res.Funcs) != 200 || len(files) != 1 {
		t.Fatalf("%d functions, %d files", len(res.Funcs), len(files))
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("gen: getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

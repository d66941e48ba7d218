package blocking_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/gen"
	"github.com/cogen-go/cogen/gen/blocking"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// TestBlocking checks the analyzer's reports (// want comments in
// testdata/src/<case>) and the code its suggested fixes leave
// (<case>.go.golden): co.Sleep for time.Sleep and <-time.After, co.Offload
// for a wait statement, conet.Dial with its import (blocking); co.Offload
// for file and process I/O as statements and assignments, declaring what
// := declared (fileio); in //co:stackless functions only co.Sleep, whose
// fix says to run go generate, and no co.Offload or conet fix (marked).
func TestBlocking(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), blocking.Analyzer, "blocking", "fileio", "marked")
}

// TestFixesAccepted: every fix offered in a //co:stackless function
// leaves code that cogen rewrites without a diagnostic. (The analyzer once
// offered co.Offload(wg.Wait) there, which cogen refuses: the handle's
// Offload has no stackless counterpart.) The fixed file of testdata's
// marked case, every fix applied, goes through gen.Analyzer with the stubs
// of gen's own tests.
func TestFixesAccepted(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "src", "marked", "marked.go.golden"))
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(golden)
	if len(ar.Files) == 0 {
		t.Fatal("marked.go.golden has no sections")
	}
	// Apply every section's edits at once: the sections differ from the
	// source in disjoint lines, so merging them line by line is exact.
	src, err := os.ReadFile(filepath.Join("testdata", "src", "marked", "marked.go"))
	if err != nil {
		t.Fatal(err)
	}
	orig := strings.Split(string(src), "\n")
	fixed := slices.Clone(orig)
	for _, f := range ar.Files {
		lines := strings.Split(string(f.Data), "\n")
		if len(lines) != len(orig) {
			t.Fatalf("section %q changes the number of lines; merge it by hand", f.Name)
		}
		for i := range lines {
			if lines[i] != orig[i] {
				fixed[i] = lines[i]
			}
		}
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "src"), os.DirFS(filepath.Join("..", "testdata", "src"))); err != nil {
		t.Fatal(err)
	}
	// gen's stub of the handle lacks Offload, which unmarked code may call.
	stub := filepath.Join(dir, "src", "github.com", "cogen-go", "cogen", "runtime", "stackful", "stackful.go")
	sf, err := os.OpenFile(stub, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sf.WriteString("\nfunc (co *Co) Offload(fn func()) {}\n"); err != nil {
		t.Fatal(err)
	}
	sf.Close()
	if err := os.MkdirAll(filepath.Join(dir, "src", "markedfixed"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The // want comments are the blocking analyzer's: gen.Analyzer must
	// report nothing.
	want := regexp.MustCompile(` *// want .*`)
	text := want.ReplaceAllString(strings.Join(fixed, "\n"), "")
	if err := os.WriteFile(filepath.Join(dir, "src", "markedfixed", "marked.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, gen.Analyzer, "markedfixed")
}

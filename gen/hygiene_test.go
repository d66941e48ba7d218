package gen_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"text/template"

	"github.com/cogen-go/cogen/gen"
)

// The hygiene corpus: every identifier and package name the generated code
// can introduce is declared by user code at package level, as a local (at
// the top of the function and in a statement copied whole), as an import
// alias and as a type parameter, in programs that make the generator use
// all of them (child frames, temporaries, range over functions, strings,
// maps and slices, defer, closures that suspend, type switches, goto,
// unsafe.Pointer and packages only reached through types). The programs
// join the differential test's workspace: they are generated, built, vetted
// and run in both models, which must agree.

// inventedRE finds the bases of the names the generator invents: the
// string literals passed to namer.fresh, lowerer.tempNamed and the bind
// of deferStmt.
var inventedRE = regexp.MustCompile(`(?:\.fresh|tempNamed|bind)\((?:[^"\n]*, )?"(\w+)"`)

// hygieneNames derives from gen's source the names generated code can
// introduce: invented bases, frame members, the packages generated code
// imports on its own, the packages the corpus programs reach only
// through types (math/rand, runtime/loop through trace.T), the names of
// the programs' own imports, and the names of a literal's frame and of a
// child frame field (runFunc1Frame, callHhelper).
func hygieneNames() ([]string, error) {
	set := map[string]bool{"v": true, "runFunc1": true, "runFunc1Frame": true, "newRunFunc1Frame": true, "callHhelper": true,
		"rand": true, "loop": true, "trace": true, "stackful": true, "fmt": true, "strings": true, "unsafe": true,
		"iter": true} // what range-over-func sources import
	files, err := filepath.Glob("*.go")
	if err != nil {
		return nil, err
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range inventedRE.FindAllStringSubmatch(string(src), -1) {
			set[m[1]] = true
			found++
		}
	}
	if found < 10 {
		return nil, fmt.Errorf("found only %d invented names in gen's source: is inventedRE out of date?", found)
	}
	for _, m := range gen.FrameMembers {
		set[m] = true
	}
	for _, name := range gen.GenPackages {
		set[name] = true
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// predeclared reports whether name is predeclared: a package-level
// declaration or type parameter with that name would shadow what generated
// code means by it (a diagnostic, see the package doc), so those forms
// leave it out.
func predeclared(name string) bool { return types.Universe.Lookup(name) != nil }

type hygieneProgram struct {
	Pkg      string
	PkgLevel []string // package-level variables
	Locals   []string // locals of Run
	Aliases  []string // import aliases of strings
	TParams  []string // type parameters of a generic marked helper
}

var hygieneTmpl = template.Must(template.New("h").Parse(`package {{.Pkg}}

import (
	hfmt "fmt"
	hunsafe "unsafe"

	htrace "cogentest/trace"
	hstackful "github.com/cogen-go/cogen/runtime/stackful"
{{range .Aliases}}	{{.}} "strings"
{{end}})

{{range .PkgLevel}}var {{.}} = "pkg {{.}}"
{{end}}
func hseq(yield func(int) bool) {
	for i := range 3 {
		if !yield(i) {
			return
		}
	}
}

func hseq2(yield func(int, string) bool) {
	for i := range 2 {
		if !yield(i, "s") {
			return
		}
	}
}

func hseq0(yield func() bool) {
	for range 2 {
		if !yield() {
			return
		}
	}
}

//co:stackless
func hhelper(hco *hstackful.Co, x int) (int, string) {
	hco.Gosched()
	return x * 2, hfmt.Sprint("h", x)
}

//co:stackless
func hgen[{{range .TParams}}{{.}}, {{end}}hT any](hco *hstackful.Co{{range $i, $n := .TParams}}, ha{{$i}} {{$n}}{{end}}, hz hT) string {
	hout := hfmt.Sprint(hz)
	hco.Gosched()
{{range $i, $n := .TParams}}	hout += hfmt.Sprint(ha{{$i}})
{{end}}	for hi := range 2 {
		hn, _ := hhelper(hco, hi)
		hout += hfmt.Sprint(hn)
	}
	return hout
}

// Run uses every construct that makes the generator introduce names.
//
//co:stackless
func Run(hco *hstackful.Co, ht *htrace.T) {
{{range .Locals}}	{{.}} := "local {{.}}"
{{end}}	var hout []string
	hadd := func(s ...any) { hout = append(hout, hfmt.Sprint(s...)) }
	defer func(s string) { ht.Printf("deferred %s", s) }(hfmt.Sprint(len(hout)))
	hr, hl := ht.Rand, ht.Loop
	var hup hunsafe.Pointer
	ha, hb := hhelper(hco, 1)
	hn := ha + len(hb) + ht.Rand.Intn(3)
	hadd("child", hn, hr != nil, hl != nil, hup == nil)
	for hi := range hseq {
		hco.Gosched()
		hadd("seq", hi)
	}
	for hi, hs := range hseq2 {
		hco.Gosched()
		hadd("seq2", hi, hs)
	}
	for range hseq0 {
		hco.Gosched()
		hadd("seq0")
	}
	for hi, hc := range "héllo" {
		hco.Gosched()
		hadd("str", hi, hc)
	}
	hm := map[string]int{"a": 1, "b": 2, "c": 3}
	hsum := 0
	for hk, hv := range hm {
		hco.Gosched()
		hsum += hv + len(hk)
	}
	hadd("map", hsum)
	for hi, hv := range []int{4, 5} {
		hco.Gosched()
		hadd("slice", hi, hv)
	}
	hg := func(x int) int {
		hco.Gosched()
		return x + 1
	}
	hadd("closure", hg(hn))
	var hx any = hn
	switch hy := hx.(type) {
	case int:
		hco.Gosched()
		hadd("int", hy)
	case string:
		hadd("string", hy)
	}
	hj := 0
again:
	hco.Gosched()
	hj++
	if hj < 2 {
		goto again
	}
	if len(hout) > 0 {
{{range .Locals}}		{{.}} := hj
		_ = {{.}}
{{end}}		hadd("copied")
	}
	hadd("generic", hgen(hco{{range $i, $n := .TParams}}, "{{$n}}"{{end}}, 0))
{{range .Aliases}}	hadd({{.}}.ToUpper("{{.}}"))
{{end}}{{range .PkgLevel}}	hadd({{.}})
{{end}}{{range .Locals}}	hadd({{.}})
{{end}}	hco.Gosched()
	for _, hs := range hout {
		ht.Printf("%s", hs)
	}
}
`))

// hygienePrograms returns the corpus: one program per form, and one with
// the package-level, local and type-parameter forms together.
func hygienePrograms() (map[string]string, error) {
	names, err := hygieneNames()
	if err != nil {
		return nil, err
	}
	var shadowable []string // may be declared at package level or as type parameters
	for _, n := range names {
		if !predeclared(n) && !token.IsKeyword(n) {
			shadowable = append(shadowable, n)
		}
	}
	progs := []hygieneProgram{
		{Pkg: "hygpkg", PkgLevel: shadowable},
		{Pkg: "hyglocal", Locals: names},
		{Pkg: "hygalias", Aliases: shadowable},
		{Pkg: "hygtparam", TParams: shadowable},
		{Pkg: "hygmix", PkgLevel: shadowable, Locals: names, TParams: shadowable},
	}
	out := map[string]string{}
	for _, p := range progs {
		var b strings.Builder
		if err := hygieneTmpl.Execute(&b, p); err != nil {
			return nil, err
		}
		out[p.Pkg] = b.String()
	}
	return out, nil
}

// TestHygieneNames checks that the corpus covers what the generator can
// introduce (the derivation from gen's source finds the known bases).
func TestHygieneNames(t *testing.T) {
	names, err := hygieneNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tmp", "f", "fn", "a", "dispatch", "next", "yield", "k", "keys", "stackless", "iter", "utf8", "unsafe", "Base", "PC"} {
		if !contains(names, want) {
			t.Errorf("hygiene names miss %s: %v", want, names)
		}
	}
	t.Logf("%d names: %s", len(names), strings.Join(names, " "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// builtinRE finds the predeclared identifiers gen writes with jennifer's
// helpers (jen.Len(...), s.Append(...), .Any()).
var builtinRE = regexp.MustCompile(`(?:jen|\))\.([A-Z][a-z0-9]*)\(`)

// TestPredeclaredUsed checks that every predeclared identifier the
// emitter writes on its own is one whose shadowing is a diagnostic.
func TestPredeclaredUsed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range builtinRE.FindAllStringSubmatch(string(src), -1) {
			name := strings.ToLower(m[1])
			if predeclared(name) && !contains(gen.PredeclaredUsed, name) {
				t.Errorf("%s writes the predeclared %s, missing from predeclaredUsed", f, name)
			}
		}
	}
}

// TestHygiene runs the hygiene corpus in both models (its programs are in
// the differential test's workspace and harness).
func TestHygiene(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	w := setup(t)
	if len(w.hygiene) == 0 {
		t.Fatal("no hygiene programs in the workspace")
	}
	w.runOnce.Do(w.run)
	if w.runErr != nil {
		t.Fatal(w.runErr)
	}
	for _, c := range w.hygiene {
		t.Run(c, func(t *testing.T) { checkResults(t, w, c) })
	}
}

// durableLocalRE finds the bases of the names the durable encoding methods
// give their parameters and locals (durableCodec.id).
var durableLocalRE = regexp.MustCompile(`\.id\("(\w+)"\)`)

// TestDurableHygieneNames: the durable hygiene corpus
// (internal/durabletest) declares at package level, or imports under, every
// name the durable encoding methods may give a local, so that the renaming
// of those locals is exercised by its differential tests. A new local base
// in gen fails this test until the corpus has a name for it.
func TestDurableHygieneNames(t *testing.T) {
	bases := map[string]bool{}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range durableLocalRE.FindAllStringSubmatch(string(src), -1) {
			bases[m[1]] = true
		}
	}
	if len(bases) < 5 {
		t.Fatalf("found only %d local bases in gen's source: the pattern no longer matches durableCodec.id's calls", len(bases))
	}
	declared := map[string]bool{}
	corpus, err := filepath.Glob("../internal/durabletest/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range corpus {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_cogen.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						declared[sp.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							declared[n.Name] = true
						}
					case *ast.ImportSpec:
						path := strings.Trim(sp.Path.Value, `"`)
						declared[path[strings.LastIndex(path, "/")+1:]] = true
						if sp.Name != nil {
							declared[sp.Name.Name] = true
						}
					}
				}
			}
		}
	}
	var missing []string
	for b := range bases {
		if !declared[b] {
			missing = append(missing, b)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("internal/durabletest declares no package-level name or import for the durable encoding's locals %q: add them to its hygiene corpus (hygiene.go)", missing)
	}
}

package gen

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// The program of TestVersionKeys, before any change: a durable function's
// frame holds a Status (an enum) and a Money (MarshalBinary) and a Point
// (a codec of the package).
const versionSrc = `package p

import "github.com/cogen-go/cogen/runtime/stackless"

type Status int

const (
	Pending Status = iota
	Paid
	Shipped
)

type Money struct{ cents int64 }

// MarshalBinary writes the cents.
func (m Money) MarshalBinary() ([]byte, error) { return []byte{byte(m.cents)}, nil }
func (m *Money) UnmarshalBinary(b []byte) error { m.cents = int64(b[0]); return nil }

type Point struct{ x, y int }

var PointCodec = stackless.Codec[Point]{
	Marshal:   func(p *Point) ([]byte, error) { return []byte{byte(p.x), byte(p.y)}, nil },
	Unmarshal: func(b []byte, p *Point) error { p.x, p.y = int(b[0]), int(b[1]); return nil },
}

const limit = 3

func Work(st Status, total Money, at Point) bool { return st == Paid && total.cents < limit }
`

// fingerprintOf type-checks src and returns the fingerprint that the
// version keys of Work, whose frame holds fields of its parameters'
// types, give an empty Step.
func fingerprintOf(t *testing.T, src string) (uint64, []string) {
	t.Helper()
	return fingerprintWith(t, src, token.NewFileSet(), importer.Default())
}

// fingerprintWith is fingerprintOf with std importing the standard
// library (from export data, as go vet does, or from source).
func fingerprintWith(t *testing.T, src string, fset *token.FileSet, std types.Importer) (uint64, []string) {
	t.Helper()
	sl := checkSource(t, fset, stacklessPath, `package stackless
type Codec[T any] struct {
	Marshal   func(x *T) ([]byte, error)
	Unmarshal func(b []byte, x *T) error
}`)
	file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importerFunc(func(p string) (*types.Package, error) {
		if p == stacklessPath {
			return sl, nil
		}
		return std.Import(p)
	})}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{file}, info)
	if err != nil {
		t.Fatal(err)
	}
	pass := &analysis.Pass{Fset: fset, Files: []*ast.File{file}, Pkg: pkg, TypesInfo: info}
	var decl *ast.FuncDecl
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Work" {
			decl = fd
		}
	}
	point := pkg.Scope().Lookup("Point").Type()
	cs := &codecSet{pkg: pkg, local: []*codecVar{{v: pkg.Scope().Lookup("PointCodec").(*types.Var), elem: point}}}
	f := &Func{Decl: decl, codecs: codecView{set: cs}}
	var fields []types.Type
	sig := pkg.Scope().Lookup("Work").Type().(*types.Signature)
	for i := range sig.Params().Len() {
		fields = append(fields, sig.Params().At(i).Type())
	}
	f.versionKeys = versionKeys(pass, f, fields)
	c := &durableCodec{fn: f, codecs: f.codecs}
	return c.fingerprint(nil, nil), f.versionKeys
}

// TestVersionKeys: changes that keep a durable function's code and layout
// but change what its snapshots mean change its fingerprint, so that
// Restore refuses the old snapshots (ErrChangedCode) instead of misreading
// them: reordering an enum's constants (a held Paid read as Pending: the
// issue's case), changing the value of a constant the body names,
// changing what MarshalBinary or UnmarshalBinary writes or reads, or what
// a codec of the package does. A comment or a change elsewhere does not.
func TestVersionKeys(t *testing.T) {
	base, keys := fingerprintOf(t, versionSrc)
	for _, want := range []string{
		"const example.com/p.Paid example.com/p.Status = 1",
		"const example.com/p.Shipped example.com/p.Status = 2", // held, not named
		"const example.com/p.limit untyped int = 3",
		"method example.com/p.MarshalBinary",
		"method example.com/p.UnmarshalBinary",
		"codec example.com/p.PointCodec",
	} {
		found := false
		for _, k := range keys {
			found = found || strings.HasPrefix(k, want)
		}
		if !found {
			t.Errorf("no version key %q in %q", want, keys)
		}
	}
	for _, tc := range []struct {
		name, old, new string
		changes        bool
	}{
		{"enum reordered", "Pending Status = iota\n\tPaid", "Paid Status = iota\n\tPending", true},
		{"a held enum's constant changed", "\tShipped\n", "\tShipped = 7\n", true},
		{"a named constant changed", "const limit = 3", "const limit = 4", true},
		{"MarshalBinary's format", "[]byte{byte(m.cents)}", "[]byte{byte(m.cents / 2)}", true},
		{"UnmarshalBinary's format", "m.cents = int64(b[0])", "m.cents = 2 * int64(b[0])", true},
		{"the codec's format", "[]byte{byte(p.x), byte(p.y)}", "[]byte{byte(p.y), byte(p.x)}", true},
		{"a comment", "// MarshalBinary writes the cents.", "// MarshalBinary writes cents.", false},
		{"an unrelated constant", "const limit = 3", "const limit = 3\nconst other = 9", false},
	} {
		src := strings.Replace(versionSrc, tc.old, tc.new, 1)
		if src == versionSrc {
			t.Fatalf("%s: no %q in the source", tc.name, tc.old)
		}
		fp, _ := fingerprintOf(t, src)
		if (fp != base) != tc.changes {
			t.Errorf("%s: fingerprint %016x, before %016x: want a change %v", tc.name, fp, base, tc.changes)
		}
	}
}

// TestVersionKeysSameUnderVet: the fingerprint of a frame holding a type
// of another package (time.Duration, whose package has the unexported
// constants minDuration and maxDuration) is the same whether that package
// is loaded from export data, as go vet loads it, or from source, as
// cogen's loader may: go vet -vettool=cogen reported examples/durable's
// generated file stale while cogen wrote it as it was (901976f).
func TestVersionKeysSameUnderVet(t *testing.T) {
	src := strings.Replace(versionSrc, "func Work(st Status, total Money, at Point) bool", "func Work(st Status, total Money, at Point, d time.Duration) bool", 1)
	src = strings.Replace(src, `import "github.com/cogen-go/cogen/runtime/stackless"`, "import (\n\t\"time\"\n\n\t\"github.com/cogen-go/cogen/runtime/stackless\"\n)", 1)
	exportFP, exportKeys := fingerprintOf(t, src)
	fset := token.NewFileSet()
	sourceFP, sourceKeys := fingerprintWith(t, src, fset, importer.ForCompiler(fset, "source", nil))
	if exportFP != sourceFP {
		t.Errorf("fingerprint %016x from export data, %016x from source\nkeys %q\nand %q", exportFP, sourceFP, exportKeys, sourceKeys)
	}
	found := false
	for _, k := range sourceKeys {
		found = found || strings.HasPrefix(k, "const time.Hour time.Duration")
	}
	if !found {
		t.Errorf("no version key for time.Hour (an exported constant of a held type) in %q", sourceKeys)
	}
}

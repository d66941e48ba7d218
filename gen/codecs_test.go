package gen

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// checkSource type-checks src as the package at path, importing the
// packages of deps (already checked) and the standard library.
func checkSource(t *testing.T, fset *token.FileSet, path, src string, deps ...*types.Package) *types.Package {
	t.Helper()
	f, err := parser.ParseFile(fset, path+".go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	std := importer.Default()
	conf := types.Config{Importer: importerFunc(func(p string) (*types.Package, error) {
		for _, d := range deps {
			if d.Path() == p {
				return d, nil
			}
		}
		return std.Import(p)
	})}
	pkg, err := conf.Check(path, fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// TestCodecSchema: the layout a frame's fingerprint hashes names the codec
// that serves a type, so that moving a type between field-by-field and
// codec encoding, or between two codecs, changes the fingerprint; and the
// precedence of local over imported codecs, test-only codecs and
// ambiguities are as codecs.go says.
func TestCodecSchema(t *testing.T) {
	fset := token.NewFileSet()
	sl := checkSource(t, fset, stacklessPath, `package stackless
type Codec[T any] struct {
	Marshal   func(x *T) ([]byte, error)
	Unmarshal func(b []byte, x *T) error
}`)
	lib := checkSource(t, fset, "example.com/lib", `package lib
import "github.com/cogen-go/cogen/runtime/stackless"
type Point struct{ X, Y int }
var PointCodec, Other stackless.Codec[Point]
var ErrCodec stackless.Codec[error]
`, sl)
	p := checkSource(t, fset, "example.com/p", `package p
import "github.com/cogen-go/cogen/runtime/stackless"
var localErr, testErr stackless.Codec[error]
`, sl)
	v := func(pkg *types.Package, name string) *types.Var { return pkg.Scope().Lookup(name).(*types.Var) }
	point := lib.Scope().Lookup("Point").Type()
	errType := types.Universe.Lookup("error").Type()
	codec := func(pkg *types.Package, name string, elem types.Type, test bool) *codecVar {
		return &codecVar{v: v(pkg, name), elem: elem, test: test}
	}
	schema := func(cs *codecSet, test bool, typ types.Type) string {
		c := &durableCodec{codecs: codecView{set: cs, test: test}}
		return c.schema(types.NewPointer(typ), map[types.Type]bool{})
	}

	none := &codecSet{pkg: p}
	one := &codecSet{pkg: p, imported: []*codecVar{codec(lib, "PointCodec", point, false)}}
	other := &codecSet{pkg: p, imported: []*codecVar{codec(lib, "Other", point, false)}}
	for _, tc := range []struct {
		cs   *codecSet
		want string
	}{
		{none, "*example.com/lib.Point=struct{X int;Y int;}"},
		{one, "*codec(example.com/lib.PointCodec)example.com/lib.Point"},
		{other, "*codec(example.com/lib.Other)example.com/lib.Point"},
	} {
		if got := schema(tc.cs, false, point); got != tc.want {
			t.Errorf("schema %q, want %q", got, tc.want)
		}
	}

	both := &codecSet{pkg: p,
		local:    []*codecVar{codec(p, "localErr", errType, false), codec(p, "testErr", errType, true)},
		imported: []*codecVar{codec(lib, "ErrCodec", errType, false), codec(lib, "PointCodec", point, false), codec(lib, "Other", point, false)},
	}
	// A local codec wins over an imported one; outside test files a codec
	// of test files does not count, and in them it is a second local one.
	if c := (codecView{set: both}).codec(errType); c == nil || c.v.Name() != "localErr" {
		t.Errorf("error served by %v, want localErr", c)
	}
	if why := (codecView{set: both, test: true}).ambiguity(errType); why != "two codecs serve error, localErr and testErr (declare a stackless.Codec[error] in this package to choose)" {
		t.Errorf("in a test file: %q", why)
	}
	if why := (codecView{set: both}).ambiguity(point); !strings.HasPrefix(why, "two codecs serve lib.Point, lib.PointCodec and lib.Other") {
		t.Errorf("two imported codecs: %q", why)
	}
	if c := (codecView{set: both}).codec(types.NewPointer(point)); c != nil {
		t.Errorf("*lib.Point served by %s: a codec serves exactly its type", c.id())
	}
}

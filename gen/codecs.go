package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Registered codecs (runtime/stackless.Codec). A durable frame's value of
// a type T that a codec serves is encoded by the codec's Marshal and
// Unmarshal, through cogenrt.EncodeWith and DecodeWith. Codecs are found
// by type, with no directive: a package-level variable of type
// stackless.Codec[T] declared in the package being generated (a local
// codec), or an exported one of a package that its files import (an
// imported codec). For a T:
//
//   - one local codec serves it, whatever the imported ones;
//   - else one imported codec serves it;
//   - two local codecs, or no local and two imported ones, are ambiguous:
//     a diagnostic at each value of T that a durable frame holds, naming
//     both (declaring one locally chooses).
//
// A codec serves exactly T (types.Identical): not a named type defined
// from T, not *T. A value of *T goes through the snapshot's pointer table
// as every pointer does, and the codec carries the pointee once, so that
// sharing is kept; a Codec[*T] is therefore a diagnostic at its
// declaration. A codec takes precedence over T's MarshalBinary and over
// the field-by-field encoding, and makes encodable any T it serves:
// foreign structs with unexported fields, interfaces (error), funcs,
// channels, generic types.
//
// Output must not depend on earlier output (cogen sets it aside while
// loading, go vet does not), so only the source files count, their
// declarations and their imports. Test files count only for durable
// functions of test files, which the package's test variant alone
// generates.

// A codecVar is a package-level variable of type stackless.Codec[T].
type codecVar struct {
	v    *types.Var
	elem types.Type // T
	// test: declared in a _test.go file, or exported by a package that only
	// _test.go files import.
	test bool
}

// name is the codec's name in messages: pkg.Var, or Var for a local one.
func (c *codecVar) name(from *types.Package) string {
	if c.v.Pkg() == from {
		return c.v.Name()
	}
	return c.v.Pkg().Name() + "." + c.v.Name()
}

// id is the codec's identity in the layout fingerprint: its package path
// and name.
func (c *codecVar) id() string { return c.v.Pkg().Path() + "." + c.v.Name() }

// codecSet holds the codecs the package's durable functions may use.
type codecSet struct {
	pkg      *types.Package
	local    []*codecVar
	imported []*codecVar
}

// codecView is the codec set as one durable function sees it.
type codecView struct {
	set  *codecSet
	test bool // the function is in a _test.go file
}

// findCodecs collects the codecs visible to the package of pass and
// reports those declared for a pointer type.
func findCodecs(pass *analysis.Pass) *codecSet {
	cs := &codecSet{pkg: pass.Pkg}
	importedBy := map[*types.Package]bool{} // package -> imported by test files only
	var order []*types.Package
	byPath := map[string]*types.Package{} // blank imports have no PkgName
	for _, p := range pass.Pkg.Imports() {
		byPath[p.Path()] = p
	}
	for _, file := range pass.Files {
		if ast.IsGenerated(file) {
			continue
		}
		test := isTestFile(pass.Fset, file)
		for _, imp := range file.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			p := byPath[path]
			if err != nil || p == nil {
				continue
			}
			if onlyTests, seen := importedBy[p]; !seen {
				importedBy[p] = test
				order = append(order, p)
			} else if onlyTests && !test {
				importedBy[p] = false
			}
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					v, _ := pass.TypesInfo.Defs[id].(*types.Var)
					if v == nil || v.Name() == "_" {
						continue
					}
					elem := codecElem(v.Type())
					if elem == nil {
						continue
					}
					if _, isPtr := elem.Underlying().(*types.Pointer); isPtr {
						pass.Reportf(id.Pos(), "codec %s serves a pointer type (%s): declare a stackless.Codec of the type it points to; pointers to it keep their sharing through the snapshot's pointer table",
							v.Name(), types.TypeString(elem, nameQualifier(pass.Pkg)))
						continue
					}
					cs.local = append(cs.local, &codecVar{v: v, elem: elem, test: test})
				}
			}
		}
	}
	for _, p := range order {
		for _, name := range p.Scope().Names() {
			v, ok := p.Scope().Lookup(name).(*types.Var)
			if !ok || !v.Exported() {
				continue
			}
			if elem := codecElem(v.Type()); elem != nil {
				if _, isPtr := elem.Underlying().(*types.Pointer); !isPtr {
					cs.imported = append(cs.imported, &codecVar{v: v, elem: elem, test: importedBy[p]})
				}
			}
		}
	}
	return cs
}

// codecElem returns T if t is stackless.Codec[T], else nil.
func codecElem(t types.Type) types.Type {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Name() != "Codec" || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != stacklessPath {
		return nil
	}
	if args := n.TypeArgs(); args != nil && args.Len() == 1 {
		return args.At(0)
	}
	return nil
}

// lookup returns the codec that serves t, or, if two serve it with the
// same precedence, nil and those two.
func (cv codecView) lookup(t types.Type) (*codecVar, []*codecVar) {
	if cv.set == nil {
		return nil, nil
	}
	for _, list := range [][]*codecVar{cv.set.local, cv.set.imported} {
		var found []*codecVar
		for _, c := range list {
			if (cv.test || !c.test) && types.Identical(c.elem, t) {
				found = append(found, c)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		return nil, found[:2]
	}
	return nil, nil
}

// codec returns the codec that serves t, or nil. Only types without an
// ambiguity reach the emitter.
func (cv codecView) codec(t types.Type) *codecVar {
	c, _ := cv.lookup(t)
	return c
}

// ambiguity tells which two codecs serve t, or "".
func (cv codecView) ambiguity(t types.Type) string {
	_, two := cv.lookup(t)
	if two == nil {
		return ""
	}
	T := types.TypeString(t, nameQualifier(cv.set.pkg))
	return fmt.Sprintf("two codecs serve %s, %s and %s (declare a stackless.Codec[%s] in this package to choose)",
		T, two[0].name(cv.set.pkg), two[1].name(cv.set.pkg), T)
}

// codecHint tells how to make t encodable with a codec.
func codecHint(pkg *types.Package, t types.Type) string {
	return fmt.Sprintf("declare a package-level variable of type stackless.Codec[%s] to carry it", types.TypeString(t, nameQualifier(pkg)))
}

// nameQualifier qualifies the types of other packages by their names, as
// source code names them.
func nameQualifier(pkg *types.Package) types.Qualifier {
	return func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
}

func isTestFile(fset *token.FileSet, f *ast.File) bool {
	return strings.HasSuffix(fset.Position(f.Package).Filename, "_test.go")
}

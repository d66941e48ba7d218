package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
)

// Version safety beyond the layout. A frame's fingerprint hashes its Step
// code and its fields' layouts; two kinds of change leave both as they
// were and still change what a snapshot's bytes mean:
//
//   - the value of a constant: the code names it, the frame holds the
//     value (reordering the constants of an enum makes a held "paid" read
//     as "pending");
//   - the format a MarshalBinary method or a registered codec writes.
//
// versionKeys lists, for the fingerprint, what of these a durable
// function depends on: the value of every constant its body names, and
// of every package-level constant of a named type its frame holds (the
// enum's other constants, which the body need not name); and the source
// of the MarshalBinary and UnmarshalBinary methods of the types its frame
// holds, and of the declaration of the codecs that serve them, when they
// are declared in the package being generated (cogen has no source for
// other packages': those are named by their type or codec variable only,
// as the layout names them). What the methods call is not followed.
func versionKeys(pass *analysis.Pass, f *Func, fields []types.Type) []string {
	keys := map[string]bool{}
	constant := func(c *types.Const) {
		if c.Pkg() == nil {
			return // true, false, iota
		}
		keys[fmt.Sprintf("const %s.%s %s = %s", c.Pkg().Path(), c.Name(), types.TypeString(c.Type(), nil), c.Val().ExactString())] = true
	}
	ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if c, ok := pass.TypesInfo.Uses[id].(*types.Const); ok {
				constant(c)
			}
		}
		return true
	})
	decls := map[token.Pos]ast.Node{} // the package's method and variable declarations, by name position
	for _, file := range pass.Files {
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					decls[d.Name.Pos()] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for _, n := range vs.Names {
							decls[n.Pos()] = vs
						}
					}
				}
			}
		}
	}
	source := func(what string, obj types.Object) {
		if obj == nil || obj.Pkg() != pass.Pkg {
			return
		}
		n := decls[obj.Pos()]
		if n == nil {
			return
		}
		var b bytes.Buffer
		if fd, ok := n.(*ast.FuncDecl); ok {
			n = fd.Body // the body alone: no doc comment
		}
		if err := printer.Fprint(&b, pass.Fset, n); err == nil {
			keys[what+" "+obj.Pkg().Path()+"."+obj.Name()+"\n"+b.String()] = true
		}
	}
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		t = types.Unalias(t)
		if seen[t] {
			return
		}
		seen[t] = true
		if cv := f.codecs.codec(t); cv != nil {
			source("codec", cv.v)
			return
		}
		if n, ok := t.(*types.Named); ok {
			if obj := n.Obj(); obj.Pkg() != nil {
				scope := obj.Pkg().Scope()
				for _, name := range scope.Names() {
					if c, ok := scope.Lookup(name).(*types.Const); ok && types.Identical(c.Type(), t) {
						constant(c)
					}
				}
			}
			if isBinaryCodec(t) {
				for _, m := range []string{"MarshalBinary", "UnmarshalBinary"} {
					obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, n.Obj().Pkg(), m)
					source("method", obj)
				}
				return
			}
		}
		switch u := t.Underlying().(type) {
		case *types.Pointer:
			walk(u.Elem())
		case *types.Slice:
			walk(u.Elem())
		case *types.Array:
			walk(u.Elem())
		case *types.Map:
			walk(u.Key())
			walk(u.Elem())
		case *types.Struct:
			for i := range u.NumFields() {
				walk(u.Field(i).Type())
			}
		}
	}
	for _, t := range fields {
		walk(t)
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

package gen

import (
	"go/ast"
	"go/types"

	"github.com/dave/jennifer/jen"
)

// Marked functions of other packages. A //co:stackless function of an
// imported package is recognised by what cogen generated for it there:
// its frame type and constructor, under the names frameNames gives, with
// the constructor taking the function's parameters without the handle
// (the receiver first, for a method) and the frame's Result returning the
// function's results (a function without results has no Result). A call of it becomes a child frame, like a call of a
// marked function of the package; generic ones are not recognised (their
// calls stay plain calls, and using the handle in them is the usual
// diagnostic).

// frameNames returns the names of the frame type and the constructor cogen
// generates for the marked function fn.
func frameNames(fn *types.Func) (frame, ctor string) {
	base := fn.Name()
	exported := ast.IsExported(base)
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		rn := recvTypeName(recv.Type())
		exported = exported && ast.IsExported(rn)
		base = rn + upperFirst(base)
	}
	if exported {
		return upperFirst(base) + "Frame", "New" + upperFirst(base) + "Frame"
	}
	return lowerFirst(base) + "Frame", "new" + upperFirst(base) + "Frame"
}

// externalCallee returns the Func standing for fn, a function of another
// package, if cogen generated a frame for it there; nil otherwise.
func (s *scan) externalCallee(fn *types.Func) *Func {
	if fn.Pkg() == nil || fn.Pkg() == s.pass.Pkg {
		return nil
	}
	if f, ok := s.external[fn]; ok {
		return f
	}
	f := lookupExternal(fn)
	if s.external == nil {
		s.external = map[*types.Func]*Func{}
	}
	s.external[fn] = f
	return f
}

func lookupExternal(fn *types.Func) *Func {
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return nil
	}
	params := sig.Params()
	if params.Len() == 0 || !isCoType(params.At(0).Type()) {
		return nil
	}
	frameName, ctorName := frameNames(fn)
	scope := fn.Pkg().Scope()
	ctor, _ := scope.Lookup(ctorName).(*types.Func)
	tn, _ := scope.Lookup(frameName).(*types.TypeName)
	if ctor == nil || tn == nil {
		return nil
	}
	csig := ctor.Type().(*types.Signature)
	var want []types.Type
	if recv := sig.Recv(); recv != nil {
		want = append(want, recv.Type())
	}
	for i := 1; i < params.Len(); i++ {
		want = append(want, params.At(i).Type())
	}
	if csig.Params().Len() != len(want) || csig.Results().Len() != 1 || csig.Variadic() != sig.Variadic() {
		return nil
	}
	for i, t := range want {
		if !types.Identical(csig.Params().At(i).Type(), t) {
			return nil
		}
	}
	ptr := types.NewPointer(tn.Type())
	if !types.Identical(csig.Results().At(0).Type(), ptr) {
		return nil
	}
	if step, _, _ := types.LookupFieldOrMethod(ptr, false, fn.Pkg(), "Step"); step == nil {
		return nil
	}
	if sig.Results().Len() > 0 { // a frame has a Result method only then
		result, _, _ := types.LookupFieldOrMethod(ptr, false, fn.Pkg(), "Result")
		rf, _ := result.(*types.Func)
		if rf == nil || !types.Identical(rf.Type().(*types.Signature).Results(), sig.Results()) {
			return nil
		}
	}
	return &Func{
		Decl:      &ast.FuncDecl{Name: ast.NewIdent(fn.Name())},
		Obj:       fn,
		FrameName: frameName,
		CtorName:  ctorName,
		OK:        true,
		Pkg:       fn.Pkg(),
	}
}

// qualified names a package-level name of f's package from the generated
// file: qualified by the import for a function of another package.
func (f *Func) qualified(name string) *jen.Statement {
	if f.Pkg != nil {
		return jen.Qual(f.Pkg.Path(), name)
	}
	return jen.Id(name)
}

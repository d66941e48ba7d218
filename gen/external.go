package gen

import (
	"go/ast"
	"go/types"

	"github.com/dave/jennifer/jen"
)

// Marked functions of other packages. A call of a //co:stackless
// function of an imported package becomes a child frame, like a call of
// a marked function of the package; generic ones are not recognised
// (their calls stay plain calls, and using the handle in them is the
// usual diagnostic). cogen recognises them two ways:
//
//   - by the directive in the source, for the packages whose source the
//     command reads (srcMarks: those of the main module and of modules
//     replaced by a local directory, which a run may be regenerating):
//     the output then does not depend on whether, when or in which run
//     those packages were generated;
//   - by what cogen generated for it there, for the other packages and
//     under go vet (which sees imported packages through their export
//     data only): its frame type and constructor, under the names
//     frameNames gives, with the constructor taking the function's
//     parameters without the handle (the receiver first, for a method)
//     and the frame's Result returning the function's results (a
//     function without results has no Result); the frame is durable if it
//     has EncodeState.
//
// The two agree once the imported package's generated files are current,
// so that go vet finds current what the command wrote.

// srcMarks are the //co:stackless functions cogen found in the source of
// imported packages: by package path, then by funcKey, whether the
// function is durable. A package present with no entries has none; a
// package absent is recognised by its generated frames.
type srcMarks map[string]map[string]bool

// funcKey names a function or method within its package: Name, or
// Recv.Name with the receiver's type name.
func funcKey(recv, name string) string {
	if recv == "" {
		return name
	}
	return recv + "." + name
}

// frameNames returns the names of the frame type and the constructor cogen
// generates for the marked function fn.
func frameNames(fn *types.Func) (frame, ctor string) {
	recv := ""
	if r := fn.Type().(*types.Signature).Recv(); r != nil {
		recv = recvTypeName(r.Type())
	}
	return frameNamesOf(recv, fn.Name())
}

// frameNamesOf returns the names of the frame type and the constructor of
// the marked function name, a method of the type recv if recv is not "".
func frameNamesOf(recv, name string) (frame, ctor string) {
	base := name
	exported := ast.IsExported(base)
	if recv != "" {
		exported = exported && ast.IsExported(recv)
		base = recv + upperFirst(base)
	}
	if exported {
		return upperFirst(base) + "Frame", "New" + upperFirst(base) + "Frame"
	}
	return lowerFirst(base) + "Frame", "new" + upperFirst(base) + "Frame"
}

// externalCallee returns the Func standing for fn, a function of another
// package, if it is marked there; nil otherwise.
func (s *scan) externalCallee(fn *types.Func) *Func {
	if fn.Pkg() == nil || fn.Pkg() == s.pass.Pkg {
		return nil
	}
	if f, ok := s.external[fn]; ok {
		return f
	}
	var f *Func
	if marks, ok := s.src[fn.Pkg().Path()]; ok {
		f = markedExternal(fn, marks)
	} else {
		f = lookupExternal(fn)
	}
	if s.external == nil {
		s.external = map[*types.Func]*Func{}
	}
	s.external[fn] = f
	return f
}

// externalShape reports whether fn, a function of another package, has
// the shape of a marked function that a call can run as a child frame:
// not generic, the handle first.
func externalShape(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return false
	}
	return sig.Params().Len() > 0 && isCoType(sig.Params().At(0).Type())
}

// markedExternal returns the Func standing for fn if its package's source
// marks it (marks are the package's srcMarks).
func markedExternal(fn *types.Func, marks map[string]bool) *Func {
	if !externalShape(fn) {
		return nil
	}
	recv := ""
	if r := fn.Type().(*types.Signature).Recv(); r != nil {
		recv = recvTypeName(r.Type())
	}
	durable, ok := marks[funcKey(recv, fn.Name())]
	if !ok {
		return nil
	}
	frameName, ctorName := frameNames(fn)
	return &Func{
		Decl:      &ast.FuncDecl{Name: ast.NewIdent(fn.Name())},
		Obj:       fn,
		FrameName: frameName,
		CtorName:  ctorName,
		OK:        true,
		Pkg:       fn.Pkg(),
		Durable:   durable,
	}
}

// lookupExternal returns the Func standing for fn if cogen generated a
// frame for it in its package.
func lookupExternal(fn *types.Func) *Func {
	if !externalShape(fn) {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	params := sig.Params()
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
	encode, _, _ := types.LookupFieldOrMethod(ptr, false, fn.Pkg(), "EncodeState")
	return &Func{
		Decl:      &ast.FuncDecl{Name: ast.NewIdent(fn.Name())},
		Obj:       fn,
		FrameName: frameName,
		CtorName:  ctorName,
		OK:        true,
		Pkg:       fn.Pkg(),
		Durable:   encode != nil,
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

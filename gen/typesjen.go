package gen

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/dave/jennifer/jen"
)

// typ renders a type of the source package for the generated file.
func (e *emitter) typ(t types.Type) *jen.Statement {
	switch t := t.(type) {
	case *types.Alias:
		obj := t.Obj()
		if localObj(obj) {
			// A local alias stands for its type wherever the frame needs
			// it (an alias is not part of a type's identity or name).
			return e.typ(t.Rhs())
		}
		s := e.qual(obj)
		if args := t.TypeArgs(); args != nil && args.Len() > 0 {
			s = s.Types(e.typeList(args)...)
		}
		return s
	case *types.Named:
		s := e.qual(t.Obj())
		if args := t.TypeArgs(); args != nil && args.Len() > 0 {
			s = s.Types(e.typeList(args)...)
		}
		return s
	case *types.TypeParam:
		return jen.Id(t.Obj().Name())
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			return e.gq("unsafe", "Pointer")
		}
		return jen.Id(types.Default(t).(*types.Basic).Name())
	case *types.Pointer:
		return jen.Op("*").Add(e.typ(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(e.typ(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(e.typ(t.Elem()))
	case *types.Map:
		return jen.Map(e.typ(t.Key())).Add(e.typ(t.Elem()))
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return jen.Chan().Op("<-").Add(e.typ(t.Elem()))
		case types.RecvOnly:
			return jen.Op("<-").Chan().Add(e.typ(t.Elem()))
		}
		return jen.Chan().Add(e.typ(t.Elem()))
	case *types.Signature:
		return jen.Func().Add(e.signature(t))
	case *types.Struct:
		var fields []jen.Code
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			var s *jen.Statement
			if f.Embedded() {
				s = e.typ(f.Type())
			} else {
				s = jen.Id(f.Name()).Add(e.typ(f.Type()))
			}
			if tag := t.Tag(i); tag != "" {
				s = s.Add(jen.Lit(tag))
			}
			fields = append(fields, s)
		}
		return jen.Struct(fields...)
	case *types.Interface:
		var items []jen.Code
		for i := 0; i < t.NumEmbeddeds(); i++ {
			items = append(items, e.typ(t.EmbeddedType(i)))
		}
		for i := 0; i < t.NumExplicitMethods(); i++ {
			m := t.ExplicitMethod(i)
			items = append(items, jen.Id(m.Name()).Add(e.signature(m.Type().(*types.Signature))))
		}
		return jen.Interface(items...)
	case *types.Union:
		var terms []jen.Code
		for i := 0; i < t.Len(); i++ {
			term := t.Term(i)
			s := e.typ(term.Type())
			if term.Tilde() {
				s = jen.Op("~").Add(s)
			}
			terms = append(terms, s)
		}
		return jen.Union(terms...)
	}
	panic(fmt.Sprintf("cogen: internal error: cannot render type %T", t))
}

func (e *emitter) typeList(l *types.TypeList) []jen.Code {
	var out []jen.Code
	for t := range l.Types() {
		out = append(out, e.typ(t))
	}
	return out
}

// signature renders the parameters and results of a function type.
func (e *emitter) signature(sig *types.Signature) *jen.Statement {
	var params []jen.Code
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			params = append(params, jen.Op("...").Add(e.typ(t.(*types.Slice).Elem())))
		} else {
			params = append(params, e.typ(t))
		}
	}
	s := jen.Params(params...)
	switch sig.Results().Len() {
	case 0:
	case 1:
		s = s.Add(e.typ(sig.Results().At(0).Type()))
	default:
		var res []jen.Code
		for v := range sig.Results().Variables() {
			res = append(res, e.typ(v.Type()))
		}
		s = s.Params(res...)
	}
	return s
}

// qual names a declared type, qualified by its package when needed.
func (e *emitter) qual(obj types.Object) *jen.Statement {
	if name, ok := e.locals[obj]; ok {
		return jen.Id(name)
	}
	if name, ok := e.stepAliases[obj]; ok {
		e.aliasUsed[obj] = true
		return jen.Id(name)
	}
	if obj.Pkg() == nil {
		return jen.Id(obj.Name())
	}
	return e.qualPath(obj.Pkg().Path(), obj.Pkg().Name(), obj.Name())
}

// shadowedPredeclared returns the declarations that hide a predeclared
// identifier from the generated code of fn: package-level ones (outside
// earlier output) and fn's type parameters, by name.
func shadowedPredeclared(pass *analysis.Pass, fn *Func) map[string]types.Object {
	out := map[string]types.Object{}
	for _, name := range types.Universe.Names() {
		if obj := pass.Pkg.Scope().Lookup(name); obj != nil && !inGeneratedFile(pass, obj.Pos()) {
			out[name] = obj
		}
	}
	sig := fn.Obj.Type().(*types.Signature)
	for _, tps := range []*types.TypeParamList{sig.TypeParams(), sig.RecvTypeParams()} {
		for tp := range tps.TypeParams() {
			if types.Universe.Lookup(tp.Obj().Name()) != nil {
				out[tp.Obj().Name()] = tp.Obj()
			}
		}
	}
	return out
}

// predeclaredUsed are the predeclared identifiers generated code uses on
// its own (beyond the types of the source's values): a declaration that
// hides one from it is a diagnostic.
var predeclaredUsed = []string{"any", "append", "bool", "complex", "false", "float64", "imag", "int64", "len", "make", "new", "nil", "panic", "real", "string", "uint64"}

// checkPredeclared reports the declarations that hide from fn's generated
// code a predeclared identifier it uses on its own.
func checkPredeclared(pass *analysis.Pass, fn *Func) bool {
	ok := true
	shadowed := shadowedPredeclared(pass, fn)
	for _, name := range predeclaredUsed {
		if obj := shadowed[name]; obj != nil {
			pass.Reportf(fn.Decl.Name.Pos(), "%s declared at %s hides the predeclared %s, which the code generated for %s uses; rename it", name, pass.Fset.Position(obj.Pos()), name, fn.Decl.Name.Name)
			ok = false
		}
	}
	return ok
}

// localObj reports whether obj is declared inside a function.
func localObj(obj types.Object) bool {
	return obj.Pkg() != nil && obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope()
}

// unnameable returns a named type inside t that the generated code cannot
// name: one declared inside a function, unexported in another package, or
// a predeclared type that a declaration in shadowed hides (the object of
// that declaration is returned then).
func unnameable(t types.Type, pkg *types.Package, hoisted map[types.Object]bool, shadowed map[string]types.Object) types.Object {
	var bad types.Object
	seen := map[types.Type]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if bad != nil || seen[t] {
			return
		}
		seen[t] = true
		check := func(obj types.Object) {
			if obj.Pkg() == nil {
				if s := shadowed[obj.Name()]; s != nil {
					bad = s
				}
				return
			}
			if hoisted[obj] {
				return
			}
			if obj.Parent() != obj.Pkg().Scope() || (obj.Pkg() != pkg && !obj.Exported()) {
				bad = obj
			}
		}
		switch t := t.(type) {
		case *types.Alias:
			if localObj(t.Obj()) {
				walk(t.Rhs()) // generated code names the aliased type
				return
			}
			check(t.Obj())
			if args := t.TypeArgs(); args != nil {
				for a := range args.Types() {
					walk(a)
				}
			}
		case *types.Named:
			check(t.Obj())
			if args := t.TypeArgs(); args != nil {
				for a := range args.Types() {
					walk(a)
				}
			}
		case *types.Basic:
			if b, ok := types.Default(t).(*types.Basic); ok && b.Kind() != types.UnsafePointer {
				if s := shadowed[b.Name()]; s != nil {
					bad = s
				}
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			for v := range t.Params().Variables() {
				walk(v.Type())
			}
			for v := range t.Results().Variables() {
				walk(v.Type())
			}
		case *types.Struct:
			for f := range t.Fields() {
				walk(f.Type())
				if !f.Exported() && f.Pkg() != pkg {
					bad = f
				}
			}
		case *types.Interface:
			for i := 0; i < t.NumEmbeddeds(); i++ {
				walk(t.EmbeddedType(i))
			}
			for i := 0; i < t.NumExplicitMethods(); i++ {
				m := t.ExplicitMethod(i)
				walk(m.Type())
				if !m.Exported() && m.Pkg() != pkg {
					bad = m
				}
			}
		case *types.Union:
			for i := 0; i < t.Len(); i++ {
				walk(t.Term(i).Type())
			}
		}
	}
	walk(t)
	return bad
}

// checkTypes reports variables whose type the generated code cannot name.
// A Step local may have a type declared in the function (it is hoisted to
// the top of Step); a frame field may not.
func (l *lowerer) checkTypes() bool {
	hoisted := map[types.Object]bool{}
	shadowed := shadowedPredeclared(l.pass, l.fn)
	for _, v := range l.p.vars {
		if _, ok := v.obj.(*types.TypeName); ok {
			hoisted[v.obj] = true
		}
	}
	for _, v := range l.p.vars {
		if v.typ == nil || v.kind == kConst {
			continue
		}
		name := v.name
		switch {
		case v.obj != nil:
			name = v.obj.Name()
		case v.desc != "":
			name = v.desc
		case v.kind == kResult:
			name = "a result of " + l.fn.Decl.Name.Name
		case v.kind == kTemp:
			name = "a value computed by " + l.fn.Decl.Name.Name
		}
		pos := v.pos
		if !pos.IsValid() {
			pos = l.fn.Decl.Name.Pos()
		}
		if v.field {
			if bad := unnameable(v.typ, l.pass.Pkg, nil, shadowed); bad != nil {
				if shadowed[bad.Name()] == bad {
					l.errorf(pos, "the type of %s mentions the predeclared %s, which %s declared at %s hides from generated code; rename that", name, bad.Name(), bad.Name(), l.pass.Fset.Position(bad.Pos()))
				} else if hoisted[bad] {
					l.errorf(pos, "%s lives across a suspension but its type mentions %s, declared inside the function; declare the type at package level (v1)", name, bad.Name())
				} else {
					l.errorf(pos, "the type of %s mentions %s, which generated code cannot name; declare the variable with a package-level type (v1)", name, bad.Name())
				}
			}
		} else if bad := unnameable(v.typ, l.pass.Pkg, hoisted, shadowed); bad != nil && shadowed[bad.Name()] == bad {
			l.errorf(pos, "the type of %s mentions the predeclared %s, which %s declared at %s hides from generated code; rename that", name, bad.Name(), bad.Name(), l.pass.Fset.Position(bad.Pos()))
		} else if bad != nil {
			l.errorf(pos, "the type of %s mentions %s, which generated code cannot name; declare the variable with a package-level type (v1)", name, bad.Name())
		}
	}
	return l.ok
}

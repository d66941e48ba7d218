package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

type suspKind uint8

const (
	notSusp   suspKind = iota
	suspWait           // a waiting method of the handle
	suspCall           // a call of a //co:stackless function
	suspProto          // a call passing the handle to a parameter of a handle-protocol interface
)

// scan is what the checks learn about a marked function before lowering it.
type scan struct {
	pass   *analysis.Pass
	info   *types.Info
	fn     *Func
	marked map[*types.Func]*Func
	// src and external are the marked functions of other packages: those
	// found in their source, and the cache of externalCallee.
	src      srcMarks
	external map[*types.Func]*Func
	ok       bool

	susp      map[*ast.CallExpr]suspKind
	callees   map[*ast.CallExpr]*callee
	badCalls  map[*ast.CallExpr]bool // calls already reported
	protoArgs map[*ast.CallExpr]bool // calls passing the handle to a handle-protocol parameter
	addrTaken map[types.Object]bool
	names     map[string]bool // every identifier and label of the function, but package names
	hasGoto   bool
	hasDefer  bool // a defer statement outside function literals
	memo      map[ast.Node]bool
}

// scopeless reports whether id names a package, a field or a method: no
// name declared in a scope can capture it.
func scopeless(info *types.Info, id *ast.Ident) bool {
	obj := info.Uses[id]
	if obj == nil {
		obj = info.Defs[id]
	}
	switch o := obj.(type) {
	case *types.PkgName:
		return true
	case *types.Var:
		return o.IsField()
	case *types.Func:
		return o.Type().(*types.Signature).Recv() != nil
	}
	return false
}

func (s *scan) errorf(pos token.Pos, format string, args ...any) {
	s.pass.Reportf(pos, format, args...)
	s.ok = false
}

// check walks a marked function: it finds the suspension points, reports
// every misuse of the handle and every construct v1 does not rewrite, and
// records which variables are address-taken.
func check(pass *analysis.Pass, fn *Func, marked map[*types.Func]*Func, src srcMarks) *scan {
	s := &scan{
		pass: pass, info: pass.TypesInfo, fn: fn, marked: marked, src: src, ok: true,
		susp:      map[*ast.CallExpr]suspKind{},
		callees:   map[*ast.CallExpr]*callee{},
		badCalls:  map[*ast.CallExpr]bool{},
		protoArgs: map[*ast.CallExpr]bool{},
		addrTaken: map[types.Object]bool{},
		names:     map[string]bool{},
		memo:      map[ast.Node]bool{},
	}
	ast.Inspect(fn.Decl, func(n ast.Node) bool {
		// Package names, fields and methods are not names of the
		// function's scopes: generated code names packages by its own
		// imports, and a selector cannot be captured.
		if id, ok := n.(*ast.Ident); ok && !scopeless(pass.TypesInfo, id) {
			s.names[id.Name] = true
		}
		return true
	})
	s.walk(fn.Decl.Body, nil, 0)
	ast.Inspect(fn.Decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectStmt:
			if s.hasSusp(n) {
				s.errorf(n.Pos(), "select with a suspension point in it is not supported in //co:stackless functions (v1); use cosync.Select over cosync.Chan cases (RecvCase, SendCase, Default, After), which waits through the coroutine handle")
			}
		}
		return true
	})
	return s
}

// walk visits n with its parent; lit > 0 inside function literals.
func (s *scan) walk(n, parent ast.Node, lit int) {
	if n == nil {
		return
	}
	switch n := n.(type) {
	case *ast.FuncLit:
		s.captures(n)
		if lit == 0 && s.suspendingLit(n) {
			// A frame of its own, checked when it is lowered.
			s.litFunc(n, parent)
			return
		}
		lit++
	case *ast.DeferStmt:
		if lit == 0 {
			s.hasDefer = true
		}
	case *ast.BranchStmt:
		if n.Tok == token.GOTO && lit == 0 {
			s.hasGoto = true
		}
	case *ast.CallExpr:
		s.call(n, parent, lit)
	case *ast.Ident:
		if s.info.Uses[n] == s.fn.Co && s.fn.Co != nil && !s.coUseOK(n, parent, lit) {
			if lit > 0 {
				s.errorf(n.Pos(), "a closure cannot use the coroutine handle %s here", n.Name)
			} else {
				s.errorf(n.Pos(), "the coroutine handle %s may only call its waiting methods, be passed as the first argument of a //co:stackless function or to a parameter of type cosync.Handle", n.Name)
			}
		}
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			s.markAddr(n.X)
		}
	case *ast.SliceExpr:
		if t, ok := s.info.TypeOf(n.X).Underlying().(*types.Array); ok && t != nil {
			s.markAddr(n.X)
		}
	case *ast.SelectorExpr:
		s.selector(n, parent)
	}
	for _, c := range children(n) {
		s.walk(c, n, lit)
	}
}

// coUseOK reports whether a use of the handle is one the rewrite keeps:
// the receiver of a handle method call, the first argument of a call of a
// //co:stackless function, or an argument for a parameter of a
// handle-protocol interface (runtime/cosync's Handle).
func (s *scan) coUseOK(id *ast.Ident, parent ast.Node, lit int) bool {
	if lit > 0 {
		return false
	}
	switch p := parent.(type) {
	case *ast.SelectorExpr:
		return p.X == id // checked in selector and call
	case *ast.CallExpr:
		if s.protoArgs[p] && s.callees[p] == nil {
			for i, a := range p.Args {
				if a == id && s.protoParam(p, i) {
					return true
				}
			}
		}
		return len(p.Args) > 0 && p.Args[0] == id && (s.callees[p] != nil || s.badCalls[p])
	}
	return false
}

// protoCall reports whether call passes the function's handle to a
// parameter of a handle-protocol interface: a waiting operation built on
// the protocol (a Chan's Send, a Mutex's Lock, cosync.Select, or a user's
// own), which suspends like the handle's waiting methods.
func (s *scan) protoCall(call *ast.CallExpr) bool {
	if s.fn.Co == nil {
		return false
	}
	for i, a := range call.Args {
		if id := identOf(a); id != nil && s.info.Uses[id] == s.fn.Co && s.protoParam(call, i) {
			return true
		}
	}
	return false
}

// protoParam reports whether argument i of call goes to a parameter of a
// handle-protocol interface.
func (s *scan) protoParam(call *ast.CallExpr, i int) bool {
	sig, ok := types.Unalias(s.info.TypeOf(call.Fun)).(*types.Signature)
	if !ok || sig.Params().Len() == 0 {
		return false
	}
	var pt types.Type
	switch n := sig.Params().Len(); {
	case i < n-1 || (i == n-1 && !sig.Variadic()):
		pt = sig.Params().At(i).Type()
	case sig.Variadic() && !call.Ellipsis.IsValid():
		pt = sig.Params().At(n - 1).Type().(*types.Slice).Elem()
	default:
		return false
	}
	return isProtoType(pt)
}

// protoMethods are the methods of the handle protocol: an interface with
// all of them (runtime/cosync.Handle, or one embedding it) is a
// handle-protocol interface. Both handles have them with the same
// signatures (vocabulary_test.go).
var protoMethods = []string{"Waiter", "Resumed", "Suspend", "OpSlot", "Begin"}

func isProtoType(t types.Type) bool {
	iface, ok := types.Unalias(t).Underlying().(*types.Interface)
	if !ok || iface.NumMethods() < len(protoMethods) {
		return false
	}
	for _, name := range protoMethods {
		found := false
		for m := range iface.Methods() {
			if m.Name() == name {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// selector checks uses of the handle's methods.
func (s *scan) selector(sel *ast.SelectorExpr, parent ast.Node) {
	t := s.info.TypeOf(sel.X)
	if t == nil || !isCoType(t) {
		if selection := s.info.Selections[sel]; selection != nil && selection.Kind() != types.FieldVal {
			if call, ok := parent.(*ast.CallExpr); !ok || call.Fun != sel {
				if fn, ok := selection.Obj().(*types.Func); ok && s.markedFunc(fn) {
					s.errorf(sel.Pos(), "method value %s of the //co:stackless method %s is not supported: call the method where it is used (its calls are suspension points)", types.ExprString(sel), fn.Name())
				}
			}
			if sig, ok := selection.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
				if _, isPtr := types.Unalias(sig.Recv().Type()).(*types.Pointer); isPtr && !selection.Indirect() {
					if _, xPtr := types.Unalias(s.info.TypeOf(sel.X)).Underlying().(*types.Pointer); !xPtr {
						s.markAddr(sel.X)
					}
				}
			}
		}
		return
	}
	id, isIdent := ast.Unparen(sel.X).(*ast.Ident)
	own := isIdent && s.fn.Co != nil && s.info.Uses[id] == s.fn.Co
	call, isCall := parent.(*ast.CallExpr)
	switch {
	case !isCall || call.Fun != sel:
		s.errorf(sel.Pos(), "method value %s of the coroutine handle is not supported; call it", sel.Sel.Name)
	case !own:
		s.errorf(sel.Pos(), "%s is called on a coroutine handle other than the function's own", sel.Sel.Name)
	case !waitingMethods[sel.Sel.Name] && !plainMethods[sel.Sel.Name]:
		s.errorf(sel.Sel.Pos(), "method %s of the coroutine handle has no stackless counterpart", sel.Sel.Name)
	}
}

// markedFunc reports whether fn is a //co:stackless function or method,
// of the package or of another one.
func (s *scan) markedFunc(fn *types.Func) bool {
	return s.marked[fn.Origin()] != nil || s.externalCallee(fn) != nil
}

// call classifies a call: a suspension point, recover, or ordinary.
func (s *scan) call(call *ast.CallExpr, parent ast.Node, lit int) {
	kind := notSusp
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if t := s.info.TypeOf(sel.X); t != nil && isCoType(t) && waitingMethods[sel.Sel.Name] {
			kind = suspWait
		}
	}
	if kind == notSusp && s.protoCall(call) {
		kind = suspProto
		s.protoArgs[call] = true
	}
	before := s.ok
	s.ok = true
	c := s.markedCallee(call)
	if !s.ok {
		s.badCalls[call] = true
	}
	s.ok = s.ok && before
	if c != nil {
		delete(s.protoArgs, call)
		kind = suspCall
		if c.fn.lit != nil && !c.fn.lit.ownCo {
			// A literal that captures the handle: no handle argument.
			if lit > 0 {
				s.badCalls[call] = true
				return
			}
			s.callees[call] = c
		} else if len(call.Args) == 0 || s.fn.Co == nil || s.info.Uses[identOf(call.Args[0])] != s.fn.Co {
			if lit == 0 {
				name := c.fn.Decl.Name.Name
				if c.fn.lit != nil {
					name = fmt.Sprintf("the closure defined at line %d", s.pass.Fset.Position(c.fn.lit.node.Pos()).Line)
				}
				s.errorf(call.Pos(), "%s must be called with the caller's coroutine handle as its first argument", name)
			}
			s.badCalls[call] = true
			return
		} else if call.Ellipsis.IsValid() && len(call.Args) == 1 {
			s.errorf(call.Pos(), "cannot spread arguments into the coroutine handle")
			s.badCalls[call] = true
			return
		} else {
			s.callees[call] = c
		}
	}
	if kind == notSusp || lit > 0 {
		// In a closure, the use of the handle is what is reported.
		return
	}
	switch parent.(type) {
	case *ast.GoStmt:
		s.errorf(call.Pos(), "a suspension point cannot be the call of a go statement: the new goroutine has no coroutine handle")
		return
	case *ast.DeferStmt:
		s.errorf(call.Pos(), "a deferred call cannot suspend: deferred calls run when the frame returns or a panic unwinds it, outside its steps")
		return
	}
	s.susp[call] = kind
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

// markedCallee returns the //co:stackless function a call statically calls.
func (s *scan) markedCallee(call *ast.CallExpr) *callee {
	fun := ast.Unparen(call.Fun)
	if set := s.fn.root().lits; set != nil {
		switch f := fun.(type) {
		case *ast.FuncLit:
			if !s.suspendingLit(f) {
				return nil
			}
			if lf := s.litFunc(f, call); lf != nil {
				return &callee{fn: lf, key: lf.FrameName}
			}
			return nil
		case *ast.Ident:
			if lf := set.byObj[s.info.Uses[f]]; lf != nil {
				return &callee{fn: lf, key: lf.FrameName}
			}
		}
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := s.info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return nil
			}
			fn, _ := sel.Obj().(*types.Func)
			if fn == nil {
				return nil
			}
			m := s.marked[fn.Origin()]
			if m == nil {
				m = s.externalCallee(fn)
			}
			if m == nil {
				return nil
			}
			var targs []types.Type
			rt := types.Unalias(sel.Recv())
			if p, ok := rt.(*types.Pointer); ok {
				rt = types.Unalias(p.Elem())
			}
			if n, ok := rt.(*types.Named); ok {
				for t := range n.TypeArgs().Types() {
					targs = append(targs, t)
				}
			}
			return &callee{fn: m, typeArgs: targs, key: calleeKey(m, targs)}
		}
		id = f.Sel // package-qualified: a marked function of another package, or nothing
	default:
		return nil
	}
	fn, _ := s.info.Uses[id].(*types.Func)
	if fn == nil {
		return nil
	}
	m := s.marked[fn.Origin()]
	if m == nil {
		m = s.externalCallee(fn)
	}
	if m == nil {
		return nil
	}
	var targs []types.Type
	if inst, ok := s.info.Instances[id]; ok {
		for t := range inst.TypeArgs.Types() {
			targs = append(targs, t)
		}
	}
	return &callee{fn: m, typeArgs: targs, key: calleeKey(m, targs)}
}

func calleeKey(m *Func, targs []types.Type) string {
	k := m.FrameName
	for _, t := range targs {
		k += "," + types.TypeString(t, nil)
	}
	return k
}

// captures marks the variables of the function that a literal refers to.
func (s *scan) captures(lit *ast.FuncLit) {
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if v, ok := s.info.Uses[id].(*types.Var); ok && !v.IsField() && v.Pos() >= s.fn.Decl.Pos() && v.Pos() < s.fn.Decl.End() && (v.Pos() < lit.Pos() || v.Pos() >= lit.End()) {
			s.addrTaken[v] = true
		}
		return true
	})
}

// markAddr records that the variable at the root of an addressable
// expression has its address taken.
func (s *scan) markAddr(e ast.Expr) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.SelectorExpr:
			if sel := s.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && !sel.Indirect() {
				if _, ptr := types.Unalias(s.info.TypeOf(x.X)).Underlying().(*types.Pointer); !ptr {
					e = x.X
					continue
				}
			}
		case *ast.IndexExpr:
			if _, arr := types.Unalias(s.info.TypeOf(x.X)).Underlying().(*types.Array); arr {
				e = x.X
				continue
			}
		case *ast.Ident:
			if v, ok := s.info.Uses[x].(*types.Var); ok {
				s.addrTaken[v] = true
			}
		}
		return
	}
}

// isSusp reports the kind of suspension point a call is.
func (s *scan) isSusp(call *ast.CallExpr) suspKind { return s.susp[call] }

// hasSusp reports whether n contains a suspension point outside function
// literals.
func (s *scan) hasSusp(n ast.Node) bool {
	if n == nil || len(s.susp) == 0 {
		return false
	}
	if v, ok := s.memo[n]; ok {
		return v
	}
	found := false
	ast.Inspect(n, func(c ast.Node) bool {
		if found {
			return false
		}
		switch c := c.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if s.susp[c] != notSusp {
				found = true
				return false
			}
		}
		return true
	})
	s.memo[n] = found
	return found
}

// children lists the direct child nodes of n in source order.
func children(n ast.Node) []ast.Node {
	var out []ast.Node
	first := true
	ast.Inspect(n, func(c ast.Node) bool {
		if first {
			first = false
			return true
		}
		if c != nil {
			out = append(out, c)
		}
		return false
	})
	return out
}

// suspendingLit reports whether a function literal of the function suspends:
// it takes the handle as its first parameter, refers to the function's, or
// calls a local variable holding a literal that suspends (defined before
// it, so already known).
func (s *scan) suspendingLit(n *ast.FuncLit) bool {
	if sig, ok := s.info.TypeOf(n).(*types.Signature); ok && sig.Params().Len() > 0 && isCoType(sig.Params().At(0).Type()) {
		return true
	}
	var holders map[types.Object]*Func
	if set := s.fn.root().lits; set != nil {
		holders = set.byObj
	}
	if s.fn.Co == nil && len(holders) == 0 {
		return false
	}
	found := false
	ast.Inspect(n.Body, func(c ast.Node) bool {
		if id, ok := c.(*ast.Ident); ok {
			if obj := s.info.Uses[id]; obj != nil && (obj == s.fn.Co || holders[obj] != nil) {
				found = true
			}
		}
		return !found
	})
	return found
}

// litFunc returns the frame-to-be of a function literal that suspends,
// creating it on first sight. parent is the node holding the literal: only
// a call of it or the definition of a local variable that is only called
// are supported.
func (s *scan) litFunc(n *ast.FuncLit, parent ast.Node) *Func {
	root := s.fn.root()
	set := root.lits
	if f, ok := set.byNode[n]; ok {
		return f
	}
	set.byNode[n] = nil // reported at most once
	rsig := root.Obj.Type().(*types.Signature)
	if rsig.TypeParams() != nil || rsig.RecvTypeParams() != nil {
		s.errorf(n.Pos(), "a closure that suspends is not supported in a generic function")
		return nil
	}
	escapes := func(why string) *Func {
		s.errorf(n.Pos(), "a closure that suspends must be called where it is defined (at once, or through a local variable that is only called): this one %s", why)
		return nil
	}
	var holder types.Object
	var def ast.Node
	switch p := parent.(type) {
	case *ast.CallExpr:
		if p.Fun != n {
			return escapes("is passed to a function")
		}
	case *ast.AssignStmt:
		if p.Tok != token.DEFINE || len(p.Lhs) != 1 || len(p.Rhs) != 1 {
			return escapes("is assigned to a variable that is not a new local")
		}
		holder, def = s.info.Defs[p.Lhs[0].(*ast.Ident)], p
	case *ast.ValueSpec:
		if len(p.Names) != 1 || len(p.Values) != 1 {
			return escapes("is declared with other variables")
		}
		holder, def = s.info.Defs[p.Names[0]], p
	case *ast.ReturnStmt:
		return escapes("is returned")
	default:
		return escapes("is stored or used as a value")
	}
	if def != nil {
		if holder == nil {
			return escapes("is assigned to the blank identifier")
		}
		if why := s.onlyCalled(holder); why != "" {
			return escapes(fmt.Sprintf("is held in %s, which %s", holder.Name(), why))
		}
	}
	sig := s.info.TypeOf(n).(*types.Signature)
	ownCo := sig.Params().Len() > 0 && isCoType(sig.Params().At(0).Type())
	co := s.fn.Co
	if ownCo {
		co = sig.Params().At(0)
	}
	name, frame, ctor := set.pkg.lit(root.FrameName, len(set.list)+1, set.imported)
	f := &Func{
		Decl:      &ast.FuncDecl{Name: &ast.Ident{Name: name, NamePos: n.Pos()}, Type: n.Type, Body: n.Body},
		Obj:       types.NewFunc(n.Pos(), s.pass.Pkg, name, sig),
		File:      s.fn.File,
		Co:        co,
		FrameName: frame,
		CtorName:  ctor,
		OK:        true,
		lits:      set,
	}
	f.lit = &litInfo{node: n, root: root, ownCo: ownCo, captures: s.litCaptures(n, root)}
	set.list = append(set.list, f)
	set.byNode[n] = f
	if holder != nil {
		set.byObj[holder] = f
		set.defs[def] = true
	}
	return f
}

// onlyCalled says how a local variable holding a literal is used other than
// by calling it in the function itself ("" if it is not).
func (s *scan) onlyCalled(obj types.Object) string {
	why := ""
	var stack []ast.Node
	ast.Inspect(s.fn.Decl.Body, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if id, ok := n.(*ast.Ident); ok && s.info.Uses[id] == obj {
			parent := stack[len(stack)-1]
			// A call of it in a function literal makes that literal
			// suspend (suspendingLit): it is checked as a literal
			// that suspends in its turn.
			if call, ok := parent.(*ast.CallExpr); !ok || call.Fun != id {
				why = "is used other than by calling it"
			}
		}
		stack = append(stack, n)
		return true
	})
	return why
}

// litCaptures lists the variables of the enclosing functions that a
// literal refers to, in order of first mention: not the handle, not the
// variables holding literals that suspend (their calls are rewritten), but
// what those capture from outside the literal.
func (s *scan) litCaptures(n *ast.FuncLit, root *Func) []*types.Var {
	var out []*types.Var
	seen := map[*types.Var]bool{}
	ast.Inspect(n.Body, func(c ast.Node) bool {
		id, ok := c.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := s.info.Uses[id].(*types.Var)
		if !ok || v.IsField() || seen[v] || isCoType(v.Type()) {
			return true
		}
		if v.Pos() < root.Decl.Pos() || v.Pos() >= root.Decl.End() || (v.Pos() >= n.Pos() && v.Pos() < n.End()) {
			return true
		}
		if lf := root.lits.byObj[v]; lf != nil {
			// Its calls are rewritten: they pass it what it
			// captures, which n then captures too if it is
			// declared outside n.
			for _, c := range lf.lit.captures {
				if !seen[c] && (c.Pos() < n.Pos() || c.Pos() >= n.End()) {
					seen[c] = true
					out = append(out, c)
				}
			}
			return true
		}
		seen[v] = true
		out = append(out, v)
		return true
	})
	return out
}

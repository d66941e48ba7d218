package gen

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// lowerer turns the body of a marked function into blocks. Statements
// without a suspension point are kept whole (with their nested structure);
// statements with one are split into blocks, and every suspending call is
// hoisted out of its expression in Go's evaluation order.
type lowerer struct {
	*scan
	p      *plan
	names  *namer
	cur    *block
	vars   map[types.Object]*variable
	synth  map[*ast.Ident]*variable // identifiers of temps
	stypes map[ast.Expr]types.Type  // types of expressions the lowering built
	ctx    *jctx
	labels map[string]*block
	loops  int // depth of lowered loops around the current statement
	kids   map[string]*variable
	// origin is the source expression whose value the temporaries
	// created now hold.
	origin ast.Expr
	// captured are the variables that literals called here capture.
	captured map[*variable]bool
	// rangeOrigin is cogenrt.Range, the generic type of range-over-func
	// loops (see rangeType).
	rangeOrigin *types.Named
}

// jctx is an enclosing lowered statement that break, continue or a label
// can name.
type jctx struct {
	parent *jctx
	label  string
	brk    *block
	cont   *block // nil for a switch
	stop   *variable
	body   ast.Node // the body of a range-over-func loop
}

// lowerFunc checks and lowers one marked function.
func lowerFunc(pass *analysis.Pass, fn *Func, marked map[*types.Func]*Func, src srcMarks) (p *plan, ok bool) {
	s := check(pass, fn, marked, src)
	if !s.ok {
		return nil, false
	}
	l := &lowerer{
		scan:   s,
		p:      &plan{fn: fn, litTypes: map[*ast.CompositeLit]types.Type{}},
		names:  newNamer(fn.root().lits.pkg, s.names),
		vars:   map[types.Object]*variable{},
		synth:  map[*ast.Ident]*variable{},
		stypes: map[ast.Expr]types.Type{},
		labels: map[string]*block{},
		kids:   map[string]*variable{},

		captured: map[*variable]bool{},
	}
	l.p.info, l.p.objVars, l.p.synth, l.p.stypes = l.info, l.vars, l.synth, l.stypes
	// Variables leave the names of the function's types to them.
	l.names.types = map[string]bool{}
	ast.Inspect(fn.Decl.Body, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			l.names.types[ts.Name.Name] = true
		}
		return true
	})
	defer func() {
		if r := recover(); r != nil {
			pass.Reportf(fn.Decl.Name.Pos(), "internal error: cogen cannot rewrite %s: %v", fn.Decl.Name.Name, r)
			p, ok = nil, false
		}
	}()
	l.lower()
	if !l.ok {
		return nil, false
	}
	liveness(l.p)
	// A literal's frame points to the variables it captures: they stay in
	// the frame (boxed ones are pointers already).
	for v := range l.captured {
		if !v.boxed {
			v.field = true
		}
	}
	for _, v := range l.p.stops {
		v.field, v.pinned = true, true
	}
	if len(l.p.stops) > 0 {
		l.p.unwindParam = l.names.fresh("p")
	}
	shareFields(l.p)
	if !l.checkTypes() {
		return nil, false
	}
	return l.p, true
}

func (l *lowerer) lower() {
	fd := l.fn.Decl
	sig := l.fn.Obj.Type().(*types.Signature)
	p := l.p
	// The handle keeps its source name: calls on it read the same in Step.
	if co := l.fn.Co; co.Name() != "" && co.Name() != "_" {
		p.task = co.Name()
		l.names.taken[p.task] = true
	} else {
		p.task = l.names.fresh("t")
	}
	p.recv = l.names.fresh("f")
	p.hasDefer = l.hasDefer
	p.names = l.names
	p.label = l.names.fresh("dispatch")
	if r := sig.Recv(); r != nil {
		v := l.declareObj(r, kParam, r.Pos())
		if r.Name() == "" || r.Name() == "_" {
			v.obj = nil
		}
		p.recvVar = v
	}
	first := 1
	if li := l.fn.lit; li != nil {
		// A literal's frame points to the variables it captures.
		for _, obj := range li.captures {
			v := l.declareObj(obj, kParam, obj.Pos())
			v.boxed = true
			p.params = append(p.params, v)
		}
		if !li.ownCo {
			first = 0
		}
	}
	for i := first; i < sig.Params().Len(); i++ {
		pv := sig.Params().At(i)
		v := l.declareObj(pv, kParam, pv.Pos())
		if pv.Name() == "" || pv.Name() == "_" {
			v.obj = nil
		}
		p.params = append(p.params, v)
	}
	for i := 0; i < sig.Results().Len(); i++ {
		rv := sig.Results().At(i)
		var v *variable
		if rv.Name() == "" || rv.Name() == "_" {
			v = l.newVar(l.names.fresh("r"), rv.Type(), nil, kResult, rv.Pos())
		} else {
			v = l.declareObj(rv, kResult, rv.Pos())
		}
		p.results = append(p.results, v)
	}
	l.cur = l.newBlock()
	l.stmtList(fd.Body.List)
	if l.cur.term == nil {
		if sig.Results().Len() == 0 {
			l.cur.term = &returnTerm{}
		} else {
			l.cur.term = &unreachableTerm{}
		}
	}
	for _, b := range p.blocks {
		if b.term == nil {
			b.term = &unreachableTerm{}
		}
	}
	thread(p)
}

func (l *lowerer) newVar(name string, t types.Type, obj types.Object, kind varKind, pos token.Pos) *variable {
	v := &variable{id: len(l.p.vars), name: name, typ: t, obj: obj, kind: kind, pos: pos}
	if obj != nil {
		v.addrTaken = l.addrTaken[obj]
		l.vars[obj] = v
	}
	l.p.vars = append(l.p.vars, v)
	return v
}

func (l *lowerer) declareObj(obj types.Object, kind varKind, pos token.Pos) *variable {
	return l.newVar(l.names.variable(obj.Name()), obj.Type(), obj, kind, pos)
}

// declare registers a variable declared at the lowered level. Its
// declaration may run more than once per call inside a lowered loop or
// with goto: if it is address-taken it is then boxed.
func (l *lowerer) declare(obj types.Object) *variable {
	if obj.Name() == "_" {
		return nil
	}
	if v := l.vars[obj]; v != nil {
		return v
	}
	v := l.declareObj(obj, kLocal, obj.Pos())
	v.boxed = v.addrTaken && (l.loops > 0 || l.hasGoto)
	return v
}

// temp creates a temporary of type t and returns an identifier naming it.
func (l *lowerer) temp(t types.Type) *ast.Ident { return l.tempNamed(t, "tmp") }

// tempNamed is temp with a name saying what the temporary holds.
func (l *lowerer) tempNamed(t types.Type, base string) *ast.Ident {
	if t == nil {
		panic("cogen: internal error: temp of unknown type")
	}
	t = types.Default(t)
	v := l.newVar(l.names.fresh(base), t, nil, kTemp, token.NoPos)
	if o := l.origin; o != nil {
		// Diagnostics name what the user wrote, never the temporary.
		v.pos = o.Pos()
		v.desc = "the value of " + shortExpr(o)
		if base != "tmp" {
			v.desc = "the " + base + " of " + shortExpr(o)
		}
	}
	id := ast.NewIdent(v.name)
	l.synth[id] = v
	l.stypes[id] = t
	return id
}

// shortExpr is e as the user wrote it, shortened for a diagnostic.
func shortExpr(e ast.Expr) string {
	s := types.ExprString(e)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// at makes e the source expression the temporaries created until the
// returned function is called hold (for their diagnostics).
func (l *lowerer) at(e ast.Expr) func() {
	prev := l.origin
	if e != nil && e.Pos().IsValid() {
		l.origin = e
	}
	return func() { l.origin = prev }
}

// tempRef returns a new identifier for an existing temp.
func (l *lowerer) tempRef(v *variable) *ast.Ident {
	id := ast.NewIdent(v.name)
	l.synth[id] = v
	l.stypes[id] = v.typ
	return id
}

func (l *lowerer) newBlock() *block {
	b := &block{index: len(l.p.blocks)}
	l.p.blocks = append(l.p.blocks, b)
	return b
}

func (l *lowerer) emit(n node) {
	l.cur.nodes = append(l.cur.nodes, n)
}

// setTerm ends the current block; later statements are unreachable until a
// new block starts.
func (l *lowerer) setTerm(t term) {
	if l.cur.term == nil {
		l.cur.term = t
	}
	l.cur = l.newBlock()
}

func (l *lowerer) jumpTo(b *block) { l.setTerm(&jumpTerm{jump{to: b}}) }

// startBlock continues in b, falling into it from the current block.
func (l *lowerer) startBlock(b *block) {
	if l.cur.term == nil {
		l.cur.term = &jumpTerm{jump{to: b}}
	}
	l.cur = b
}

func (l *lowerer) stmtList(list []ast.Stmt) {
	for _, s := range list {
		l.stmt(s, "")
	}
}

// stmt lowers one statement; label is the label naming it, if any.
func (l *lowerer) stmt(s ast.Stmt, label string) {
	switch s := s.(type) {
	case *ast.LabeledStmt:
		b := l.labelBlock(s.Label.Name)
		l.startBlock(b)
		l.stmt(s.Stmt, s.Label.Name)
		return
	case *ast.DeclStmt:
		l.declStmt(s)
		return
	case *ast.AssignStmt:
		if l.fn.root().lits.defs[s] {
			return // a literal that suspends: its calls are rewritten
		}
		if s.Tok == token.DEFINE || l.hasSusp(s) {
			l.assign(s)
		} else {
			l.emit(&stmtNode{stmt: s, pos: s.Pos()})
		}
		return
	case *ast.ExprStmt, *ast.IncDecStmt, *ast.SendStmt:
		if !l.hasSusp(s) {
			l.emit(&stmtNode{stmt: s, pos: s.Pos()})
			if l.endsFlow(s, nil) {
				// Nothing after it runs: no return (vet calls it dead).
				l.setTerm(&unreachableTerm{})
			}
			return
		}
	case *ast.EmptyStmt:
		return
	case *ast.ReturnStmt:
		l.returnStmt(s)
		return
	}
	if !l.hasSusp(s) {
		if bs, ok := s.(*ast.BranchStmt); ok {
			l.branch(bs)
			return
		}
		l.nested(s, label)
		return
	}
	switch s := s.(type) {
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok && l.isSusp(call) != notSusp {
			l.suspendTo(call, nil, nil, s.Pos())
			return
		}
		lowered := &ast.ExprStmt{X: l.expr(s.X)}
		l.emit(&stmtNode{stmt: lowered, pos: s.Pos()})
		if l.endsFlow(lowered, nil) {
			l.setTerm(&unreachableTerm{})
		}
	case *ast.IncDecStmt:
		l.emit(&stmtNode{stmt: &ast.IncDecStmt{X: l.lvalue(s.X, true), Tok: s.Tok}, pos: s.Pos()})
	case *ast.SendStmt:
		var elem types.Type
		if ch, ok := coreType(l.typeOf(s.Chan)).(*types.Chan); ok {
			elem = ch.Elem()
		}
		ops := l.operandsTo([]ast.Expr{s.Chan, s.Value}, []types.Type{nil, elem})
		l.emit(&stmtNode{stmt: &ast.SendStmt{Chan: ops[0], Value: ops[1]}, pos: s.Pos()})
	case *ast.ReturnStmt:
		l.returnStmt(s)
	case *ast.BlockStmt:
		l.stmtList(s.List)
	case *ast.IfStmt:
		l.ifStmt(s)
	case *ast.ForStmt:
		l.forStmt(s, label)
	case *ast.RangeStmt:
		l.rangeStmt(s, label)
	case *ast.SwitchStmt:
		l.switchStmt(s, label)
	case *ast.TypeSwitchStmt:
		l.typeSwitchStmt(s, label)
	case *ast.GoStmt:
		// The call is not a suspension point (checked); its function value
		// and arguments may contain some.
		call := l.expr(s.Call).(*ast.CallExpr)
		l.emit(&stmtNode{stmt: &ast.GoStmt{Call: call}, pos: s.Pos()})
	case *ast.DeferStmt:
		// Likewise: the operands are evaluated at the defer statement.
		call := l.expr(s.Call).(*ast.CallExpr)
		l.emit(&stmtNode{stmt: &ast.DeferStmt{Defer: s.Defer, Call: call}, pos: s.Pos()})
	default:
		l.errorf(s.Pos(), "unsupported statement %T with a suspension point", s)
	}
}

func (l *lowerer) labelBlock(name string) *block {
	b := l.labels[name]
	if b == nil {
		b = l.newBlock()
		l.labels[name] = b
	}
	return b
}

// declStmt lowers a declaration at the lowered level: variables become
// assignments to hoisted variables, constants move to the top of Step.
func (l *lowerer) declStmt(s *ast.DeclStmt) {
	gd := s.Decl.(*ast.GenDecl)
	switch gd.Tok {
	case token.CONST:
		for _, spec := range gd.Specs {
			for _, id := range spec.(*ast.ValueSpec).Names {
				if obj := l.info.Defs[id]; obj != nil {
					v := l.declareObj(obj, kConst, id.Pos())
					v.field = false
				}
			}
		}
		l.p.hoisted = append(l.p.hoisted, gd)
	case token.TYPE:
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if obj := l.info.Defs[ts.Name]; obj != nil {
				l.localType(ts, obj)
			}
		}
		l.p.hoisted = append(l.p.hoisted, gd)
	case token.VAR:
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if l.fn.root().lits.defs[vs] {
				continue
			}
			if len(vs.Values) == 0 {
				for _, id := range vs.Names {
					if obj := l.info.Defs[id]; obj != nil && obj.Name() != "_" {
						v := l.declare(obj)
						if v.boxed {
							l.emit(&boxNode{v})
						} else {
							l.emit(&zeroNode{v: v, implicit: l.loops == 0 && !l.hasGoto})
						}
					}
				}
				continue
			}
			lhs := make([]ast.Expr, len(vs.Names))
			for i, id := range vs.Names {
				lhs[i] = id
			}
			l.assign(&ast.AssignStmt{Lhs: lhs, TokPos: vs.Pos(), Tok: token.DEFINE, Rhs: vs.Values})
		}
	}
}

// localType declares a type of the function that moves to the top of Step.
// It keeps its name, so that %T, reflection and error texts read the same
// in both models (a local type's name is the one it is declared with). A
// package-level type it shadows is named in Step by an alias declared
// first; what cannot keep the name is a diagnostic.
func (l *lowerer) localType(ts *ast.TypeSpec, obj types.Object) {
	name := obj.Name()
	if name == "_" {
		l.declareObj(obj, kConst, ts.Pos())
		return
	}
	refuse := func(why string) {
		l.errorf(ts.Name.Pos(), "cannot keep the name of local type %s: %s (generated code declares the types of the function's body in one scope at the top of Step; rename it or declare it inside a statement without a suspension point)", name, why)
	}
	switch {
	case l.names.taken[name]:
		refuse("another type or constant of the function has that name")
	case types.Universe.Lookup(name) != nil:
		refuse("it shadows the predeclared " + name + ", which generated code may use")
	case l.names.pkg[name]:
		outer := l.pass.Pkg.Scope().Lookup(name)
		if outer == nil || inGeneratedFile(l.pass, outer.Pos()) {
			refuse("generated code names the package-level " + name)
			break
		}
		if tn, ok := outer.(*types.TypeName); ok {
			if n, ok := types.Unalias(tn.Type()).(*types.Named); ok && n.TypeParams().Len() > 0 || tn.IsAlias() && tn.Type().(*types.Alias).TypeParams().Len() > 0 {
				refuse("it shadows the generic package-level type " + name)
				break
			}
			if l.p.pkgAliases == nil {
				l.p.pkgAliases = map[types.Object]string{}
			}
			if _, ok := l.p.pkgAliases[outer]; !ok {
				l.p.pkgAliases[outer] = l.names.fresh(name)
			}
			break
		}
		for id, used := range l.info.Uses {
			if used == outer && id.Pos() >= l.fn.Decl.Pos() && id.End() <= l.fn.Decl.End() {
				refuse("it shadows the package-level " + name + ", which the function also uses")
				break
			}
		}
	}
	l.names.taken[name] = true
	l.newVar(name, obj.Type(), obj, kConst, ts.Pos())
}

// newVars declares the variables an assignment defines and returns those
// that need a new box.
func (l *lowerer) newVars(lhs []ast.Expr, define bool) (box []*variable) {
	if !define {
		return nil
	}
	for _, e := range lhs {
		id, ok := e.(*ast.Ident)
		if !ok {
			continue
		}
		if obj := l.info.Defs[id]; obj != nil {
			if v := l.declare(obj); v != nil && v.boxed {
				box = append(box, v)
			}
		}
	}
	return box
}

func (l *lowerer) assign(s *ast.AssignStmt) {
	define := s.Tok == token.DEFINE
	tok := s.Tok
	if define {
		tok = token.ASSIGN
	}
	// One call producing every value on the right: the targets receive the
	// results directly.
	if len(s.Rhs) == 1 && tok == token.ASSIGN {
		if call, ok := ast.Unparen(s.Rhs[0]).(*ast.CallExpr); ok && l.isSusp(call) != notSusp {
			lhs := l.lvalues(s.Lhs, true)
			box := l.newVars(s.Lhs, define)
			l.suspendTo(call, lhs, box, s.Pos())
			return
		}
	}
	var lhs, rhs []ast.Expr
	if l.hasSusp(s) {
		// Index operands and pointer indirections on the left come first in
		// evaluation order.
		rhsSusp := false
		for _, e := range s.Rhs {
			rhsSusp = rhsSusp || l.hasSusp(e)
		}
		lhs = l.lvalues(s.Lhs, rhsSusp)
		var targets []types.Type
		if len(s.Lhs) == len(s.Rhs) {
			for _, e := range s.Lhs {
				targets = append(targets, l.lhsType(e))
			}
		}
		rhs = l.operandsTo(s.Rhs, targets)
	} else {
		lhs, rhs = s.Lhs, s.Rhs
	}
	box := l.newVars(s.Lhs, define)
	for _, v := range box {
		l.emit(&boxNode{v})
	}
	l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: lhs, TokPos: s.TokPos, Tok: tok, Rhs: rhs}, pos: s.Pos()})
}

// lvalues lowers the left side of an assignment. If later operands suspend,
// calls inside the left side are evaluated first.
func (l *lowerer) lvalues(lhs []ast.Expr, later bool) []ast.Expr {
	out := make([]ast.Expr, len(lhs))
	for i, e := range lhs {
		out[i] = l.lvalue(e, later)
	}
	return out
}

// lvalue lowers an assignable expression: the parts of its operands that
// gc evaluates in place are evaluated now if a later operand suspends (or
// contain a suspension), and the location itself stays an expression, its
// other operands evaluated when the assignment happens, as in gc.
func (l *lowerer) lvalue(e ast.Expr, later bool) ast.Expr {
	if !l.hasSusp(e) && !later {
		return e
	}
	order := func(x ast.Expr) ast.Expr {
		y := l.expr(x)
		if later {
			y = l.early(y)
		}
		return y
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return &ast.ParenExpr{X: l.lvalue(x.X, later)}
	case *ast.IndexExpr:
		switch t := coreType(l.typeOf(x.X)).(type) {
		case *types.Array:
			base := l.lvalue(x.X, later || l.hasSusp(x.Index))
			return l.keepType(&ast.IndexExpr{X: base, Index: order(x.Index)}, e)
		case *types.Map:
			ops := l.operands([]ast.Expr{x.X, x.Index})
			if later {
				ops[0] = l.early(ops[0])
				ops[1] = l.mapKey(t, l.early(ops[1]))
			}
			return l.keepType(&ast.IndexExpr{X: ops[0], Index: ops[1]}, e)
		}
		ops := l.operands([]ast.Expr{x.X, x.Index})
		if later {
			ops[0], ops[1] = l.early(ops[0]), l.early(ops[1])
		}
		return l.keepType(&ast.IndexExpr{X: ops[0], Index: ops[1]}, e)
	case *ast.SelectorExpr:
		if sel := l.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
			if _, ptr := coreType(l.typeOf(x.X)).(*types.Pointer); ptr || sel.Indirect() {
				return l.selector(order(x.X), x)
			}
			return l.selector(l.lvalue(x.X, later), x)
		}
	case *ast.StarExpr:
		return l.keepType(&ast.StarExpr{X: order(x.X)}, e)
	case *ast.Ident:
		return e
	}
	l.errorf(e.Pos(), "unsupported assignment target with a suspension point")
	return e
}

func (l *lowerer) returnStmt(s *ast.ReturnStmt) {
	res := l.p.results
	if len(s.Results) > 0 {
		lhs := make([]ast.Expr, len(res))
		for i, v := range res {
			lhs[i] = l.varRef(v)
		}
		if len(s.Results) == 1 && len(res) > 1 {
			call := ast.Unparen(s.Results[0]).(*ast.CallExpr)
			if l.isSusp(call) != notSusp {
				l.suspendTo(call, lhs, nil, s.Pos())
			} else {
				l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, Rhs: []ast.Expr{l.expr(call)}}, pos: s.Pos()})
			}
		} else if len(s.Results) == 1 {
			if call, ok := ast.Unparen(s.Results[0]).(*ast.CallExpr); ok && l.isSusp(call) != notSusp {
				l.suspendTo(call, lhs, nil, s.Pos())
			} else {
				l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, Rhs: []ast.Expr{l.expr(s.Results[0])}}, pos: s.Pos()})
			}
		} else {
			var targets []types.Type
			for _, v := range res {
				targets = append(targets, v.typ)
			}
			l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, Rhs: l.operandsTo(s.Results, targets)}, pos: s.Pos()})
		}
	}
	l.setTerm(&returnTerm{stops: l.stopsAll()})
}

// lhsType is the type of an assignment's target (nil for the blank
// identifier).
func (l *lowerer) lhsType(e ast.Expr) types.Type {
	if id, ok := e.(*ast.Ident); ok {
		if isBlank(id) {
			return nil
		}
		if obj := l.info.Defs[id]; obj != nil {
			return obj.Type()
		}
	}
	return l.typeOf(e)
}

// varRef is an identifier naming a hoisted variable.
func (l *lowerer) varRef(v *variable) *ast.Ident {
	return l.tempRef(v)
}

func (l *lowerer) ifStmt(s *ast.IfStmt) {
	if s.Init != nil {
		l.stmt(s.Init, "")
	}
	cond := l.expr(s.Cond)
	then, done := l.newBlock(), l.newBlock()
	els := done
	if s.Else != nil {
		els = l.newBlock()
	}
	l.setTerm(&branchTerm{cond: cond, then: then, els: els})
	l.cur = then
	l.stmtList(s.Body.List)
	l.jumpTo(done)
	if s.Else != nil {
		l.cur = els
		l.stmt(s.Else, "")
		l.jumpTo(done)
	}
	l.cur = done
}

// loopVars returns the variables a for statement's init declares.
func (l *lowerer) loopVars(init ast.Stmt) []*variable {
	as, ok := init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return nil
	}
	var vs []*variable
	for _, e := range as.Lhs {
		if obj := l.info.Defs[e.(*ast.Ident)]; obj != nil {
			vs = append(vs, l.vars[obj])
		}
	}
	return vs
}

func (l *lowerer) forStmt(s *ast.ForStmt, label string) {
	l.loops++
	defer func() { l.loops-- }()
	if s.Init != nil {
		l.stmt(s.Init, "")
	}
	cond, body, post, done := l.newBlock(), l.newBlock(), l.newBlock(), l.newBlock()
	l.startBlock(cond)
	if s.Cond != nil {
		c := l.expr(s.Cond)
		l.setTerm(&branchTerm{cond: c, then: body, els: done})
	} else {
		l.jumpTo(body)
	}
	l.cur = body
	l.ctx = &jctx{parent: l.ctx, label: label, brk: done, cont: post}
	l.stmtList(s.Body.List)
	l.ctx = l.ctx.parent
	l.startBlock(post)
	// Go 1.22: each iteration has its own loop variables; the next one is a
	// copy made before the post statement.
	for _, v := range l.loopVars(s.Init) {
		if v != nil && v.boxed {
			l.emit(&reboxNode{v})
		}
	}
	if s.Post != nil {
		l.stmt(s.Post, "")
	}
	l.jumpTo(cond)
	l.cur = done
}

// keepType records that an expression the lowering built has the type of
// the one it replaces.
func (l *lowerer) keepType(n ast.Expr, orig ast.Expr) ast.Expr {
	l.stypes[n] = l.typeOf(orig)
	return n
}

func (l *lowerer) typeOf(e ast.Expr) types.Type {
	if t, ok := l.stypes[e]; ok {
		return t
	}
	if tv, ok := l.info.Types[e]; ok {
		return tv.Type
	}
	return l.info.TypeOf(e)
}

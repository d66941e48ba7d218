package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/dave/jennifer/jen"
)

// rctx renders source syntax for one function: identifiers of hoisted
// variables become frame fields or Step locals, and inside a statement
// copied whole, branches and returns that leave it become state changes.
type rctx struct {
	e      *emitter
	p      *plan
	nested *nestedInfo
	lit    int                  // depth of function literals
	rebind map[*variable]string // boxed variables bound by a closure wrapper
}

// varExpr names a variable: f.x for a field, x for a local, (*...) if boxed.
func (r *rctx) varExpr(v *variable) *jen.Statement {
	return r.deref(v, r.varPtr(v))
}

// varPtr names the storage of a variable (the box pointer if boxed).
func (r *rctx) varPtr(v *variable) *jen.Statement {
	if name, ok := r.rebind[v]; ok {
		return jen.Id(name)
	}
	if v.field {
		return jen.Id(r.p.recv).Dot(v.name)
	}
	return jen.Id(v.name)
}

func (r *rctx) deref(v *variable, s *jen.Statement) *jen.Statement {
	if v.boxed {
		return jen.Parens(jen.Op("*").Add(s))
	}
	return s
}

func (r *rctx) exprs(list []ast.Expr) []jen.Code {
	out := make([]jen.Code, len(list))
	for i, e := range list {
		out[i] = r.expr(e)
	}
	return out
}

func (r *rctx) expr(x ast.Expr) *jen.Statement {
	if !r.operation(x) {
		return r.expr1(x, false)
	}
	// The line of the whole expression first, then of each token that
	// gives a part its position (see emitter.at).
	if mark := r.e.at(x.Pos()); mark != nil {
		return jen.Add(mark).Add(r.expr1(x, true))
	}
	return r.expr1(x, true)
}

// operation reports whether x is an expression that can call or panic at
// its own position (a call, an index, a dereference, an operator...),
// rather than a name, a literal, a constant or a type.
func (r *rctx) operation(x ast.Expr) bool {
	if x == nil || !x.Pos().IsValid() {
		return false
	}
	switch x := x.(type) {
	case *ast.CallExpr, *ast.IndexExpr, *ast.SliceExpr, *ast.TypeAssertExpr, *ast.StarExpr, *ast.UnaryExpr, *ast.BinaryExpr:
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if _, ok := r.p.info.Uses[id].(*types.PkgName); ok {
				return false // a qualified identifier
			}
		}
	default:
		return false
	}
	if tv, ok := r.p.info.Types[x]; ok && (tv.IsType() || tv.Value != nil) {
		return false
	}
	return true
}

// expr1 renders x; if op, with the lines of the tokens that give its
// operation a position (x is a source expression that calls or panics).
func (r *rctx) expr1(x ast.Expr, op bool) *jen.Statement {
	at := func(pos token.Pos) jen.Code {
		if !op {
			return nil
		}
		return r.e.at(pos)
	}
	switch x := x.(type) {
	case nil:
		return jen.Empty()
	case *ast.Ident:
		if v := r.p.resolve(x); v != nil {
			return r.varExpr(v)
		}
		obj := r.p.info.Uses[x]
		if obj == nil {
			obj = r.p.info.Defs[x]
		}
		if name, ok := r.e.stepAliases[obj]; ok && obj != nil {
			r.e.aliasUsed[obj] = true
			return jen.Id(name)
		}
		if obj != nil && obj.Pkg() != nil && obj.Pkg() != r.e.pkg && obj.Parent() == obj.Pkg().Scope() {
			return r.e.qualPath(obj.Pkg().Path(), obj.Pkg().Name(), x.Name) // dot import
		}
		return jen.Id(x.Name)
	case *ast.BasicLit:
		return jen.Id(x.Value)
	case *ast.CompositeLit:
		if x.Type == nil {
			if t, ok := r.p.litTypes[x]; ok {
				if p, ok := types.Unalias(t).(*types.Pointer); ok {
					return jen.Op("&").Add(r.e.typ(p.Elem())).Values(r.exprs(x.Elts)...)
				}
				return r.e.typ(t).Values(r.exprs(x.Elts)...)
			}
			return jen.Values(r.exprs(x.Elts)...)
		}
		return r.expr(x.Type).Values(r.exprs(x.Elts)...)
	case *ast.FuncLit:
		return r.funcLit(x)
	case *ast.ParenExpr:
		return jen.Parens(r.expr(x.X))
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if pn, ok := r.p.info.Uses[id].(*types.PkgName); ok {
				return r.e.qualPath(pn.Imported().Path(), pn.Imported().Name(), x.Sel.Name)
			}
		}
		return r.primary(x.X).Add(at(x.Sel.Pos())).Dot(x.Sel.Name)
	case *ast.IndexExpr:
		base := r.primary(x.X).Add(at(x.Lbrack))
		return base.Index(r.expr(x.Index))
	case *ast.IndexListExpr:
		return r.primary(x.X).Types(r.exprs(x.Indices)...)
	case *ast.SliceExpr:
		base := r.primary(x.X).Add(at(x.Lbrack))
		items := []jen.Code{r.expr(x.Low), r.expr(x.High)}
		if x.Slice3 {
			items = append(items, r.expr(x.Max))
		}
		return base.Index(items...)
	case *ast.TypeAssertExpr:
		base := r.primary(x.X).Add(at(x.Lparen))
		if x.Type == nil {
			return base.Assert(jen.Type())
		}
		return base.Assert(r.expr(x.Type))
	case *ast.CallExpr:
		fun := r.primary(x.Fun).Add(at(x.Lparen))
		args := r.exprs(x.Args)
		if x.Ellipsis.IsValid() && len(args) > 0 {
			args[len(args)-1] = jen.Add(args[len(args)-1]).Op("...")
		}
		return fun.Call(args...)
	case *ast.StarExpr:
		return jen.Op("*").Add(r.operand(x.X))
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				if v := r.p.resolve(id); v != nil && v.boxed {
					return r.varPtr(v)
				}
			}
		}
		return jen.Op(x.Op.String()).Add(r.operand(x.X))
	case *ast.BinaryExpr:
		var opPos token.Pos
		if op {
			opPos = x.OpPos
		}
		return r.binary(x.X, x.Op.String(), opPos, x.Op.Precedence(), x.Y)
	case *ast.KeyValueExpr:
		return r.expr(x.Key).Op(":").Add(r.expr(x.Value))
	case *ast.ArrayType:
		if x.Len == nil {
			return jen.Index().Add(r.expr(x.Elt))
		}
		return jen.Index(r.expr(x.Len)).Add(r.expr(x.Elt))
	case *ast.Ellipsis:
		if x.Elt == nil {
			return jen.Op("...")
		}
		return jen.Op("...").Add(r.expr(x.Elt))
	case *ast.MapType:
		return jen.Map(r.expr(x.Key)).Add(r.expr(x.Value))
	case *ast.ChanType:
		switch x.Dir {
		case ast.SEND:
			return jen.Chan().Op("<-").Add(r.expr(x.Value))
		case ast.RECV:
			return jen.Op("<-").Chan().Add(r.expr(x.Value))
		}
		return jen.Chan().Add(r.expr(x.Value))
	case *ast.FuncType:
		return jen.Func().Add(r.funcType(x))
	case *ast.StructType:
		return jen.Struct(r.fields(x.Fields, true)...)
	case *ast.InterfaceType:
		var items []jen.Code
		for _, f := range x.Methods.List {
			if len(f.Names) == 0 {
				items = append(items, r.expr(f.Type))
				continue
			}
			items = append(items, jen.Id(f.Names[0].Name).Add(r.funcType(f.Type.(*ast.FuncType))))
		}
		return jen.Interface(items...)
	}
	panic(fmt.Sprintf("cogen: internal error: cannot render %T", x))
}

// Precedence. The lowering builds new expressions around the user's
// sub-expressions (a switch tag compared with a case, an operand whose
// neighbour became a temporary, a condition negated) without ParenExpr
// nodes: the renderer parenthesizes every operand that binds less tightly
// than its position requires, so that a moved expression keeps its meaning
// wherever it lands. Parentheses of the source are ParenExpr nodes and are
// kept as they are.

// precedence is how tightly e binds as an operand: a binary operator's
// precedence, token.UnaryPrec for unary expressions, and
// token.HighestPrec for primary expressions.
func precedence(e ast.Expr) int {
	switch x := e.(type) {
	case *ast.BinaryExpr:
		return x.Op.Precedence()
	case *ast.UnaryExpr, *ast.StarExpr:
		return token.UnaryPrec
	}
	return token.HighestPrec
}

// binary renders x op y for an operator of precedence prec. Binary
// operators associate to the left, so a right operand of the same
// precedence needs parentheses too.
func (r *rctx) binary(x ast.Expr, op string, opPos token.Pos, prec int, y ast.Expr) *jen.Statement {
	left := r.expr(x)
	if precedence(x) < prec {
		left = jen.Parens(left)
	}
	left.Add(r.e.at(opPos))
	right := r.expr(y)
	if precedence(y) <= prec {
		right = jen.Parens(right)
	}
	return left.Op(op).Add(right)
}

// operand renders the operand of a unary operator, parenthesized when it
// is a binary expression, or itself a unary expression (so that - -x does
// not become --x).
func (r *rctx) operand(x ast.Expr) *jen.Statement {
	if precedence(x) <= token.UnaryPrec {
		return jen.Parens(r.expr(x))
	}
	return r.expr(x)
}

// primary renders the operand of a selector, index, slice, type assertion
// or call: anything but a primary expression is parenthesized ((*p).x,
// not *p.x).
func (r *rctx) primary(x ast.Expr) *jen.Statement {
	if precedence(x) < token.HighestPrec {
		return jen.Parens(r.expr(x))
	}
	return r.expr(x)
}

// cond renders the condition of an if statement the lowering builds: a
// composite literal of a named type outside brackets would be read as
// the statement's block, so such a condition is parenthesized.
func (r *rctx) cond(x ast.Expr) *jen.Statement {
	if bareCompositeLit(x) {
		return jen.Parens(r.expr(x))
	}
	return r.expr(x)
}

// bareCompositeLit reports whether e has a composite literal with a type
// name outside parentheses, brackets and braces.
func bareCompositeLit(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.CompositeLit:
		switch ast.Unparen(x.Type).(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
			return true
		}
		return false
	case *ast.BinaryExpr:
		return bareCompositeLit(x.X) || bareCompositeLit(x.Y)
	case *ast.UnaryExpr:
		return bareCompositeLit(x.X)
	case *ast.StarExpr:
		return bareCompositeLit(x.X)
	case *ast.SelectorExpr:
		return bareCompositeLit(x.X)
	case *ast.IndexExpr:
		return bareCompositeLit(x.X)
	case *ast.SliceExpr:
		return bareCompositeLit(x.X)
	case *ast.TypeAssertExpr:
		return bareCompositeLit(x.X)
	case *ast.CallExpr:
		return bareCompositeLit(x.Fun)
	}
	return false
}

func (r *rctx) fields(fl *ast.FieldList, tags bool) []jen.Code {
	if fl == nil {
		return nil
	}
	var out []jen.Code
	for _, f := range fl.List {
		var s *jen.Statement
		if len(f.Names) == 0 {
			s = r.expr(f.Type)
		} else {
			names := make([]jen.Code, len(f.Names))
			for i, n := range f.Names {
				names[i] = jen.Id(n.Name)
			}
			s = jen.List(names...).Add(r.expr(f.Type))
		}
		if tags && f.Tag != nil {
			s = s.Add(jen.Id(f.Tag.Value))
		}
		out = append(out, s)
	}
	return out
}

func (r *rctx) funcType(ft *ast.FuncType) *jen.Statement {
	s := jen.Params(r.fields(ft.Params, false)...)
	if ft.Results != nil && len(ft.Results.List) > 0 {
		if len(ft.Results.List) == 1 && len(ft.Results.List[0].Names) == 0 {
			s = s.Add(r.expr(ft.Results.List[0].Type))
		} else {
			s = s.Params(r.fields(ft.Results, false)...)
		}
	}
	return s
}

// funcLit renders a function literal. A literal that captures boxed
// variables is wrapped in a call that binds their current boxes, because
// the box pointer of a variable is replaced when its declaration runs
// again (the next loop iteration) while the closure must keep the old one.
func (r *rctx) funcLit(x *ast.FuncLit) *jen.Statement {
	var boxed []*variable
	seen := map[*variable]bool{}
	ast.Inspect(x.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v := r.p.resolve(id); v != nil && v.boxed && !seen[v] {
				if _, bound := r.rebind[v]; !bound {
					seen[v] = true
					boxed = append(boxed, v)
				}
			}
		}
		return true
	})
	inner := *r
	inner.lit++
	defer r.e.lost()
	if len(boxed) == 0 {
		return jen.Func().Add(inner.funcType(x.Type)).Block(inner.stmts(x.Body.List)...)
	}
	inner.rebind = map[*variable]string{}
	for k, v := range r.rebind {
		inner.rebind[k] = v
	}
	var params, args []jen.Code
	for _, v := range boxed {
		inner.rebind[v] = v.name
		params = append(params, jen.Id(v.name).Op("*").Add(r.e.typ(v.typ)))
		args = append(args, r.varPtr(v))
	}
	lit := jen.Func().Add(inner.funcType(x.Type)).Block(inner.stmts(x.Body.List)...)
	return jen.Func().Params(params...).Func().Add(inner.funcType(x.Type)).Block(jen.Return(lit)).Call(args...)
}

// stmts renders a statement list with //line directives.
func (r *rctx) stmts(list []ast.Stmt) []jen.Code {
	var out []jen.Code
	for _, s := range list {
		out = append(out, r.stmt(s)...)
	}
	return out
}

// stmt renders one statement, preceded by a //line directive.
func (r *rctx) stmt(s ast.Stmt) []jen.Code {
	out := []jen.Code{}
	if l := r.e.line(s.Pos()); l != nil {
		out = append(out, l)
	}
	return append(out, r.stmtBody(s)...)
}

func (r *rctx) block(list []ast.Stmt) *jen.Statement {
	b := jen.Block(r.stmts(list)...)
	r.e.lost()
	return b
}

func (r *rctx) simple(s ast.Stmt) jen.Code {
	if s == nil {
		return jen.Empty()
	}
	body := r.stmtBody(s)
	if len(body) == 0 {
		return jen.Empty() // a self-assignment, dropped
	}
	if len(body) != 1 {
		panic("cogen: internal error: simple statement rendered as several")
	}
	return body[0]
}

func (r *rctx) stmtBody(s ast.Stmt) []jen.Code {
	switch s := s.(type) {
	case *ast.AssignStmt:
		if r.p.fn.root().lits.defs[s] {
			return nil // a literal that suspends: its calls are rewritten
		}
		lhs, rhs := s.Lhs, s.Rhs
		if s.Tok == token.ASSIGN {
			lhs, rhs = r.dropSelfAssign(lhs, rhs)
			if len(lhs) == 0 {
				return nil
			}
		}
		return []jen.Code{jen.List(r.exprs(lhs)...).Op(s.Tok.String()).List(r.exprs(rhs)...)}
	case *ast.ExprStmt:
		return []jen.Code{r.expr(s.X)}
	case *ast.IncDecStmt:
		return []jen.Code{r.expr(s.X).Op(s.Tok.String())}
	case *ast.SendStmt:
		return []jen.Code{r.expr(s.Chan).Op("<-").Add(r.expr(s.Value))}
	case *ast.DeclStmt:
		gd := s.Decl.(*ast.GenDecl)
		var specs []ast.Spec
		for _, sp := range gd.Specs {
			if !r.p.fn.root().lits.defs[sp] {
				specs = append(specs, sp)
			}
		}
		if len(specs) == 0 {
			return nil
		}
		if len(specs) < len(gd.Specs) {
			gd = &ast.GenDecl{Tok: gd.Tok, Lparen: gd.Lparen, Specs: specs}
		}
		return []jen.Code{r.genDecl(gd)}
	case *ast.BlockStmt:
		return []jen.Code{r.block(s.List)}
	case *ast.EmptyStmt:
		return nil
	case *ast.IfStmt:
		return []jen.Code{r.ifStmt(s)}
	case *ast.ForStmt:
		var cond []jen.Code
		switch {
		case s.Init == nil && s.Post == nil && s.Cond == nil:
		case s.Init == nil && s.Post == nil:
			cond = []jen.Code{r.expr(s.Cond)}
		default:
			cond = []jen.Code{r.simple(s.Init), r.expr(s.Cond), r.simple(s.Post)}
		}
		return []jen.Code{jen.For(cond...).Add(r.block(s.Body.List))}
	case *ast.RangeStmt:
		var head *jen.Statement
		if s.Key == nil {
			head = jen.Range().Add(r.expr(s.X))
		} else {
			vars := []jen.Code{r.expr(s.Key)}
			if s.Value != nil {
				vars = append(vars, r.expr(s.Value))
			}
			head = jen.List(vars...).Op(s.Tok.String()).Range().Add(r.expr(s.X))
		}
		return []jen.Code{jen.For(head).Add(r.block(s.Body.List))}
	case *ast.SwitchStmt:
		var head []jen.Code
		if s.Init != nil {
			head = append(head, r.simple(s.Init), r.expr(s.Tag))
		} else if s.Tag != nil {
			head = append(head, r.expr(s.Tag))
		}
		return []jen.Code{jen.Switch(head...).Block(r.clauses(s.Body)...)}
	case *ast.TypeSwitchStmt:
		var head []jen.Code
		if s.Init != nil {
			head = append(head, r.simple(s.Init))
		}
		head = append(head, r.simple(s.Assign))
		return []jen.Code{jen.Switch(head...).Block(r.clauses(s.Body)...)}
	case *ast.SelectStmt:
		var cases []jen.Code
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			var head *jen.Statement
			if cc.Comm == nil {
				head = jen.Default()
			} else {
				cases = append(cases, r.e.line(cc.Case))
				head = jen.Case(r.simple(cc.Comm))
			}
			cases = append(cases, head.Block(r.stmts(cc.Body)...))
			r.e.lost()
		}
		return []jen.Code{jen.Select().Block(cases...)}
	case *ast.LabeledStmt:
		return append([]jen.Code{jen.Id(s.Label.Name).Op(":")}, r.stmtBody(s.Stmt)...)
	case *ast.BranchStmt:
		return r.branch(s)
	case *ast.ReturnStmt:
		return r.returnStmt(s)
	case *ast.GoStmt:
		return []jen.Code{jen.Go().Add(r.expr(s.Call))}
	case *ast.DeferStmt:
		if r.lit == 0 {
			return []jen.Code{r.deferStmt(s)}
		}
		return []jen.Code{jen.Defer().Add(r.expr(s.Call))}
	}
	panic(fmt.Sprintf("cogen: internal error: cannot render %T", s))
}

func (r *rctx) clauses(body *ast.BlockStmt) []jen.Code {
	var out []jen.Code
	for _, c := range body.List {
		cc := c.(*ast.CaseClause)
		var head *jen.Statement
		if cc.List == nil {
			head = jen.Default()
		} else {
			out = append(out, r.e.line(cc.Case))
			head = jen.Case(r.exprs(cc.List)...)
		}
		out = append(out, head.Block(r.stmts(cc.Body)...))
		r.e.lost()
	}
	return out
}

func (r *rctx) ifStmt(s *ast.IfStmt) *jen.Statement {
	var head []jen.Code
	if s.Init != nil {
		head = append(head, r.simple(s.Init))
	}
	head = append(head, r.expr(s.Cond))
	st := jen.If(head...).Add(r.block(s.Body.List))
	switch e := s.Else.(type) {
	case *ast.IfStmt:
		st = st.Else().Add(r.ifStmt(e))
	case *ast.BlockStmt:
		st = st.Else().Add(r.block(e.List))
	}
	return st
}

func (r *rctx) genDecl(d *ast.GenDecl) *jen.Statement {
	var specs []jen.Code
	for _, spec := range d.Specs {
		switch sp := spec.(type) {
		case *ast.ValueSpec:
			names := make([]jen.Code, len(sp.Names))
			for i, n := range sp.Names {
				names[i] = r.expr(n)
			}
			s := jen.List(names...)
			if sp.Type != nil {
				s = s.Add(r.expr(sp.Type))
			}
			if len(sp.Values) > 0 {
				s = s.Op("=").List(r.exprs(sp.Values)...)
			}
			specs = append(specs, s)
		case *ast.TypeSpec:
			s := r.expr(sp.Name)
			if sp.TypeParams != nil {
				s = s.Types(r.fields(sp.TypeParams, false)...)
			}
			if sp.Assign.IsValid() {
				s = s.Op("=")
			}
			specs = append(specs, s.Add(r.expr(sp.Type)))
		}
	}
	var kw *jen.Statement
	switch d.Tok {
	case token.VAR:
		kw = jen.Var()
	case token.CONST:
		kw = jen.Const()
	case token.TYPE:
		kw = jen.Type()
	}
	if len(specs) == 1 && !d.Lparen.IsValid() {
		return kw.Add(specs[0])
	}
	return kw.Defs(specs...)
}

// dropSelfAssign removes the pairs of a parallel assignment whose two sides
// name the same storage: returning named results (return r, err), or two
// variables that share a frame field. Such a pair changes nothing (every
// right side is evaluated before any assignment), and go vet reports it.
func (r *rctx) dropSelfAssign(lhs, rhs []ast.Expr) ([]ast.Expr, []ast.Expr) {
	if len(lhs) != len(rhs) {
		return lhs, rhs
	}
	var keptL, keptR []ast.Expr
	for i := range lhs {
		if !r.sameStorage(lhs[i], rhs[i]) {
			keptL = append(keptL, lhs[i])
			keptR = append(keptR, rhs[i])
		}
	}
	return keptL, keptR
}

// sameStorage reports whether a and b are identifiers of variables that
// the generated code keeps in the same place.
func (r *rctx) sameStorage(a, b ast.Expr) bool {
	ia, ok1 := ast.Unparen(a).(*ast.Ident)
	ib, ok2 := ast.Unparen(b).(*ast.Ident)
	if !ok1 || !ok2 {
		return false
	}
	va, vb := r.p.resolve(ia), r.p.resolve(ib)
	if va == nil || vb == nil {
		return false
	}
	if _, ok := r.rebind[va]; ok {
		return va == vb
	}
	storage := func(v *variable) *variable {
		if v.shares != nil {
			return v.shares
		}
		return v
	}
	return storage(va) == storage(vb) && va.field == vb.field
}

// branch renders a branch statement: as is if its target is inside the
// statement being copied, else as a change of state.
func (r *rctx) branch(s *ast.BranchStmt) []jen.Code {
	if r.lit == 0 && r.nested != nil {
		if j, ok := r.nested.jumps[s]; ok {
			return r.e.jumpCode(r, j, true)
		}
	}
	var st *jen.Statement
	switch s.Tok {
	case token.BREAK:
		st = jen.Break()
	case token.CONTINUE:
		st = jen.Continue()
	case token.GOTO:
		st = jen.Goto()
	case token.FALLTHROUGH:
		return []jen.Code{jen.Fallthrough()}
	}
	if s.Label != nil {
		st = st.Id(s.Label.Name)
	}
	return []jen.Code{st}
}

// deferStmt renders a defer statement of the marked function: the function
// value and the arguments are evaluated now, and the frame records a call
// that defers the real one with Go's defer (see cogenrt.Defers):
//
//	{
//		fn, a0 := <fun>, <arg0>
//		f.Defer(func(next func()) { defer fn(a0); next() })
//	}
//
// Package-level functions, builtins and constant arguments are used as they
// are; everything else is evaluated into a local of the block, so the record
// sees the values of the defer statement, as Go's defer does.
func (r *rctx) deferStmt(s *ast.DeferStmt) jen.Code {
	call := s.Call
	defer r.e.lost()
	// The evaluation starts a line of the block below: it needs the
	// statement's line again.
	first := r.e.line(s.Pos())
	var lhs, rhs []jen.Code
	bind := func(base string, e ast.Expr) *jen.Statement {
		name := r.p.names.fresh(base)
		lhs = append(lhs, jen.Id(name))
		rhs = append(rhs, r.expr(e))
		return jen.Id(name)
	}
	var fun *jen.Statement
	if r.staticFunc(call.Fun) {
		fun = r.expr(call.Fun)
	} else {
		fun = bind("fn", call.Fun)
	}
	args := make([]jen.Code, len(call.Args))
	for i, a := range call.Args {
		if tv, ok := r.p.info.Types[a]; ok && (tv.Value != nil || tv.IsNil() || tv.IsType()) {
			args[i] = r.expr(a)
		} else {
			args[i] = bind("a", a)
		}
	}
	if call.Ellipsis.IsValid() && len(args) > 0 {
		args[len(args)-1] = jen.Add(args[len(args)-1]).Op("...")
	}
	next := r.p.names.fresh("next")
	record := jen.Func().Params(jen.Id(next).Func().Params()).Block(
		r.e.line(s.Pos()),
		jen.Defer().Add(fun).Call(args...),
		jen.Id(next).Call(),
	)
	push := jen.Id(r.p.recv).Dot("Defer").Call(record)
	if len(lhs) == 0 {
		return push
	}
	return jen.Block(first, jen.List(lhs...).Op(":=").List(rhs...), push)
}

// staticFunc reports whether a deferred function is a package-level
// function or a builtin: a value that needs no evaluation at the defer.
func (r *rctx) staticFunc(fun ast.Expr) bool {
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			if _, ok := r.p.info.Uses[x].(*types.PkgName); ok {
				id = f.Sel
			}
		}
	}
	if id == nil {
		return false
	}
	switch obj := r.p.info.Uses[id].(type) {
	case *types.Builtin:
		return true
	case *types.Func:
		return obj.Parent() == obj.Pkg().Scope() || obj.Pkg() != r.e.pkg
	}
	return false
}

// returnStmt renders a return: inside a copied statement it stores the
// results in the frame, stops the iterators it leaves and reports Done.
func (r *rctx) returnStmt(s *ast.ReturnStmt) []jen.Code {
	if r.lit > 0 || r.nested == nil {
		return []jen.Code{jen.Return(r.exprs(s.Results)...)}
	}
	var out []jen.Code
	if len(s.Results) > 0 {
		var lhs []ast.Expr
		for _, v := range r.p.results {
			id := ast.NewIdent(v.name)
			r.p.synth[id] = v
			lhs = append(lhs, id)
		}
		out = append(out, r.stmtBody(&ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, Rhs: s.Results})...)
	}
	if b, ok := r.nested.exits[s]; ok {
		return append(out, r.e.jumpCode(r, jump{to: b}, true)...)
	}
	for _, v := range r.nested.returns[s] {
		out = append(out, stopCall(r, v))
	}
	return append(out, r.e.done(r.p)...)
}

// negate renders the negation of a condition. Only == and != invert
// exactly (with NaN, !(a < b) is not a >= b).
func (r *rctx) negate(cond ast.Expr) *jen.Statement {
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return r.cond(c.X)
		}
	case *ast.BinaryExpr:
		inverse := map[token.Token]string{token.EQL: "!=", token.NEQ: "=="}
		if r.ordered(c.X) && r.ordered(c.Y) {
			inverse[token.LSS], inverse[token.LEQ] = ">=", ">"
			inverse[token.GTR], inverse[token.GEQ] = "<=", "<"
		}
		if op, ok := inverse[c.Op]; ok {
			inv := r.binary(c.X, op, c.OpPos, c.Op.Precedence(), c.Y)
			if bareCompositeLit(c) {
				return jen.Parens(inv)
			}
			return inv
		}
	}
	if precedence(cond) == token.HighestPrec && !bareCompositeLit(cond) {
		return jen.Op("!").Add(r.expr(cond))
	}
	return jen.Op("!").Parens(r.expr(cond))
}

// ordered reports whether e is known to be an integer or a string, whose
// order comparisons invert exactly.
func (r *rctx) ordered(e ast.Expr) bool {
	if lit, ok := e.(*ast.BasicLit); ok {
		return lit.Kind == token.INT || lit.Kind == token.STRING
	}
	var t types.Type
	if id, ok := e.(*ast.Ident); ok {
		if v := r.p.resolve(id); v != nil {
			t = v.typ
		}
	}
	if t == nil {
		if st, ok := r.p.stypes[e]; ok {
			t = st
		} else if tv, ok := r.p.info.Types[e]; ok {
			t = tv.Type
		}
	}
	if t == nil {
		return false
	}
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsString) != 0
}

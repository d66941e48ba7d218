package gen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Hoisting. A suspending call is hoisted into an earlier state; the
// operands to its left are ordered as gc orders them (see order.go): what
// gc evaluates in place is evaluated into temporaries before it, the rest
// stays in the expression and is evaluated after it.

// expr lowers e so that the result contains no suspension point, emitting
// whatever must be evaluated before it.
func (l *lowerer) expr(e ast.Expr) ast.Expr {
	if e == nil || !l.hasSusp(e) {
		return e
	}
	defer l.at(e)()
	switch x := e.(type) {
	case *ast.ParenExpr:
		return l.keepType(&ast.ParenExpr{X: l.expr(x.X)}, e)
	case *ast.CallExpr:
		if l.isSusp(x) != notSusp {
			res := l.suspendValues(x)
			if len(res) != 1 {
				l.errorf(x.Pos(), "internal error: multi-value suspension in a single-value context")
				return e
			}
			return res[0]
		}
		return l.callExpr(x)
	case *ast.BinaryExpr:
		if (x.Op == token.LAND || x.Op == token.LOR) && l.hasSusp(x.Y) {
			return l.logical(x)
		}
		ops := l.operandsTo([]ast.Expr{x.X, x.Y}, l.comparedAs(x))
		return l.keepType(&ast.BinaryExpr{X: ops[0], OpPos: x.OpPos, Op: x.Op, Y: ops[1]}, e)
	case *ast.UnaryExpr:
		return l.keepType(&ast.UnaryExpr{OpPos: x.OpPos, Op: x.Op, X: l.expr(x.X)}, e)
	case *ast.StarExpr:
		return l.keepType(&ast.StarExpr{X: l.expr(x.X)}, e)
	case *ast.SelectorExpr:
		return l.selector(l.expr(x.X), x)
	case *ast.IndexExpr:
		ops := l.operands([]ast.Expr{x.X, x.Index})
		return l.keepType(&ast.IndexExpr{X: ops[0], Index: ops[1]}, e)
	case *ast.SliceExpr:
		ops := l.operands([]ast.Expr{x.X, x.Low, x.High, x.Max})
		return l.keepType(&ast.SliceExpr{X: ops[0], Low: ops[1], High: ops[2], Max: ops[3], Slice3: x.Slice3}, e)
	case *ast.TypeAssertExpr:
		return l.keepType(&ast.TypeAssertExpr{X: l.expr(x.X), Type: x.Type}, e)
	case *ast.CompositeLit:
		return l.compositeLit(x)
	}
	l.errorf(e.Pos(), "unsupported expression %T with a suspension point", e)
	return e
}

// operands lowers a list of operands evaluated left to right.
func (l *lowerer) operands(list []ast.Expr) []ast.Expr { return l.operandsTo(list, nil) }

// operandsTo lowers a list of operands evaluated left to right and
// assigned to variables of the target types (nil: no assignment): the
// operands to the left of the last one that suspends are ordered early.
func (l *lowerer) operandsTo(list []ast.Expr, targets []types.Type) []ast.Expr {
	last := -1
	for i, x := range list {
		if x != nil && l.hasSusp(x) {
			last = i
		}
	}
	out := make([]ast.Expr, len(list))
	for i, x := range list {
		if x == nil {
			continue
		}
		y := l.expr(x)
		if i < last {
			var target types.Type
			if i < len(targets) {
				target = targets[i]
			}
			restore := l.at(x)
			y = l.earlyTo(y, target)
			restore()
		}
		out[i] = y
	}
	return out
}

// spill evaluates e into a new temporary now.
func (l *lowerer) spill(e ast.Expr, t types.Type) ast.Expr {
	if cl, ok := e.(*ast.CompositeLit); ok && cl.Type == nil {
		// An elided type is written out in the temporary's assignment.
		l.p.litTypes[cl] = l.typeOf(e)
	}
	tmp := l.temp(t)
	v := l.synth[tmp]
	l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: []ast.Expr{tmp}, Tok: token.ASSIGN, Rhs: []ast.Expr{e}}, pos: e.Pos()})
	return l.tempRef(v)
}

// pureCall reports whether a call is a conversion or a builtin without
// effects.
func (l *lowerer) pureCall(call *ast.CallExpr) bool {
	if tv, ok := l.info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := l.info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "complex", "real", "imag", "min", "max", "new", "make":
				return true
			}
		}
	}
	return false
}

func (l *lowerer) callExpr(x *ast.CallExpr) ast.Expr {
	var funOp ast.Expr // an operand evaluated before the arguments
	rebuildFun := func(op ast.Expr) ast.Expr { return op }
	if tv, ok := l.info.Types[x.Fun]; ok && tv.IsType() {
		rebuildFun = func(ast.Expr) ast.Expr { return x.Fun }
	} else if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok && l.info.Selections[sel] != nil && l.info.Selections[sel].Kind() == types.MethodVal {
		funOp = sel.X
		rebuildFun = func(op ast.Expr) ast.Expr { return &ast.SelectorExpr{X: op, Sel: sel.Sel} }
	} else if l.staticFunc(x.Fun) {
		rebuildFun = func(ast.Expr) ast.Expr { return x.Fun }
	} else {
		funOp = x.Fun
	}
	// f(g()) with a suspending g of several results.
	if len(x.Args) == 1 {
		if inner, ok := ast.Unparen(x.Args[0]).(*ast.CallExpr); ok && l.isSusp(inner) != notSusp {
			if tup, ok := l.typeOf(inner).(*types.Tuple); ok && tup.Len() > 1 {
				var op ast.Expr
				if funOp != nil {
					op = l.early(l.expr(funOp))
				}
				args := l.suspendValues(inner)
				return l.keepType(&ast.CallExpr{Fun: rebuildFun(op), Args: args, Ellipsis: x.Ellipsis}, x)
			}
		}
	}
	list := append([]ast.Expr{funOp}, x.Args...)
	ops := l.operandsTo(list, append([]types.Type{nil}, l.paramTypes(x)...))
	return l.keepType(&ast.CallExpr{Fun: rebuildFun(ops[0]), Args: ops[1:], Ellipsis: x.Ellipsis}, x)
}

// paramTypes are the types of the parameters a call's arguments are
// assigned to (the variadic ones' element type for each extra argument).
func (l *lowerer) paramTypes(call *ast.CallExpr) []types.Type {
	sig, ok := coreType(l.typeOf(call.Fun)).(*types.Signature)
	if !ok {
		return nil
	}
	var out []types.Type
	n := sig.Params().Len()
	for i := range call.Args {
		switch {
		case sig.Variadic() && i >= n-1 && !call.Ellipsis.IsValid():
			out = append(out, sig.Params().At(n-1).Type().(*types.Slice).Elem())
		case i < n:
			out = append(out, sig.Params().At(i).Type())
		}
	}
	return out
}

// staticFunc reports whether fun names a function or builtin (evaluating it
// has no effect).
func (l *lowerer) staticFunc(fun ast.Expr) bool {
	fun = ast.Unparen(fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if l.info.Selections[f] != nil {
			return false
		}
		id = f.Sel
	default:
		return false
	}
	switch l.info.Uses[id].(type) {
	case *types.Func, *types.Builtin:
		return true
	}
	return false
}

func (l *lowerer) logical(x *ast.BinaryExpr) ast.Expr {
	left := l.expr(x.X)
	tmp := l.temp(l.typeOf(x))
	v := l.synth[tmp]
	l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: []ast.Expr{tmp}, Tok: token.ASSIGN, Rhs: []ast.Expr{left}}, pos: x.Pos()})
	rhs, done := l.newBlock(), l.newBlock()
	var cond ast.Expr = l.tempRef(v)
	if x.Op == token.LOR {
		cond = &ast.UnaryExpr{Op: token.NOT, X: cond}
	}
	l.setTerm(&branchTerm{cond: cond, then: rhs, els: done})
	l.cur = rhs
	right := l.expr(x.Y)
	l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: []ast.Expr{l.tempRef(v)}, Tok: token.ASSIGN, Rhs: []ast.Expr{right}}, pos: x.Y.Pos()})
	l.startBlock(done)
	return l.tempRef(v)
}

func (l *lowerer) compositeLit(x *ast.CompositeLit) ast.Expr {
	if _, ok := l.litType(x).(*types.Map); ok {
		return l.mapLit(x)
	}
	var list []ast.Expr
	var targets []types.Type
	for i, e := range x.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if !l.isFieldKey(x, kv) {
				list = append(list, kv.Key)
				targets = append(targets, l.litKeyType(x))
			}
			list = append(list, kv.Value)
			targets = append(targets, l.litElemType(x, kv.Key, i))
		} else {
			list = append(list, e)
			targets = append(targets, l.litElemType(x, nil, i))
		}
	}
	ops := l.operandsTo(list, targets)
	elts := make([]ast.Expr, len(x.Elts))
	i := 0
	for j, e := range x.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			key := kv.Key
			if !l.isFieldKey(x, kv) {
				key = ops[i]
				i++
			}
			elts[j] = &ast.KeyValueExpr{Key: key, Value: ops[i]}
			i++
		} else {
			elts[j] = ops[i]
			i++
		}
	}
	return l.newLit(x, elts)
}

// mapLit lowers a map literal with a suspension point. gc inserts its
// non-constant entries one at a time, as assignments m[k] = v: the entries
// before the one that suspends are evaluated completely (keys and values,
// late parts included) before it.
func (l *lowerer) mapLit(x *ast.CompositeLit) ast.Expr {
	last := -1
	for i, e := range x.Elts {
		if l.hasSusp(e) {
			last = i
		}
	}
	m := l.litType(x).(*types.Map)
	elts := make([]ast.Expr, len(x.Elts))
	for i, e := range x.Elts {
		kv := e.(*ast.KeyValueExpr)
		switch {
		case i < last:
			key := l.earlyTo(l.expr(kv.Key), m.Key())
			val := l.earlyTo(l.expr(kv.Value), m.Elem())
			if !l.isConst(key) {
				key = l.spill(key, m.Key())
			}
			if !l.constLit(val) {
				val = l.spill(val, m.Elem())
			}
			elts[i] = &ast.KeyValueExpr{Key: key, Value: val}
		case i == last:
			ops := l.operandsTo([]ast.Expr{kv.Key, kv.Value}, []types.Type{m.Key(), m.Elem()})
			elts[i] = &ast.KeyValueExpr{Key: ops[0], Value: ops[1]}
		default:
			elts[i] = e
		}
	}
	return l.newLit(x, elts)
}

// suspendValues hoists a suspending call into temporaries holding its
// results.
func (l *lowerer) suspendValues(call *ast.CallExpr) []ast.Expr {
	res := l.resultTypes(call)
	targets := make([]ast.Expr, len(res))
	vars := make([]*variable, len(res))
	for i, t := range res {
		id := l.temp(t)
		targets[i] = id
		vars[i] = l.synth[id]
	}
	l.suspendTo(call, targets, nil, call.Pos())
	out := make([]ast.Expr, len(res))
	for i, v := range vars {
		out[i] = l.tempRef(v)
	}
	return out
}

func (l *lowerer) resultTypes(call *ast.CallExpr) []types.Type {
	var out []types.Type
	switch t := l.info.TypeOf(call).(type) {
	case *types.Tuple:
		for v := range t.Variables() {
			out = append(out, v.Type())
		}
	case nil:
	default:
		out = append(out, t)
	}
	return out
}

// suspendTo lowers a suspension point whose results go to targets (nil:
// discarded; a nil entry: that result is discarded). box lists variables
// the assignment declares that need a new box.
func (l *lowerer) suspendTo(call *ast.CallExpr, targets []ast.Expr, box []*variable, pos token.Pos) {
	nres := len(l.resultTypes(call))
	results := make([]string, nres)
	any := false
	for i := range results {
		results[i] = "_"
		if i < len(targets) && targets[i] != nil && !isBlank(targets[i]) {
			results[i] = l.names.fresh("r")
			any = true
		}
	}
	if !any {
		results = nil
	}
	switch l.isSusp(call) {
	case suspWait:
		sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		args := l.operands(call.Args)
		for i, a := range args {
			if !l.stable(a) {
				args[i] = l.spill(a, l.typeOf(call.Args[i]))
			}
		}
		// The call starts a state of its own (the current one if empty):
		// the state is entered with PC set to it.
		if len(l.cur.nodes) > 0 || l.cur.term != nil {
			l.startBlock(l.newBlock())
		}
		l.cur.suspend = true
		l.emit(&suspendNode{
			handle:  true,
			call:    &ast.CallExpr{Fun: sel, Args: args, Ellipsis: call.Ellipsis},
			pos:     pos,
			results: results, box: box, targets: targets,
		})
	case suspProto:
		fun := l.protoFun(call)
		args := l.operands(call.Args)
		for i, a := range args {
			if !l.stable(a) {
				args[i] = l.spill(a, l.typeOf(call.Args[i]))
			}
		}
		if len(l.cur.nodes) > 0 || l.cur.term != nil {
			l.startBlock(l.newBlock())
		}
		l.cur.suspend = true
		l.emit(&suspendNode{
			orig:    call,
			call:    &ast.CallExpr{Fun: fun, Args: args, Ellipsis: call.Ellipsis},
			pos:     pos,
			results: results, box: box, targets: targets,
		})
	case suspCall:
		c := l.callees[call]
		var list []ast.Expr
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && l.info.Selections[sel] != nil {
			list = append(list, l.receiver(sel))
		}
		if li := c.fn.lit; li != nil {
			for _, obj := range li.captures {
				v := l.vars[obj]
				if v == nil {
					l.errorf(call.Pos(), "internal error: captured variable %s not found", obj.Name())
					continue
				}
				l.captured[v] = true
				ref := &ast.UnaryExpr{Op: token.AND, X: l.tempRef(v)}
				l.stypes[ref] = types.NewPointer(v.typ)
				list = append(list, ref)
			}
		}
		if li := c.fn.lit; li != nil && !li.ownCo {
			list = append(list, call.Args...)
		} else {
			list = append(list, call.Args[1:]...)
		}
		args := l.operands(list)
		child := l.child(c)
		next := l.newBlock()
		l.setTerm(&callTerm{child: child, args: args, ellipsis: call.Ellipsis.IsValid(), next: next, pos: pos})
		l.cur = next
		if c.fn.Obj.Type().(*types.Signature).Results().Len() > 0 || len(box) > 0 {
			l.emit(&resultNode{child: child, results: results, box: box, targets: targets})
		} else {
			l.emit(&resultNode{child: child})
		}
	}
}

// protoFun lowers the function operand of a handle-protocol call so that
// calling it again after the wake-up calls the same function on the same
// receiver: a receiver or function value that could change is evaluated
// once into a temporary (a pointer, for a method on an addressable value).
func (l *lowerer) protoFun(call *ast.CallExpr) ast.Expr {
	fun := ast.Unparen(call.Fun)
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if selection := l.info.Selections[sel]; selection != nil && selection.Kind() == types.MethodVal {
			recv := l.expr(sel.X)
			m := selection.Obj().(*types.Func)
			_, wantPtr := types.Unalias(m.Type().(*types.Signature).Recv().Type()).Underlying().(*types.Pointer)
			_, isPtr := types.Unalias(l.typeOf(sel.X)).Underlying().(*types.Pointer)
			path := selection.Index()
			if len(path) == 1 && ((wantPtr && !isPtr && l.stableAddr(recv)) || ((!wantPtr || isPtr) && l.stable(recv))) {
				return &ast.SelectorExpr{X: recv, Sel: sel.Sel}
			}
			lowered := &ast.SelectorExpr{X: recv, Sel: sel.Sel}
			l.info.Selections[lowered] = selection
			r := l.receiver(lowered)
			return &ast.SelectorExpr{X: l.spill(r, l.typeOf(r)), Sel: sel.Sel}
		}
	}
	f := l.expr(call.Fun)
	if !l.stable(f) {
		f = l.spill(f, l.typeOf(call.Fun))
	}
	return f
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// receiver is the receiver operand of a call of a marked method, adjusted
// to the method's receiver type as Go does implicitly.
func (l *lowerer) receiver(sel *ast.SelectorExpr) ast.Expr {
	selection := l.info.Selections[sel]
	m := selection.Obj().(*types.Func)
	_, wantPtr := types.Unalias(m.Type().(*types.Signature).Recv().Type()).(*types.Pointer)
	x := sel.X
	xt := l.typeOf(sel.X)
	// A promoted method: name the embedded fields on the way.
	path := selection.Index()
	for _, idx := range path[:len(path)-1] {
		st := types.Unalias(xt).Underlying()
		if p, ok := st.(*types.Pointer); ok {
			st = types.Unalias(p.Elem()).Underlying()
		}
		field := st.(*types.Struct).Field(idx)
		x = &ast.SelectorExpr{X: x, Sel: ast.NewIdent(field.Name())}
		xt = field.Type()
		l.stypes[x] = xt
	}
	_, isPtr := types.Unalias(xt).Underlying().(*types.Pointer)
	switch {
	case wantPtr && !isPtr:
		e := &ast.UnaryExpr{Op: token.AND, X: x}
		l.stypes[e] = types.NewPointer(xt)
		return e
	case !wantPtr && isPtr:
		e := &ast.StarExpr{X: x}
		l.stypes[e] = types.Unalias(xt).Underlying().(*types.Pointer).Elem()
		return e
	}
	return x
}

// child returns the frame field that holds calls of c. One field serves
// every call of the same callee: only one child runs at a time.
func (l *lowerer) child(c *callee) *variable {
	if v := l.kids[c.key]; v != nil {
		return v
	}
	base := "call" + upperFirst(c.fn.Decl.Name.Name)
	if len(l.kids) > 0 && l.names.taken[base] {
		base += "_"
	}
	v := l.newVar(l.names.fresh(base), nil, nil, kChild, token.NoPos)
	v.child = c
	v.field = true
	l.kids[c.key] = v
	return v
}

// stable reports whether evaluating e again after a suspension gives the
// same value: a waiting call is retried on wake-up with its arguments
// evaluated again, so anything else is evaluated once into a temporary.
func (l *lowerer) stable(e ast.Expr) bool {
	if tv, ok := l.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return l.stable(x.X)
	case *ast.Ident:
		if l.synth[x] != nil {
			return true
		}
		obj := l.info.Uses[x]
		switch obj.(type) {
		case *types.Const, *types.Nil, *types.Func, *types.TypeName:
			return true
		}
		if obj == l.fn.Co {
			return true
		}
		if v := l.vars[obj]; v != nil {
			return !v.addrTaken
		}
		return false
	case *ast.SelectorExpr:
		if sel := l.info.Selections[x]; sel != nil {
			if sel.Kind() != types.FieldVal || sel.Indirect() {
				return false
			}
			return l.stable(x.X)
		}
		switch l.info.Uses[x.Sel].(type) {
		case *types.Const, *types.Func, *types.TypeName:
			return true
		}
		return false
	case *ast.SliceExpr:
		for _, i := range []ast.Expr{x.Low, x.High, x.Max} {
			if i != nil && !l.stable(i) {
				return false
			}
		}
		if _, arr := types.Unalias(l.typeOf(x.X)).Underlying().(*types.Array); arr {
			return l.stableAddr(x.X)
		}
		return l.stable(x.X)
	case *ast.UnaryExpr:
		switch x.Op {
		case token.AND:
			return l.stableAddr(x.X)
		case token.ARROW:
			return false
		}
		return l.stable(x.X)
	case *ast.BinaryExpr:
		return l.stable(x.X) && l.stable(x.Y)
	case *ast.IndexExpr:
		if _, arr := types.Unalias(l.typeOf(x.X)).Underlying().(*types.Array); arr {
			return l.stable(x.X) && l.stable(x.Index)
		}
		return false
	case *ast.CallExpr:
		if len(x.Args) == 1 && l.pureCall(x) {
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
				if b, ok := l.info.Uses[id].(*types.Builtin); ok && b.Name() != "len" && b.Name() != "cap" && b.Name() != "real" && b.Name() != "imag" {
					return false
				}
			}
			return l.stable(x.Args[0])
		}
	}
	return false
}

// stableAddr reports whether e denotes the same variable when evaluated
// again: a variable of the function, or a field or array element of one at
// a stable index.
func (l *lowerer) stableAddr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return l.stableAddr(x.X)
	case *ast.Ident:
		if l.synth[x] != nil {
			return true
		}
		return l.vars[l.info.Uses[x]] != nil
	case *ast.SelectorExpr:
		if sel := l.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && !sel.Indirect() {
			if _, ptr := types.Unalias(l.typeOf(x.X)).Underlying().(*types.Pointer); !ptr {
				return l.stableAddr(x.X)
			}
		}
	case *ast.IndexExpr:
		if _, arr := types.Unalias(l.typeOf(x.X)).Underlying().(*types.Array); arr {
			return l.stableAddr(x.X) && l.stable(x.Index)
		}
	}
	return false
}

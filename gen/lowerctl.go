package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
)

// Range loops, switches and type switches that contain suspension points.

func (l *lowerer) assignStmt(lhs []ast.Expr, rhs []ast.Expr, pos token.Pos) {
	l.emit(&stmtNode{stmt: &ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, Rhs: rhs}, pos: pos})
}

func intLit(n int64) *ast.BasicLit {
	return &ast.BasicLit{Kind: token.INT, Value: strconv.FormatInt(n, 10)}
}

// iterVars assigns the iteration values to the key and value of a range
// statement at the start of an iteration (declaring them for :=), together
// as gc does for ranges over values.
func (l *lowerer) iterVars(s *ast.RangeStmt, vals ...ast.Expr) { l.assignIter(s, false, vals) }

// assignIter is iterVars; with seq, targets that are assigned (not
// declared) are assigned one after the other, as gc's rangefunc rewrite
// does (for k, arr[k] = range f starts the body with k = #p1, then
// arr[k] = #p2: arr[k] uses the new k).
func (l *lowerer) assignIter(s *ast.RangeStmt, seq bool, vals []ast.Expr) {
	var lhs, rhs []ast.Expr
	for i, e := range []ast.Expr{s.Key, s.Value} {
		if e == nil || isBlank(e) || i >= len(vals) || vals[i] == nil {
			continue
		}
		lhs = append(lhs, e)
		rhs = append(rhs, vals[i])
	}
	if len(lhs) == 0 {
		return
	}
	if s.Tok == token.DEFINE {
		for _, v := range l.newVars(lhs, true) {
			l.emit(&boxNode{v})
		}
	} else {
		for _, e := range lhs {
			if l.hasSusp(e) {
				l.errorf(e.Pos(), "unsupported range assignment target with a suspension point")
			}
		}
		if seq {
			for i := range lhs {
				l.assignStmt(lhs[i:i+1], rhs[i:i+1], s.Pos())
			}
			return
		}
	}
	l.assignStmt(lhs, rhs, s.Pos())
}

// loop emits the common shape of a lowered range loop: cond decides
// whether to run body, which is followed by post.
func (l *lowerer) rangeLoop(s *ast.RangeStmt, label string, cond func(body, done *block), start func(), post func(), stop *variable) {
	condB, body, postB, done := l.newBlock(), l.newBlock(), l.newBlock(), l.newBlock()
	l.startBlock(condB)
	cond(body, done)
	l.cur = body
	l.ctx = &jctx{parent: l.ctx, label: label, brk: done, cont: postB, stop: stop, body: s.Body}
	if start != nil {
		start()
	}
	l.stmtList(s.Body.List)
	l.ctx = l.ctx.parent
	l.startBlock(postB)
	if post != nil {
		post()
	}
	l.jumpTo(condB)
	l.cur = done
	if stop != nil {
		l.emit(&synthNode{kind: synthStop, uses: []*variable{stop}})
	}
}

func (l *lowerer) rangeStmt(s *ast.RangeStmt, label string) {
	defer l.at(s.X)()
	l.loops++
	defer func() { l.loops-- }()
	if l.hasSusp(s.Key) || l.hasSusp(s.Value) {
		l.errorf(s.Pos(), "unsupported range assignment target with a suspension point")
		return
	}
	xt := l.typeOf(s.X)
	under := coreType(xt)
	if p, ok := under.(*types.Pointer); ok {
		if a, ok := types.Unalias(p.Elem()).Underlying().(*types.Array); ok {
			l.rangeArray(s, label, a, true)
			return
		}
	}
	switch t := under.(type) {
	case *types.Basic:
		switch {
		case t.Info()&types.IsString != 0:
			l.rangeString(s, label)
			return
		case t.Info()&types.IsInteger != 0:
			l.rangeInt(s, label)
			return
		}
	case *types.Slice:
		l.rangeSlice(s, label)
		return
	case *types.Array:
		l.rangeArray(s, label, t, false)
		return
	case *types.Map:
		l.rangeMap(s, label, t)
		return
	case *types.Chan:
		l.rangeChan(s, label, t)
		return
	case *types.Signature:
		l.rangeFunc(s, label, t)
		return
	}
	l.errorf(s.Pos(), "unsupported range over %s with a suspension point", xt)
}

var intType = types.Typ[types.Int]

func (l *lowerer) used(e ast.Expr) bool { return e != nil && !isBlank(e) }

func (l *lowerer) rangeSlice(s *ast.RangeStmt, label string) {
	x := l.spill(l.expr(s.X), l.typeOf(s.X))
	n := l.spill(&ast.CallExpr{Fun: ast.NewIdent("len"), Args: []ast.Expr{x}}, intType)
	l.indexLoop(s, label, x, n)
}

func (l *lowerer) rangeArray(s *ast.RangeStmt, label string, a *types.Array, ptr bool) {
	var x ast.Expr
	switch {
	case l.used(s.Value):
		x = l.spill(l.expr(s.X), l.typeOf(s.X))
	case l.callsOrReceives(s.X):
		l.assignStmt([]ast.Expr{ast.NewIdent("_")}, []ast.Expr{l.expr(s.X)}, s.Pos())
	default:
		// With only the index, over an array (or a pointer to one)
		// whose length is constant, the range expression is not
		// evaluated (the spec; *p with a nil p does not panic). Its
		// variables stay used, without reading through them.
		var uses, blanks []ast.Expr
		seen := map[types.Object]bool{}
		ast.Inspect(s.X, func(n ast.Node) bool {
			if x, ok := n.(*ast.Ident); ok {
				if v, ok := l.info.Uses[x].(*types.Var); ok && !v.IsField() && v.Parent() != l.pass.Pkg.Scope() && !seen[v] {
					seen[v] = true
					uses = append(uses, x)
					blanks = append(blanks, ast.NewIdent("_"))
				}
			}
			return true
		})
		if len(uses) > 0 {
			l.assignStmt(blanks, uses, s.Pos())
		}
	}
	l.indexLoop(s, label, x, intLit(a.Len()))
}

// callsOrReceives reports whether e has a function call (not a
// conversion) or a receive: the length of an array it denotes is then not
// a constant, and e is evaluated.
func (l *lowerer) callsOrReceives(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			found = found || x.Op == token.ARROW
		case *ast.CallExpr:
			if tv, ok := l.info.Types[x.Fun]; !ok || !tv.IsType() {
				found = found || !l.isConst(x)
			}
		}
		return !found
	})
	return found
}

// indexLoop iterates i over [0, n), with x[i] as the value.
func (l *lowerer) indexLoop(s *ast.RangeStmt, label string, x, n ast.Expr) {
	i := l.tempNamed(intType, "index")
	iv := l.synth[i]
	l.assignStmt([]ast.Expr{i}, []ast.Expr{intLit(0)}, s.Pos())
	l.rangeLoop(s, label, func(body, done *block) {
		l.setTerm(&branchTerm{cond: &ast.BinaryExpr{X: l.tempRef(iv), Op: token.LSS, Y: n}, then: body, els: done})
	}, func() {
		var val ast.Expr
		if x != nil && l.used(s.Value) {
			val = &ast.IndexExpr{X: l.cloneRef(x), Index: l.tempRef(iv)}
		}
		l.iterVars(s, l.tempRef(iv), val)
	}, func() {
		l.emit(&stmtNode{stmt: &ast.IncDecStmt{X: l.tempRef(iv), Tok: token.INC}})
	}, nil)
}

// cloneRef returns a fresh identifier for a temp reference, or e itself.
func (l *lowerer) cloneRef(e ast.Expr) ast.Expr {
	if id, ok := e.(*ast.Ident); ok && l.synth[id] != nil {
		return l.tempRef(l.synth[id])
	}
	return e
}

func (l *lowerer) rangeInt(s *ast.RangeStmt, label string) {
	t := types.Default(l.typeOf(s.X))
	if l.used(s.Key) {
		t = l.typeOf(s.Key)
		if s.Tok == token.DEFINE {
			if obj := l.info.Defs[s.Key.(*ast.Ident)]; obj != nil {
				t = obj.Type()
			}
		}
	}
	n := l.spill(l.expr(s.X), t)
	i := l.tempNamed(t, "index")
	iv := l.synth[i]
	l.assignStmt([]ast.Expr{i}, []ast.Expr{intLit(0)}, s.Pos())
	l.rangeLoop(s, label, func(body, done *block) {
		l.setTerm(&branchTerm{cond: &ast.BinaryExpr{X: l.tempRef(iv), Op: token.LSS, Y: l.cloneRef(n)}, then: body, els: done})
	}, func() {
		l.iterVars(s, l.tempRef(iv))
	}, func() {
		l.emit(&stmtNode{stmt: &ast.IncDecStmt{X: l.tempRef(iv), Tok: token.INC}})
	}, nil)
}

func (l *lowerer) rangeString(s *ast.RangeStmt, label string) {
	x := l.spill(l.expr(s.X), l.typeOf(s.X))
	xv := l.synth[x.(*ast.Ident)]
	i, next := l.tempNamed(intType, "index"), l.tempNamed(intType, "nextIndex")
	iv, nv := l.synth[i], l.synth[next]
	size := l.tempNamed(intType, "size")
	sv := l.synth[size]
	var rv *variable
	if l.used(s.Value) {
		rv = l.synth[l.tempNamed(types.Typ[types.Rune], "rune")]
	}
	l.assignStmt([]ast.Expr{i}, []ast.Expr{intLit(0)}, s.Pos())
	l.rangeLoop(s, label, func(body, done *block) {
		n := &ast.CallExpr{Fun: ast.NewIdent("len"), Args: []ast.Expr{l.tempRef(xv)}}
		l.setTerm(&branchTerm{cond: &ast.BinaryExpr{X: l.tempRef(iv), Op: token.LSS, Y: n}, then: body, els: done})
	}, func() {
		l.emit(&synthNode{kind: synthDecodeStr, defs: []*variable{rv, sv}, uses: []*variable{xv, iv}})
		l.assignStmt([]ast.Expr{l.tempRef(nv)}, []ast.Expr{&ast.BinaryExpr{X: l.tempRef(iv), Op: token.ADD, Y: l.tempRef(sv)}}, s.Pos())
		var val ast.Expr
		if rv != nil {
			val = l.tempRef(rv)
		}
		l.iterVars(s, l.tempRef(iv), val)
	}, func() {
		l.assignStmt([]ast.Expr{l.tempRef(iv)}, []ast.Expr{l.tempRef(nv)}, s.Pos())
	}, nil)
}

// mayBeNaN reports whether values of t can be unequal to themselves, so a
// map lookup cannot find their entry again.
func mayBeNaN(t types.Type) bool {
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex) != 0
	case *types.Interface, *types.TypeParam:
		return true
	case *types.Array:
		return mayBeNaN(u.Elem())
	case *types.Struct:
		for f := range u.Fields() {
			if mayBeNaN(f.Type()) {
				return true
			}
		}
	}
	return false
}

// rangeMap iterates over a snapshot of the keys, looking each one up again
// before its iteration: an entry deleted before it is reached is not
// produced and values are current, as the spec requires of map ranges.
func (l *lowerer) rangeMap(s *ast.RangeStmt, label string, t *types.Map) {
	if mayBeNaN(t.Key()) {
		l.errorf(s.Pos(), "range over a map whose keys may be NaN across a suspension point is not supported (v1)")
		return
	}
	m := l.spill(l.expr(s.X), l.typeOf(s.X))
	mv := l.synth[m.(*ast.Ident)]
	keys := l.tempNamed(types.NewSlice(t.Key()), "keys")
	kv := l.synth[keys]
	l.emit(&synthNode{kind: synthMapKeys, defs: []*variable{kv}, uses: []*variable{mv}, types: []types.Type{t.Key()}})
	i := l.tempNamed(intType, "index")
	iv := l.synth[i]
	l.assignStmt([]ast.Expr{i}, []ast.Expr{intLit(0)}, s.Pos())
	k, ok := l.tempNamed(t.Key(), "key"), l.tempNamed(types.Typ[types.Bool], "ok")
	kt, okt := l.synth[k], l.synth[ok]
	var vt *variable
	vref := func() ast.Expr { return ast.NewIdent("_") }
	if l.used(s.Value) {
		vt = l.synth[l.tempNamed(t.Elem(), "value")]
		vref = func() ast.Expr { return l.tempRef(vt) }
	}
	l.rangeLoop(s, label, func(body, done *block) {
		n := &ast.CallExpr{Fun: ast.NewIdent("len"), Args: []ast.Expr{l.tempRef(kv)}}
		l.setTerm(&branchTerm{cond: &ast.BinaryExpr{X: l.tempRef(iv), Op: token.LSS, Y: n}, then: body, els: done})
	}, func() {
		post := l.ctx.cont
		l.assignStmt([]ast.Expr{l.tempRef(kt)}, []ast.Expr{&ast.IndexExpr{X: l.tempRef(kv), Index: l.tempRef(iv)}}, s.Pos())
		l.assignStmt([]ast.Expr{vref(), l.tempRef(okt)}, []ast.Expr{&ast.IndexExpr{X: l.tempRef(mv), Index: l.tempRef(kt)}}, s.Pos())
		present := l.newBlock()
		l.setTerm(&branchTerm{cond: l.tempRef(okt), then: present, els: post})
		l.cur = present
		var val ast.Expr
		if vt != nil {
			val = l.tempRef(vt)
		}
		l.iterVars(s, l.tempRef(kt), val)
	}, func() {
		l.emit(&stmtNode{stmt: &ast.IncDecStmt{X: l.tempRef(iv), Tok: token.INC}})
	}, nil)
}

func (l *lowerer) rangeChan(s *ast.RangeStmt, label string, t *types.Chan) {
	ch := l.spill(l.expr(s.X), l.typeOf(s.X))
	cv := l.synth[ch.(*ast.Ident)]
	okt := l.synth[l.tempNamed(types.Typ[types.Bool], "ok")]
	var vt *variable
	if l.used(s.Key) {
		vt = l.synth[l.tempNamed(t.Elem(), "value")]
	}
	l.rangeLoop(s, label, func(body, done *block) {
		var v ast.Expr = ast.NewIdent("_")
		if vt != nil {
			v = l.tempRef(vt)
		}
		l.assignStmt([]ast.Expr{v, l.tempRef(okt)}, []ast.Expr{&ast.UnaryExpr{Op: token.ARROW, X: l.tempRef(cv)}}, s.Pos())
		l.setTerm(&branchTerm{cond: l.tempRef(okt), then: body, els: done})
	}, func() {
		if vt != nil {
			l.iterVars(s, l.tempRef(vt))
		}
	}, nil, nil)
}

// rangeFunc runs a push iterator as a pull one, cogenrt.Range, so the
// loop body can suspend between values; Range keeps gc's checks of the
// iterator's behaviour. Every way out of the loop stops the iterator, and
// the frame's Unwind unwinds it with a panic of the body.
func (l *lowerer) rangeFunc(s *ast.RangeStmt, label string, sig *types.Signature) {
	// The yield parameter's type may be a defined type: its underlying
	// signature gives the values, and the adapter Pull is given converts.
	yield := coreType(sig.Params().At(0).Type()).(*types.Signature)
	arity := yield.Params().Len()
	unit := types.NewStruct(nil, nil)
	elems := []types.Type{unit, unit}
	for i, v := range slices.Collect(yield.Params().Variables()) {
		elems[i] = v.Type()
	}
	seq := l.spill(l.expr(s.X), l.typeOf(s.X))
	sv := l.synth[seq.(*ast.Ident)]
	it := l.synth[l.tempNamed(types.NewPointer(l.rangeType(elems[0], elems[1])), "it")]
	l.p.stops = append(l.p.stops, it)
	pull := &synthNode{kind: synthPull, defs: []*variable{it}, uses: []*variable{sv}, types: elems[:arity], arity: arity, name: l.names.fresh("yield")}
	if yt := sig.Params().At(0).Type(); isTypeParam(yt) {
		pull.yieldType = yt
	}
	l.emit(pull)
	vals := make([]*variable, 2)
	for i, e := range []ast.Expr{s.Key, s.Value} {
		if i < arity && l.used(e) {
			vals[i] = l.synth[l.tempNamed(elems[i], "value")]
		}
	}
	ok := l.synth[l.tempNamed(types.Typ[types.Bool], "ok")]
	l.rangeLoop(s, label, func(body, done *block) {
		l.emit(&synthNode{kind: synthPullNext, defs: []*variable{vals[0], vals[1], ok}, uses: []*variable{it}})
		l.setTerm(&branchTerm{cond: l.tempRef(ok), then: body, els: done})
	}, func() {
		var refs []ast.Expr
		for _, v := range vals {
			if v != nil {
				refs = append(refs, l.tempRef(v))
			} else {
				refs = append(refs, nil)
			}
		}
		l.assignIter(s, true, refs)
	}, nil, it)
}

func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

// rangeType returns cogenrt.Range[k, v], a type the generated code names.
func (l *lowerer) rangeType(k, v types.Type) types.Type {
	if l.rangeOrigin == nil {
		pkg := types.NewPackage(cogenrtPath, "cogenrt")
		obj := types.NewTypeName(token.NoPos, pkg, "Range", nil)
		pkg.Scope().Insert(obj)
		l.rangeOrigin = types.NewNamed(obj, types.NewStruct(nil, nil), nil)
		any := types.Universe.Lookup("any").Type()
		l.rangeOrigin.SetTypeParams([]*types.TypeParam{
			types.NewTypeParam(types.NewTypeName(token.NoPos, pkg, "K", nil), any),
			types.NewTypeParam(types.NewTypeName(token.NoPos, pkg, "V", nil), any),
		})
	}
	t, err := types.Instantiate(nil, l.rangeOrigin, []types.Type{k, v}, false)
	if err != nil {
		panic("cogen: internal error: " + err.Error())
	}
	return t
}

func (l *lowerer) switchStmt(s *ast.SwitchStmt, label string) {
	if s.Init != nil {
		l.stmt(s.Init, "")
	}
	var tag ast.Expr
	if s.Tag != nil {
		tag = l.expr(s.Tag)
	}
	clauses := make([]*ast.CaseClause, len(s.Body.List))
	caseSusp := false
	for i, c := range s.Body.List {
		clauses[i] = c.(*ast.CaseClause)
		for _, e := range clauses[i].List {
			caseSusp = caseSusp || l.hasSusp(e)
		}
	}
	done := l.newBlock()
	bodies := make([]*block, len(clauses))
	dflt := done
	for i, c := range clauses {
		bodies[i] = l.newBlock()
		if c.List == nil {
			dflt = bodies[i]
		}
	}
	if !caseSusp {
		t := &switchTerm{tag: tag, dflt: dflt}
		for i, c := range clauses {
			if c.List != nil {
				t.clauses = append(t.clauses, switchCase{exprs: c.List, to: bodies[i]})
			}
		}
		l.setTerm(t)
	} else {
		if tag != nil {
			tag = l.spill(tag, l.typeOf(s.Tag))
		}
		for i, c := range clauses {
			for _, e := range c.List {
				ev := l.expr(e)
				cond := ev
				if tag != nil {
					cond = &ast.BinaryExpr{X: l.cloneRef(tag), Op: token.EQL, Y: ev}
				}
				next := l.newBlock()
				l.setTerm(&branchTerm{cond: cond, then: bodies[i], els: next})
				l.cur = next
			}
		}
		l.jumpTo(dflt)
	}
	l.ctx = &jctx{parent: l.ctx, label: label, brk: done}
	for i, c := range clauses {
		l.cur = bodies[i]
		body := c.Body
		ft := false
		if n := len(body); n > 0 {
			if bs, ok := body[n-1].(*ast.BranchStmt); ok && bs.Tok == token.FALLTHROUGH {
				ft = true
				body = body[:n-1]
			}
		}
		l.stmtList(body)
		if ft && i+1 < len(bodies) {
			l.jumpTo(bodies[i+1])
		} else {
			l.jumpTo(done)
		}
	}
	l.ctx = l.ctx.parent
	l.cur = done
}

func (l *lowerer) typeSwitchStmt(s *ast.TypeSwitchStmt, label string) {
	if s.Init != nil {
		l.stmt(s.Init, "")
	}
	var x ast.Expr
	switch a := s.Assign.(type) {
	case *ast.AssignStmt:
		x = a.Rhs[0].(*ast.TypeAssertExpr).X
	case *ast.ExprStmt:
		x = a.X.(*ast.TypeAssertExpr).X
	}
	x = l.expr(x)
	done := l.newBlock()
	t := &typeSwitchTerm{x: x}
	t.dflt.to = done
	var bodies []*block
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		tc := typeCase{types: cc.List, to: l.newBlock(), pos: cc.Pos()}
		if obj := l.info.Implicits[cc]; obj != nil && l.usesObj(cc, obj) {
			tc.v = l.declare(obj)
			if t.bind == "" {
				t.bind = l.names.fresh("x")
			}
		}
		bodies = append(bodies, tc.to)
		if cc.List == nil {
			t.dflt = tc
		} else {
			t.clauses = append(t.clauses, tc)
		}
	}
	l.setTerm(t)
	l.ctx = &jctx{parent: l.ctx, label: label, brk: done}
	for i, c := range s.Body.List {
		l.cur = bodies[i]
		l.stmtList(c.(*ast.CaseClause).Body)
		l.jumpTo(done)
	}
	l.ctx = l.ctx.parent
	l.cur = done
}

func (l *lowerer) usesObj(n ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(n, func(c ast.Node) bool {
		if id, ok := c.(*ast.Ident); ok && l.info.Uses[id] == obj {
			found = true
		}
		return !found
	})
	return found
}

// coreType is the underlying type of t, or for a type parameter the one
// underlying type all the types of its constraint share (nil if none).
func coreType(t types.Type) types.Type {
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok {
		return types.Unalias(t).Underlying()
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var core types.Type
	add := func(u types.Type) bool {
		if core == nil {
			core = u
		}
		return types.Identical(core, u)
	}
	for i := 0; i < iface.NumEmbeddeds(); i++ {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := 0; j < e.Len(); j++ {
				if !add(e.Term(j).Type().Underlying()) {
					return nil
				}
			}
		default:
			if _, nested := e.Underlying().(*types.Interface); nested {
				return nil
			}
			if !add(e.Underlying()) {
				return nil
			}
		}
	}
	return core
}

package gen

import (
	"fmt"
	"go/ast"
	"go/types"
	"sort"

	"github.com/dave/jennifer/jen"
)

// The Step method: a dispatch loop over the states, each rendered from its
// nodes and terminator.

func (e *emitter) stepBody(fn *Func) (out []jen.Code) {
	p := fn.plan
	r := &rctx{e: e, p: p}
	var body []jen.Code
	e.stepAliases, e.aliasUsed = p.pkgAliases, map[types.Object]bool{}
	defer func() { e.stepAliases, e.aliasUsed = nil, nil }()
	defer func() {
		// The aliases of the shadowed package-level types that Step
		// names come first.
		var shadowed []types.Object
		for obj := range e.aliasUsed {
			shadowed = append(shadowed, obj)
		}
		sort.Slice(shadowed, func(i, j int) bool { return shadowed[i].Name() < shadowed[j].Name() })
		var aliases []jen.Code
		for _, obj := range shadowed {
			aliases = append(aliases, jen.Type().Id(p.pkgAliases[obj]).Op("=").Id(obj.Name()))
		}
		out = append(aliases, out...)
	}()
	for _, gd := range p.hoisted {
		body = append(body, r.genDecl(gd))
	}
	var locals []jen.Code
	for _, v := range p.vars {
		if v.field || v.kind == kParam || v.kind == kResult || v.kind == kConst || v.kind == kChild {
			continue
		}
		locals = append(locals, jen.Id(v.name).Add(e.fieldType(v)))
	}
	if len(locals) == 1 {
		body = append(body, jen.Var().Add(locals[0]))
	} else if len(locals) > 1 {
		body = append(body, jen.Var().Defs(locals...))
	}
	reach := reachable(p)
	var emitted []*block
	for _, b := range layout(p) {
		if reach[b] || len(b.nodes) > 0 {
			emitted = append(emitted, b)
		}
	}
	var cases []jen.Code
	for i, b := range emitted {
		var next *block
		if i+1 < len(emitted) {
			next = emitted[i+1]
		}
		cases = append(cases, jen.Case(jen.Lit(b.index)).Block(e.blockCode(r, b, next)...))
	}
	cases = append(cases, jen.Default().Block(
		jen.Panic(jen.Lit(fmt.Sprintf("cogen: %s: invalid resume point", fn.FrameName))),
	))
	loop := jen.For().Block(jen.Switch(jen.Id(p.recv).Dot("PC")).Block(cases...))
	if p.dispatch {
		body = append(body, jen.Id(p.label).Op(":"))
	}
	body = append(body, loop)
	body = append(body, jen.Comment(restoreMarker))
	return body
}

// layout orders the states so that a state is followed by the one it most
// often continues into, which then needs no trip through the switch.
func layout(p *plan) []*block {
	placed := map[*block]bool{}
	var order []*block
	for _, start := range p.blocks {
		for b := start; b != nil && !placed[b]; {
			placed[b] = true
			order = append(order, b)
			switch t := b.term.(type) {
			case *jumpTerm:
				b = t.to
			case *branchTerm:
				b = t.then
				if placed[b] {
					b = t.els
				}
			case *callTerm:
				b = t.next
			default:
				b = nil
			}
		}
	}
	return order
}

// reachable returns the blocks control can reach from the entry.
func reachable(p *plan) map[*block]bool {
	seen := map[*block]bool{}
	var visit func(b *block)
	visit = func(b *block) {
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		for _, n := range b.nodes {
			if sn, ok := n.(*stmtNode); ok && sn.nested != nil {
				for _, t := range sn.nested.targets {
					visit(t)
				}
			}
		}
		succs, _ := edges(b.term)
		for _, s := range succs {
			visit(s)
		}
	}
	visit(p.blocks[0])
	return seen
}

func (e *emitter) setPC(p *plan, b *block) *jen.Statement {
	return jen.Id(p.recv).Dot("PC").Op("=").Lit(b.index)
}

// stopCall stops the iterator of a range-over-func loop the code leaves.
func stopCall(r *rctx, it *variable) jen.Code {
	return r.varExpr(it).Dot("Stop").Call()
}

// jumpCode is a change of state: stop the iterators left, set PC, and go
// round the dispatch loop (by label from inside copied statements).
func (e *emitter) jumpCode(r *rctx, j jump, nested bool) []jen.Code {
	var out []jen.Code
	for _, v := range j.stops {
		out = append(out, stopCall(r, v))
	}
	out = append(out, e.setPC(r.p, j.to))
	if nested {
		return append(out, jen.Continue().Id(r.p.label))
	}
	return append(out, jen.Continue())
}

// jumpLast ends a block with a jump, falling into the next case when it is
// the target.
func (e *emitter) jumpLast(r *rctx, j jump, next *block) []jen.Code {
	if j.to == next {
		var out []jen.Code
		for _, v := range j.stops {
			out = append(out, stopCall(r, v))
		}
		if next.suspend {
			out = append(out, e.setPC(r.p, next))
		}
		return append(out, jen.Fallthrough())
	}
	return e.jumpCode(r, j, false)
}

func (e *emitter) blockCode(r *rctx, b *block, next *block) []jen.Code {
	p := r.p
	var out []jen.Code
	add := func(c ...jen.Code) {
		for _, x := range c {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	// A state is entered from anywhere: no directive above it holds.
	e.lost()
	for _, n := range b.nodes {
		e.lost() // the glue code of the node before spans lines
		switch n := n.(type) {
		case *stmtNode:
			add(e.line(n.pos))
			inner := *r
			inner.nested = n.nested
			add(inner.stmtBody(n.stmt)...)
		case *boxNode:
			add(r.varPtr(n.v).Op("=").New(e.typ(n.v.typ)))
		case *zeroNode:
			// A shared field may hold another variable's old value.
			if !n.implicit || r.p.shared(n.v) {
				add(r.varExpr(n.v).Op("=").Add(e.zero(n.v.typ)))
			}
		case *reboxNode:
			// The next iteration's variable starts as a copy of this one's.
			fresh := n.v.name + "Next"
			add(jen.Block(
				jen.Id(fresh).Op(":=").Add(r.varExpr(n.v)),
				r.varPtr(n.v).Op("=").Op("&").Id(fresh),
			))
		case *suspendNode:
			add(e.line(n.pos))
			call := r.expr(n.call)
			if n.results != nil {
				add(jen.List(ids(n.results)...).Op(":=").Add(call))
			} else {
				add(call)
			}
			add(jen.If(jen.Id(p.task).Dot("Blocked").Call()).Block(jen.Return(e.gq(stacklessPath, "Suspend"))))
			e.lost()
			add(e.bindResults(r, n.results, n.box, n.targets)...)
		case *resultNode:
			if n.results != nil {
				add(jen.List(ids(n.results)...).Op(":=").Add(r.varPtr(n.child).Dot("Result").Call()))
			}
			add(r.varPtr(n.child).Op("=").Nil())
			add(e.bindResults(r, n.results, n.box, n.targets)...)
		case *synthNode:
			add(e.synth(r, n))
		}
	}
	e.lost()
	switch t := b.term.(type) {
	case *jumpTerm:
		add(e.jumpLast(r, t.jump, next)...)
	case *branchTerm:
		add(e.line(t.cond.Pos()))
		if t.then == next && t.els != next {
			add(jen.If(r.negate(t.cond)).Block(e.jumpCode(r, jump{to: t.els}, false)...))
			add(e.jumpLast(r, jump{to: t.then}, next)...)
		} else {
			add(jen.If(r.cond(t.cond)).Block(e.jumpCode(r, jump{to: t.then}, false)...))
			add(e.jumpLast(r, jump{to: t.els}, next)...)
		}
	case *switchTerm:
		add(e.setPC(p, t.dflt))
		var head []jen.Code
		if t.tag != nil {
			add(e.line(t.tag.Pos()))
			head = append(head, r.cond(t.tag))
		}
		var cases []jen.Code
		for _, c := range t.clauses {
			if len(c.exprs) > 0 {
				cases = append(cases, e.line(c.exprs[0].Pos()))
			}
			cases = append(cases, jen.Case(r.exprs(c.exprs)...).Block(e.setPC(p, c.to)))
			e.lost()
		}
		add(jen.Switch(head...).Block(cases...))
		add(jen.Continue())
	case *typeSwitchTerm:
		var cases []jen.Code
		clause := func(c typeCase) []jen.Code {
			var body []jen.Code
			if c.v != nil {
				if c.v.boxed {
					body = append(body, r.varPtr(c.v).Op("=").New(e.typ(c.v.typ)))
				}
				body = append(body, r.varExpr(c.v).Op("=").Id(t.bind))
			}
			return append(body, e.setPC(p, c.to))
		}
		for _, c := range t.clauses {
			cases = append(cases, jen.Case(r.exprs(c.types)...).Block(clause(c)...))
		}
		if t.dflt.types == nil && t.dflt.pos.IsValid() {
			cases = append(cases, jen.Default().Block(clause(t.dflt)...))
		} else {
			add(e.setPC(p, t.dflt.to))
		}
		add(e.line(t.x.Pos()))
		var head *jen.Statement
		if t.bind != "" {
			head = jen.Id(t.bind).Op(":=").Add(r.primary(t.x)).Assert(jen.Type())
		} else {
			head = r.primary(t.x).Assert(jen.Type())
		}
		add(jen.Switch(head).Block(cases...))
		add(jen.Continue())
	case *returnTerm:
		for _, v := range t.stops {
			add(stopCall(r, v))
		}
		add(e.done(p)...)
	case *callTerm:
		c := t.child.child
		var targs []jen.Code
		for _, ta := range c.typeArgs {
			targs = append(targs, e.typ(ta))
		}
		add(e.line(t.pos))
		args := r.exprs(t.args)
		if t.ellipsis && len(args) > 0 {
			args[len(args)-1] = jen.Add(args[len(args)-1]).Op("...")
		}
		add(r.varPtr(t.child).Op("=").Add(generic(c.fn.qualified(c.fn.CtorName), targs)).Call(args...))
		add(e.setPC(p, t.next))
		add(jen.Return(jen.Id(p.task).Dot("Call").Call(r.varPtr(t.child))))
	case *unreachableTerm:
		// After a terminating statement of the source (an infinite loop,
		// a panic) nothing more is needed, and vet would call it dead.
		if len(b.nodes) == 0 {
			add(jen.Panic(jen.Lit("cogen: " + p.fn.FrameName + ": unreachable")))
		} else if _, ok := b.nodes[len(b.nodes)-1].(*stmtNode); !ok {
			add(jen.Panic(jen.Lit("cogen: " + p.fn.FrameName + ": unreachable")))
		}
	}
	return out
}

// done returns from the frame: its deferred calls run first.
func (e *emitter) done(p *plan) []jen.Code {
	ret := jen.Return(e.gq(stacklessPath, "Done"))
	if !p.hasDefer {
		return []jen.Code{ret}
	}
	return []jen.Code{jen.Id(p.recv).Dot("RunDefers").Call(), ret}
}

func ids(names []string) []jen.Code {
	out := make([]jen.Code, len(names))
	for i, n := range names {
		out[i] = jen.Id(n)
	}
	return out
}

// bindResults assigns the results of a completed call to their targets.
func (e *emitter) bindResults(r *rctx, results []string, box []*variable, targets []ast.Expr) []jen.Code {
	var out []jen.Code
	for _, v := range box {
		out = append(out, r.varPtr(v).Op("=").New(e.typ(v.typ)))
	}
	var lhs, rhs []jen.Code
	for i, t := range targets {
		if t == nil || isBlank(t) || i >= len(results) {
			continue
		}
		lhs = append(lhs, r.expr(t))
		rhs = append(rhs, jen.Id(results[i]))
	}
	if len(lhs) > 0 {
		out = append(out, jen.List(lhs...).Op("=").List(rhs...))
	}
	return out
}

// zero is the zero value of t.
func (e *emitter) zero(t types.Type) *jen.Statement {
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return jen.False()
		case u.Info()&types.IsString != 0:
			return jen.Lit("")
		case u.Info()&types.IsNumeric != 0:
			return jen.Lit(0)
		case u.Kind() == types.UnsafePointer:
			return jen.Nil()
		}
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		if _, tp := types.Unalias(t).(*types.TypeParam); !tp {
			return jen.Nil()
		}
	case *types.Struct, *types.Array:
		return e.typ(t).Values()
	}
	return jen.Op("*").New(e.typ(t))
}

func (e *emitter) synth(r *rctx, n *synthNode) jen.Code {
	def := func(i int) jen.Code {
		if i >= len(n.defs) || n.defs[i] == nil {
			return jen.Id("_")
		}
		return r.varExpr(n.defs[i])
	}
	switch n.kind {
	case synthMapKeys:
		keys, m := r.varExpr(n.defs[0]), r.varExpr(n.uses[0])
		k := r.p.names.fresh("k")
		return jen.Block(
			jen.Add(keys).Op("=").Make(jen.Index().Add(e.typ(n.types[0])), jen.Lit(0), jen.Len(m)),
			jen.For(jen.Id(k).Op(":=").Range().Add(r.varExpr(n.uses[0]))).Block(
				jen.Add(r.varExpr(n.defs[0])).Op("=").Append(r.varExpr(n.defs[0]), jen.Id(k)),
			),
		)
	case synthPull:
		// cogenrt.PullN[K, V](func(yield func(K, V) bool) { seq(yield) }):
		// the adapter gives the iterator a yield of the type it declares,
		// defined types included.
		var params, targs []jen.Code
		for _, t := range n.types {
			params = append(params, e.typ(t))
			targs = append(targs, e.typ(t))
		}
		var arg jen.Code = jen.Id(n.name)
		if yt := n.yieldType; yt != nil {
			arg = e.typ(yt).Call(jen.Id(n.name))
		}
		adapter := jen.Func().Params(jen.Id(n.name).Func().Params(params...).Bool()).Block(
			jen.Add(r.varExpr(n.uses[0])).Call(arg),
		)
		pull := e.gq(cogenrtPath, fmt.Sprintf("Pull%d", n.arity))
		if len(targs) > 0 {
			pull = pull.Types(targs...)
		}
		return jen.Add(def(0)).Op("=").Add(pull).Call(adapter)
	case synthPullNext:
		return jen.List(def(0), def(1), def(2)).Op("=").Add(r.varExpr(n.uses[0])).Dot("Next").Call()
	case synthStop:
		return stopCall(r, n.uses[0])
	case synthDecodeStr:
		s, i := r.varExpr(n.uses[0]), r.varExpr(n.uses[1])
		return jen.List(def(0), def(1)).Op("=").Add(e.gq("unicode/utf8", "DecodeRuneInString")).Call(jen.String().Call(jen.Add(s).Index(i, jen.Empty())))
	}
	panic("cogen: internal error: unknown synthetic node")
}

package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"math/bits"
)

// Liveness decides which variables become frame fields: those live across
// a suspension (at the start of a suspending block, where the call is
// retried, and at the return point of a child call), plus parameters,
// results and child frames. Everything else stays a local of Step.
//
// A write to an address-taken variable does not end the life of its
// previous value (it may be read through a pointer), so for those every
// mention counts as a use. A boxed variable is a pointer that each run of
// its declaration replaces; mentions use the pointer.

type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) clear(i int)    { b[i/64] &^= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) or(c bitset) {
	for i := range b {
		b[i] |= c[i]
	}
}
func (b bitset) copyFrom(c bitset) { copy(b, c) }
func (b bitset) equal(c bitset) bool {
	for i := range b {
		if b[i] != c[i] {
			return false
		}
	}
	return true
}
func (b bitset) each(f func(int)) {
	for i, w := range b {
		for w != 0 {
			j := bits.TrailingZeros64(w)
			f(i*64 + j)
			w &^= 1 << j
		}
	}
}

// resolve returns the variable an identifier names, if any.
func (p *plan) resolve(id *ast.Ident) *variable {
	if id.Name == "_" {
		return nil
	}
	if v := p.synth[id]; v != nil {
		return v
	}
	if obj := p.info.Uses[id]; obj != nil {
		return p.objVars[obj]
	}
	if obj := p.info.Defs[id]; obj != nil {
		return p.objVars[obj]
	}
	return nil
}

// refs lists the variables n mentions (function literals included).
func (p *plan) refs(n ast.Node, out []*variable) []*variable {
	if n == nil {
		return out
	}
	ast.Inspect(n, func(c ast.Node) bool {
		switch c := c.(type) {
		case *ast.Ident:
			if v := p.resolve(c); v != nil && v.kind != kConst {
				out = append(out, v)
			}
		case *ast.SelectorExpr:
			// The selected name is never a variable of the function.
			ast.Inspect(c.X, func(d ast.Node) bool {
				if id, ok := d.(*ast.Ident); ok {
					if v := p.resolve(id); v != nil && v.kind != kConst {
						out = append(out, v)
					}
				}
				return true
			})
			return false
		case *ast.KeyValueExpr:
			if id, ok := c.Key.(*ast.Ident); ok {
				if _, field := p.info.Uses[id].(*types.Var); field && p.info.Uses[id].(*types.Var).IsField() {
					out = p.refs(c.Value, out)
					return false
				}
			}
		}
		return true
	})
	return out
}

// killable reports whether assigning to v ends the life of its old value.
func killable(v *variable) bool { return v != nil && !v.addrTaken && !v.boxed && v.kind != kConst }

// assignDefs splits the targets of an assignment into killed variables and
// mentioned ones.
func (p *plan) assignDefs(targets []ast.Expr, box []*variable, uses, defs []*variable) ([]*variable, []*variable) {
	boxed := map[*variable]bool{}
	for _, v := range box {
		boxed[v] = true
		defs = append(defs, v)
	}
	for _, t := range targets {
		if t == nil {
			continue
		}
		if id, ok := t.(*ast.Ident); ok {
			v := p.resolve(id)
			switch {
			case v == nil, boxed[v]:
			case killable(v):
				defs = append(defs, v)
			default:
				uses = append(uses, v)
			}
			continue
		}
		uses = p.refs(t, uses)
	}
	return uses, defs
}

// useDef returns what a node reads before it writes, and what it writes.
func (p *plan) useDef(n node) (uses, defs []*variable) {
	switch n := n.(type) {
	case *stmtNode:
		if as, ok := n.stmt.(*ast.AssignStmt); ok && n.nested == nil && as.Tok == token.ASSIGN {
			for _, e := range as.Rhs {
				uses = p.refs(e, uses)
			}
			return p.assignDefs(as.Lhs, nil, uses, nil)
		}
		return p.refs(n.stmt, nil), nil
	case *boxNode:
		return nil, []*variable{n.v}
	case *zeroNode:
		if killable(n.v) {
			return nil, []*variable{n.v}
		}
		return []*variable{n.v}, nil
	case *reboxNode:
		return []*variable{n.v}, []*variable{n.v}
	case *suspendNode:
		uses = p.refs(n.call, nil)
		return p.assignDefs(n.targets, n.box, uses, nil)
	case *resultNode:
		return p.assignDefs(n.targets, n.box, []*variable{n.child}, nil)
	case *synthNode:
		for _, v := range n.defs {
			if v != nil {
				defs = append(defs, v)
			}
		}
		return n.uses, defs
	}
	panic("cogen: internal error: unknown node")
}

// termUses returns what a terminator reads.
func (p *plan) termUses(t term) []*variable {
	var uses []*variable
	switch t := t.(type) {
	case *jumpTerm:
		uses = append(uses, t.stops...)
	case *branchTerm:
		uses = p.refs(t.cond, nil)
	case *switchTerm:
		uses = p.refs(t.tag, nil)
		for _, c := range t.clauses {
			for _, e := range c.exprs {
				uses = p.refs(e, uses)
			}
		}
	case *typeSwitchTerm:
		uses = p.refs(t.x, nil)
	case *returnTerm:
		uses = append(uses, t.stops...)
		uses = append(uses, p.results...)
	case *callTerm:
		for _, a := range t.args {
			uses = p.refs(a, uses)
		}
	}
	return uses
}

// edges returns the successors of a terminator, with the variable (if any)
// the edge itself defines.
func edges(t term) (succs []*block, defs []*variable) {
	switch t := t.(type) {
	case *jumpTerm:
		return []*block{t.to}, []*variable{nil}
	case *branchTerm:
		return []*block{t.then, t.els}, []*variable{nil, nil}
	case *switchTerm:
		succs = append(succs, t.dflt)
		for _, c := range t.clauses {
			succs = append(succs, c.to)
		}
		return succs, make([]*variable, len(succs))
	case *typeSwitchTerm:
		for _, c := range append(append([]typeCase{}, t.clauses...), t.dflt) {
			succs = append(succs, c.to)
			defs = append(defs, c.v)
		}
		return succs, defs
	case *callTerm:
		return []*block{t.next}, []*variable{nil}
	}
	return nil, nil
}

func liveness(p *plan) {
	n := len(p.vars)
	type nodeInfo struct{ uses, defs []*variable }
	infos := make([][]nodeInfo, len(p.blocks))
	for i, b := range p.blocks {
		for _, nd := range b.nodes {
			u, d := p.useDef(nd)
			infos[i] = append(infos[i], nodeInfo{u, d})
		}
		b.liveIn, b.liveOut = newBitset(n), newBitset(n)
	}
	var live bitset
	for changed := true; changed; {
		changed = false
		for i := len(p.blocks) - 1; i >= 0; i-- {
			b := p.blocks[i]
			live = newBitset(n)
			succs, edefs := edges(b.term)
			for j, s := range succs {
				in := newBitset(n)
				in.copyFrom(s.liveIn)
				if v := edefs[j]; v != nil && (killable(v) || v.boxed) {
					in.clear(edefs[j].id)
				}
				live.or(in)
			}
			b.liveOut.copyFrom(live)
			for _, v := range p.termUses(b.term) {
				live.set(v.id)
			}
			for k := len(b.nodes) - 1; k >= 0; k-- {
				if sn, ok := b.nodes[k].(*stmtNode); ok && sn.nested != nil {
					for _, t := range sn.nested.targets {
						live.or(t.liveIn)
					}
				}
				for _, v := range infos[i][k].defs {
					live.clear(v.id)
				}
				for _, v := range infos[i][k].uses {
					live.set(v.id)
				}
			}
			if !live.equal(b.liveIn) {
				b.liveIn.copyFrom(live)
				changed = true
			}
		}
	}
	for _, v := range p.vars {
		switch v.kind {
		case kParam, kResult, kChild:
			v.field = true
		}
	}
	mark := func(bs bitset) {
		bs.each(func(i int) { p.vars[i].field = true })
	}
	for _, b := range p.blocks {
		if b.suspend {
			mark(b.liveIn)
		}
		if ct, ok := b.term.(*callTerm); ok {
			mark(ct.next.liveIn)
		}
	}
	for _, v := range p.vars {
		if v.kind == kConst {
			v.field = false
		}
	}
}

// shareFields lets frame fields of the same type share storage when their
// values are never live at the same time (like register allocation, with
// fields as registers), so that a frame holds at most the values live at
// once. Parameters, results, child frames and variables whose address is
// taken keep a field of their own.
func shareFields(p *plan) {
	eligible := func(v *variable) bool {
		return v != nil && v.field && (v.kind == kLocal || v.kind == kTemp) && !v.addrTaken && !v.boxed && !v.pinned
	}
	n := len(p.vars)
	conflict := make([]bitset, n)
	for i := range conflict {
		conflict[i] = newBitset(n)
	}
	mark := func(d *variable, live bitset) {
		if !eligible(d) {
			return
		}
		live.each(func(i int) {
			if i != d.id && eligible(p.vars[i]) {
				conflict[d.id].set(i)
				conflict[i].set(d.id)
			}
		})
	}
	for _, b := range p.blocks {
		live := newBitset(n)
		succs, edefs := edges(b.term)
		for j, s := range succs {
			live.or(s.liveIn)
			if edefs[j] != nil {
				mark(edefs[j], s.liveIn)
			}
		}
		for _, v := range p.termUses(b.term) {
			live.set(v.id)
		}
		for k := len(b.nodes) - 1; k >= 0; k-- {
			nd := b.nodes[k]
			if sn, ok := nd.(*stmtNode); ok && sn.nested != nil {
				for _, t := range sn.nested.targets {
					live.or(t.liveIn)
				}
			}
			uses, defs := p.useDef(nd)
			for _, d := range defs {
				mark(d, live)
			}
			// A copy between two variables must not become a self-assignment.
			if sn, ok := nd.(*stmtNode); ok && sn.nested == nil {
				if as, ok := sn.stmt.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
					for i := range as.Lhs {
						a, _ := ast.Unparen(as.Lhs[i]).(*ast.Ident)
						c, _ := ast.Unparen(as.Rhs[i]).(*ast.Ident)
						if a != nil && c != nil {
							if va, vc := p.resolve(a), p.resolve(c); eligible(va) && eligible(vc) && va != vc {
								conflict[va.id].set(vc.id)
								conflict[vc.id].set(va.id)
							}
						}
					}
				}
			}
			// Values defined together must not share either.
			for _, d := range defs {
				for _, e := range defs {
					if d != e && eligible(d) && eligible(e) {
						conflict[d.id].set(e.id)
					}
				}
			}
			for _, d := range defs {
				live.clear(d.id)
			}
			for _, u := range uses {
				live.set(u.id)
			}
		}
	}
	var slots []*variable
	for _, v := range p.vars {
		if !eligible(v) {
			continue
		}
		placed := false
		for _, s := range slots {
			if !types.Identical(s.typ, v.typ) {
				continue
			}
			free := true
			for _, w := range p.vars {
				if (w == s || w.shares == s) && conflict[v.id].has(w.id) {
					free = false
					break
				}
			}
			if free {
				v.shares = s
				v.name = s.name
				placed = true
				break
			}
		}
		if !placed {
			slots = append(slots, v)
		}
	}
}

package gen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Branches: break, continue, goto and return, at the lowered level and
// inside statements copied whole.

func (l *lowerer) stopsAll() []*variable {
	var stops []*variable
	for c := l.ctx; c != nil; c = c.parent {
		if c.stop != nil {
			stops = append(stops, c.stop)
		}
	}
	return stops
}

// stopsUntil lists the iterators a jump from pos to target leaves: those of
// the range-over-func loops around pos that do not contain the target.
func (l *lowerer) stopsUntil(target *jctx) []*variable {
	var stops []*variable
	for c := l.ctx; c != nil && c != target; c = c.parent {
		if c.stop != nil {
			stops = append(stops, c.stop)
		}
	}
	return stops
}

func (l *lowerer) stopsForGoto(labelPos token.Pos) []*variable {
	var stops []*variable
	for c := l.ctx; c != nil; c = c.parent {
		if c.stop != nil && !(c.body.Pos() <= labelPos && labelPos < c.body.End()) {
			stops = append(stops, c.stop)
		}
	}
	return stops
}

// branch lowers break, continue and goto at the lowered level.
func (l *lowerer) branch(s *ast.BranchStmt) {
	j, ok := l.resolveBranch(s)
	if !ok {
		return
	}
	l.setTerm(&jumpTerm{j})
}

// resolveBranch finds where a branch statement goes.
func (l *lowerer) resolveBranch(s *ast.BranchStmt) (jump, bool) {
	switch s.Tok {
	case token.GOTO:
		b := l.labelBlock(s.Label.Name)
		return jump{to: b, stops: l.stopsForGoto(l.labelPos(s.Label))}, true
	case token.BREAK, token.CONTINUE:
		for c := l.ctx; c != nil; c = c.parent {
			if s.Label != nil && c.label != s.Label.Name {
				continue
			}
			if s.Tok == token.CONTINUE {
				if c.cont == nil {
					continue
				}
				return jump{to: c.cont, stops: l.stopsUntil(c)}, true
			}
			return jump{to: c.brk, stops: l.stopsUntil(c)}, true
		}
	case token.FALLTHROUGH:
		l.errorf(s.Pos(), "internal error: misplaced fallthrough")
		return jump{}, false
	}
	l.errorf(s.Pos(), "internal error: cannot resolve %s", s.Tok)
	return jump{}, false
}

func (l *lowerer) labelPos(id *ast.Ident) token.Pos {
	if obj := l.info.Uses[id]; obj != nil {
		return obj.Pos()
	}
	return id.Pos()
}

// nested keeps a statement without suspension points whole, and records
// where the branches and returns that leave it go.
func (l *lowerer) nested(s ast.Stmt, label string) {
	info := &nestedInfo{jumps: map[*ast.BranchStmt]jump{}, returns: map[*ast.ReturnStmt][]*variable{}, exits: map[*ast.ReturnStmt]*block{}}
	inside := map[string]bool{}
	ast.Inspect(s, func(n ast.Node) bool {
		if ls, ok := n.(*ast.LabeledStmt); ok {
			inside[ls.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	if label != "" {
		inside[label] = true
	}
	// rf: the walk is inside a range-over-func loop of s. Go runs such a
	// loop's iterator function to its end before control leaves the loop,
	// so a jump or return out of it first changes state, then stops the
	// suspending loops' iterators and runs the frame's deferred calls
	// (exit blocks), not inside the copied body.
	var walk func(n ast.Node, brk, cont, rf bool)
	walk = func(n ast.Node, brk, cont, rf bool) {
		switch n := n.(type) {
		case nil:
			return
		case *ast.FuncLit:
			return
		case *ast.RangeStmt:
			brk, cont = true, true
			if _, ok := coreType(l.typeOf(n.X)).(*types.Signature); ok {
				rf = true
			}
		case *ast.ForStmt:
			brk, cont = true, true
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			brk = true
		case *ast.BranchStmt:
			native := false
			switch n.Tok {
			case token.BREAK:
				native = (n.Label == nil && brk) || (n.Label != nil && inside[n.Label.Name])
			case token.CONTINUE:
				native = (n.Label == nil && cont) || (n.Label != nil && inside[n.Label.Name])
			case token.GOTO:
				native = inside[n.Label.Name]
			case token.FALLTHROUGH:
				native = true
			}
			if !native {
				if j, ok := l.resolveBranch(n); ok {
					if rf && len(j.stops) > 0 {
						j = jump{to: l.exitBlock(&jumpTerm{j})}
					}
					info.jumps[n] = j
					info.targets = append(info.targets, j.to)
					l.p.dispatch = true
				}
			}
			return
		case *ast.ReturnStmt:
			if rf {
				b := l.exitBlock(&returnTerm{stops: l.stopsAll()})
				info.exits[n] = b
				info.targets = append(info.targets, b)
				l.p.dispatch = true
			} else {
				info.returns[n] = l.stopsAll()
			}
		}
		for _, c := range children(n) {
			walk(c, brk, cont, rf)
		}
	}
	walk(s, false, false, false)
	if label != "" {
		// The label stays on the statement only if something inside uses it.
		used := false
		ast.Inspect(s, func(n ast.Node) bool {
			if bs, ok := n.(*ast.BranchStmt); ok && bs.Label != nil && bs.Label.Name == label {
				if _, out := info.jumps[bs]; !out {
					used = true
				}
			}
			return true
		})
		if used {
			s = &ast.LabeledStmt{Label: ast.NewIdent(label), Stmt: s}
		}
	}
	l.emit(&stmtNode{stmt: s, pos: s.Pos(), nested: info})
	if l.endsFlow(s, info.jumps) {
		l.setTerm(&unreachableTerm{})
	}
}

// exitBlock returns a new block that only ends with t.
func (l *lowerer) exitBlock(t term) *block {
	b := l.newBlock()
	b.term = t
	return b
}

// thread redirects jumps to empty blocks that only jump on, so that the
// generated switch has fewer states.
func thread(p *plan) {
	target := func(b *block) *block {
		for n := 0; n < len(p.blocks) && b.index != 0 && len(b.nodes) == 0 && !b.suspend; n++ {
			j, ok := b.term.(*jumpTerm)
			if !ok || len(j.stops) > 0 {
				break
			}
			b = j.to
		}
		return b
	}
	for _, b := range p.blocks {
		switch t := b.term.(type) {
		case *jumpTerm:
			t.to = target(t.to)
		case *branchTerm:
			t.then, t.els = target(t.then), target(t.els)
		case *switchTerm:
			t.dflt = target(t.dflt)
			for i := range t.clauses {
				t.clauses[i].to = target(t.clauses[i].to)
			}
		case *typeSwitchTerm:
			t.dflt.to = target(t.dflt.to)
			for i := range t.clauses {
				t.clauses[i].to = target(t.clauses[i].to)
			}
		}
		for _, n := range b.nodes {
			sn, ok := n.(*stmtNode)
			if !ok || sn.nested == nil {
				continue
			}
			for k, j := range sn.nested.jumps {
				j.to = target(j.to)
				sn.nested.jumps[k] = j
			}
			for i, t := range sn.nested.targets {
				sn.nested.targets[i] = target(t)
			}
		}
	}
}

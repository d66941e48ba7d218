package gen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Unreachable code. A statement copied whole into a state is rendered with
// its branches that leave it turned into changes of state (continue of the
// dispatch loop) and its returns into returns from Step. When such a
// statement cannot complete normally, nothing may follow it in the
// generated state: go vet reports unreachable code. endsFlow decides that
// with the same rules as vet's unreachable pass, applied to the statement
// as it will be rendered, so that the generated code never has a statement
// vet calls dead and never lacks one that control can reach.

// endsFlow reports whether control cannot reach the end of s as it is
// rendered; jumps are the branch statements that leave s (nil if none).
func (l *lowerer) endsFlow(s ast.Stmt, jumps map[*ast.BranchStmt]jump) bool {
	d := &flow{info: l.info, jumps: jumps, hasBreak: map[ast.Stmt]bool{}, hasGoto: map[string]bool{}, labels: map[string]ast.Stmt{}, reachable: true}
	d.findLabels(s)
	d.findDead(s)
	return !d.reachable
}

type flow struct {
	info        *types.Info
	jumps       map[*ast.BranchStmt]jump
	hasBreak    map[ast.Stmt]bool
	hasGoto     map[string]bool
	labels      map[string]ast.Stmt
	breakTarget ast.Stmt
	reachable   bool
}

// findLabels records the labels, the gotos and the statements that native
// breaks (those that stay breaks in the rendering) leave.
func (d *flow) findLabels(s ast.Stmt) {
	switch x := s.(type) {
	case *ast.BlockStmt:
		for _, s := range x.List {
			d.findLabels(s)
		}
	case *ast.BranchStmt:
		if _, out := d.jumps[x]; out {
			return
		}
		switch x.Tok {
		case token.GOTO:
			if x.Label != nil {
				d.hasGoto[x.Label.Name] = true
			}
		case token.BREAK:
			target := d.breakTarget
			if x.Label != nil {
				target = d.labels[x.Label.Name]
			}
			if target != nil {
				d.hasBreak[target] = true
			}
		}
	case *ast.IfStmt:
		d.findLabels(x.Body)
		if x.Else != nil {
			d.findLabels(x.Else)
		}
	case *ast.LabeledStmt:
		d.labels[x.Label.Name] = x.Stmt
		d.findLabels(x.Stmt)
	case *ast.ForStmt:
		d.inBreakable(x, x.Body)
	case *ast.RangeStmt:
		d.inBreakable(x, x.Body)
	case *ast.SelectStmt:
		d.inBreakable(x, x.Body)
	case *ast.SwitchStmt:
		d.inBreakable(x, x.Body)
	case *ast.TypeSwitchStmt:
		d.inBreakable(x, x.Body)
	case *ast.CommClause:
		for _, s := range x.Body {
			d.findLabels(s)
		}
	case *ast.CaseClause:
		for _, s := range x.Body {
			d.findLabels(s)
		}
	}
}

func (d *flow) inBreakable(s ast.Stmt, body *ast.BlockStmt) {
	outer := d.breakTarget
	d.breakTarget = s
	d.findLabels(body)
	d.breakTarget = outer
}

// findDead walks s; on return, reachable tells whether the statement after
// s is reachable.
func (d *flow) findDead(s ast.Stmt) {
	if x, ok := s.(*ast.LabeledStmt); ok && d.hasGoto[x.Label.Name] {
		d.reachable = true
	}
	if !d.reachable {
		d.reachable = true // the source is vet-clean: control reaches it another way
	}
	switch x := s.(type) {
	case *ast.BlockStmt:
		for _, s := range x.List {
			d.findDead(s)
		}
	case *ast.BranchStmt:
		// break, goto, fallthrough and continue end the flow, and so do
		// the jumps that leave the statement (a continue of the dispatch
		// loop once rendered).
		d.reachable = false
	case *ast.ExprStmt:
		if isPanicCall(d.info, x.X) {
			d.reachable = false
		}
	case *ast.ForStmt:
		d.findDead(x.Body)
		d.reachable = x.Cond != nil || d.hasBreak[x]
	case *ast.IfStmt:
		d.findDead(x.Body)
		if x.Else != nil {
			r := d.reachable
			d.reachable = true
			d.findDead(x.Else)
			d.reachable = d.reachable || r
		} else {
			d.reachable = true
		}
	case *ast.LabeledStmt:
		d.findDead(x.Stmt)
	case *ast.RangeStmt:
		d.findDead(x.Body)
		d.reachable = true
	case *ast.ReturnStmt:
		d.reachable = false
	case *ast.SelectStmt:
		any := false
		for _, c := range x.Body.List {
			d.reachable = true
			for _, s := range c.(*ast.CommClause).Body {
				d.findDead(s)
			}
			any = any || d.reachable
		}
		d.reachable = any || d.hasBreak[x]
	case *ast.SwitchStmt:
		d.reachable = d.clausesReach(x.Body) || d.hasBreak[x]
	case *ast.TypeSwitchStmt:
		d.reachable = d.clausesReach(x.Body) || d.hasBreak[x]
	}
}

// clausesReach reports whether control can leave a switch through the end
// of one of its clauses or for want of a default clause.
func (d *flow) clausesReach(body *ast.BlockStmt) bool {
	any, hasDefault := false, false
	for _, c := range body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			hasDefault = true
		}
		d.reachable = true
		for _, s := range cc.Body {
			d.findDead(s)
		}
		any = any || d.reachable
	}
	return any || !hasDefault
}

// isPanicCall reports whether e is a call of the builtin panic written as
// vet recognises it (not parenthesized).
func isPanicCall(info *types.Info, e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "panic"
}

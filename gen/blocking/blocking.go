package blocking

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/cogen-go/cogen/gen/internal/handle"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

//go:embed doc.go
var doc string

// Analyzer reports waits in Go's scheduler in coroutine code, with fixes
// where cogen accepts their result. Its documentation is the package's
// (doc.go is the single source of both).
var Analyzer = &analysis.Analyzer{
	Name: "blocking",
	Doc:  analyzerDoc(doc, "blocking"),
	URL:  "https://pkg.go.dev/github.com/cogen-go/cogen/gen/blocking",
	Run:  run,
}

// Category is the Category of the analyzer's diagnostics.
const Category = "blocking"

// analyzerDoc extracts the section "# Analyzer name" of a doc.go file's
// package comment, as x/tools' analyzers do with their internal helper:
// its first line is the title, the rest the description. It panics if the
// section is missing, so a doc.go edit that loses it fails every test.
func analyzerDoc(src, name string) string {
	var lines []string
	in := false
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(l, "//") {
			if in {
				break
			}
			continue
		}
		text := strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
		if strings.HasPrefix(text, "# ") {
			if in {
				break
			}
			in = text == "# Analyzer "+name
			continue
		}
		if in {
			lines = append(lines, text)
		}
	}
	out := strings.TrimSpace(strings.Join(lines, "\n"))
	if out == "" {
		panic("blocking: doc.go has no section # Analyzer " + name)
	}
	return out
}

// blockingDirective on a line, or on the line above it, says that the code
// there blocks on purpose (a test of stall detection, say): the check is
// silent about it.
const blockingDirective = "//co:blocking"

// stacklessDirective marks the functions cogen rewrites.
const stacklessDirective = "//co:stackless"

var (
	waitingMethods = handle.WaitingMethods
	isCoType       = handle.IsCo
)

// A blockingRule describes a call that blocks in Go's scheduler: what to use
// instead, and how a fix rewrites the call, if one can.
type blockingRule struct {
	instead string
	fix     blockingFix
}

type blockingFix int

const (
	noFix        blockingFix = iota
	fixSleep                 // time.Sleep(d) → co.Sleep(d)
	fixOffload               // x.M() → co.Offload(x.M); f(args) → co.Offload(func() { f(args) })
	fixConetDial             // net.Dial(...) → conet.Dial(...)
)

const conetPath = "github.com/cogen-go/cogen/runtime/stackful/conet"

// blockingCalls are the well-known calls that wait in Go's scheduler, by
// types.Func.FullName.
var blockingCalls = map[string]blockingRule{
	"time.Sleep":                    {"co.Sleep", fixSleep},
	"(*sync.WaitGroup).Wait":        {"cosync.WaitGroup (wg.Wait(co)), or co.Offload", fixOffload},
	"(*sync.Cond).Wait":             {"stackful.Cond (co.Wait(c, -1)) or a cosync primitive", noFix},
	"net.Dial":                      {"conet.Dial", fixConetDial},
	"net.DialTimeout":               {"conet.DialTimeout", fixConetDial},
	"(*net.Dialer).Dial":            {"conet.Dialer", noFix},
	"(*net.Dialer).DialContext":     {"conet.Dialer", noFix},
	"net.Listen":                    {"conet.Listen", fixConetDial},
	"(*os/exec.Cmd).Run":            {"co.Offload", fixOffload},
	"(*os/exec.Cmd).Wait":           {"co.Offload", fixOffload},
	"(*os/exec.Cmd).Output":         {"co.Offload", fixOffload},
	"(*os/exec.Cmd).CombinedOutput": {"co.Offload", fixOffload},
	"net/http.Get":                  {"a client whose transport dials with conet.Dialer, or co.Offload", noFix},
	"net/http.Head":                 {"a client whose transport dials with conet.Dialer, or co.Offload", noFix},
	"net/http.Post":                 {"a client whose transport dials with conet.Dialer, or co.Offload", noFix},
	"net/http.PostForm":             {"a client whose transport dials with conet.Dialer, or co.Offload", noFix},
	"(*golang.org/x/sync/semaphore.Weighted).Acquire": {"cosync.Semaphore (s.Acquire(co, n))", noFix},
	"(*golang.org/x/sync/errgroup.Group).Wait":        {"cosync.WaitGroup, or co.Offload", noFix},
	// File I/O: a disk (or a pipe, a FIFO, a network file system) makes
	// the thread wait in the kernel, the loop's thread with it.
	"os.ReadFile":            {"co.Offload", fixOffload},
	"os.WriteFile":           {"co.Offload", fixOffload},
	"os.ReadDir":             {"co.Offload", fixOffload},
	"os.Open":                {"co.Offload", fixOffload},
	"os.Create":              {"co.Offload", fixOffload},
	"os.OpenFile":            {"co.Offload", fixOffload},
	"os.Remove":              {"co.Offload", fixOffload},
	"os.RemoveAll":           {"co.Offload", fixOffload},
	"os.Rename":              {"co.Offload", fixOffload},
	"os.Mkdir":               {"co.Offload", fixOffload},
	"os.MkdirAll":            {"co.Offload", fixOffload},
	"os.Stat":                {"co.Offload", fixOffload},
	"os.Lstat":               {"co.Offload", fixOffload},
	"(*os.File).Read":        {"co.Offload", fixOffload},
	"(*os.File).Write":       {"co.Offload", fixOffload},
	"(*os.File).ReadAt":      {"co.Offload", fixOffload},
	"(*os.File).WriteAt":     {"co.Offload", fixOffload},
	"(*os.File).ReadFrom":    {"co.Offload", fixOffload},
	"(*os.File).WriteString": {"co.Offload", fixOffload},
	"(*os.File).Sync":        {"co.Offload", fixOffload},
	"(*os.File).ReadDir":     {"co.Offload", fixOffload},
}

// lockCalls are the sync locks. Locking one briefly in a coroutine is
// harmless (the holder, another goroutine or a coroutine of another env,
// lets go soon), so they are reported only when held across a suspension:
// then a coroutine of the same env that locks it waits in Go's scheduler for
// a holder that cannot run until the env does, and the env hangs for good.
var lockCalls = map[string]string{
	"(*sync.Mutex).Lock":    "cosync.Mutex (mu.Lock(co))",
	"(*sync.RWMutex).Lock":  "cosync.RWMutex (mu.Lock(co))",
	"(*sync.RWMutex).RLock": "cosync.RWMutex (mu.RLock(co))",
}

// runtimePrefix is where the runtime packages are: their own files implement
// the waiting and are not checked (their tests are).
const runtimePrefix = "github.com/cogen-go/cogen/runtime/"

// run reports what blocks in Go's scheduler in coroutine code: the bodies
// of //co:stackless functions and of every function, method or function
// literal with a *stackful.Co parameter. A function literal inside is not
// its coroutine's code unless it has the handle as a parameter too: it may
// run on another goroutine (go statements, co.Offload) or not at all.
func run(pass *analysis.Pass) (any, error) {
	for _, file := range pass.Files {
		name := pass.Fset.Position(file.Package).Filename
		if ast.IsGenerated(file) || strings.HasPrefix(pass.Pkg.Path(), runtimePrefix) && !strings.HasSuffix(name, "_test.go") {
			continue
		}
		b := &blockingChecker{pass: pass, file: file, allowed: blockingAllowed(pass, file)}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && isMarked(fd) {
				b.hasMarked = true
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body == nil {
					return false
				}
				if co := handleParam(pass, n.Type); co != nil {
					b.marked = isMarked(n)
					b.check(n.Body, co)
					b.marked = false
				}
			case *ast.FuncLit:
				if co := handleParam(pass, n.Type); co != nil {
					b.check(n.Body, co)
				}
			}
			return true
		})
	}
	return nil, nil
}

// isMarked reports whether a function's doc comment has the //co:stackless
// directive: cogen rewrites it, so a fix there must leave code cogen
// accepts.
func isMarked(fd *ast.FuncDecl) bool {
	if fd.Doc == nil {
		return false
	}
	for _, c := range fd.Doc.List {
		if c.Text == stacklessDirective || strings.HasPrefix(c.Text, stacklessDirective+" ") {
			return true
		}
	}
	return false
}

// handleParam returns the first *stackful.Co parameter of a function type.
func handleParam(pass *analysis.Pass, ft *ast.FuncType) *types.Var {
	for _, field := range ft.Params.List {
		for _, name := range field.Names {
			if v, ok := pass.TypesInfo.Defs[name].(*types.Var); ok && isCoType(v.Type()) {
				return v
			}
		}
		if len(field.Names) == 0 && isCoType(pass.TypesInfo.TypeOf(field.Type)) {
			return types.NewVar(token.NoPos, nil, "_", pass.TypesInfo.TypeOf(field.Type))
		}
	}
	return nil
}

// blockingAllowed returns the lines of file marked //co:blocking: the line
// of the comment and the one below it.
func blockingAllowed(pass *analysis.Pass, file *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, cg := range file.Comments {
		for _, c := range cg.List {
			if c.Text == blockingDirective || strings.HasPrefix(c.Text, blockingDirective+" ") {
				line := pass.Fset.Position(c.Pos()).Line
				lines[line] = true
				lines[line+1] = true
			}
		}
	}
	return lines
}

type blockingChecker struct {
	pass    *analysis.Pass
	file    *ast.File
	allowed map[int]bool
	// hasMarked: the file has //co:stackless functions, so a fix that
	// moves its lines makes their generated file stale.
	hasMarked bool
	// marked: the function being checked is //co:stackless (a function
	// literal in it is checked with its own handle, never marked).
	marked bool
}

// check walks one coroutine body whose handle is co.
func (b *blockingChecker) check(body *ast.BlockStmt, co *types.Var) {
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // not this coroutine's code (see checkBlocking)
		case *ast.SelectStmt:
			hasDefault := false
			for _, cc := range n.Body.List {
				if cc.(*ast.CommClause).Comm == nil {
					hasDefault = true
				}
			}
			if !hasDefault {
				b.report(n.Pos(), n.Pos()+token.Pos(len("select")), "a Go select waits in Go's scheduler", "cosync.Select(co, ...) over cosync.Chan cases", nil)
			}
			// The cases' operations are the select's, which either blocks as
			// a whole (reported) or not at all (default); their operands and
			// bodies are walked.
			for _, cc := range n.Body.List {
				cc := cc.(*ast.CommClause)
				switch s := cc.Comm.(type) {
				case *ast.SendStmt:
					ast.Inspect(s.Chan, walk)
					ast.Inspect(s.Value, walk)
				case *ast.ExprStmt:
					ast.Inspect(unparen(s.X).(*ast.UnaryExpr).X, walk)
				case *ast.AssignStmt:
					ast.Inspect(unparen(s.Rhs[0]).(*ast.UnaryExpr).X, walk)
				}
				for _, st := range cc.Body {
					ast.Inspect(st, walk)
				}
			}
			return false
		case *ast.SendStmt:
			if b.bufferedVar(n.Chan) {
				return true
			}
			b.report(n.Pos(), n.End(), "a send on a Go channel waits in Go's scheduler", "cosync.Chan (ch.Send(co, v))", nil)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				b.report(n.Pos(), n.End(), "a receive from a Go channel waits in Go's scheduler", "cosync.Chan (ch.Recv(co))", nil)
			}
		case *ast.ExprStmt:
			// <-time.After(d) as a statement is a sleep.
			if u, ok := unparen(n.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				if call, ok := unparen(u.X).(*ast.CallExpr); ok && b.callee(call) == "time.After" && co.Name() != "_" {
					fix := b.replace(u.Pos(), u.End(), fmt.Sprintf("%s.Sleep(%s)", co.Name(), b.src(call.Args[0])), "Use "+co.Name()+".Sleep")
					b.report(u.Pos(), u.End(), "<-time.After(d) waits in Go's scheduler", co.Name()+".Sleep(d)", fix)
					ast.Inspect(call, walk)
					return false
				}
			}
		case *ast.RangeStmt:
			if t, ok := types.Unalias(b.pass.TypesInfo.TypeOf(n.X)).Underlying().(*types.Chan); ok && t != nil {
				b.report(n.Pos(), n.X.End(), "range over a Go channel waits in Go's scheduler", "cosync.Chan (v, ok := ch.Recv(co) in a loop)", nil)
			}
		case *ast.CallExpr:
			b.call(n, co)
		case *ast.BlockStmt:
			b.locks(n.List, co)
		case *ast.CaseClause:
			b.locks(n.Body, co)
		case *ast.CommClause:
			b.locks(n.Body, co)
		}
		return true
	}
	ast.Inspect(body, walk)
}

// locks reports the sync locks of a statement list that are held across a
// suspension: a statement after the Lock, before the Unlock of the same
// lock in the list (or to its end, after a deferred Unlock), that suspends.
func (b *blockingChecker) locks(list []ast.Stmt, co *types.Var) {
	for i, st := range list {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := unparen(es.X).(*ast.CallExpr)
		if !ok {
			continue
		}
		instead, ok := lockCalls[b.callee(call)]
		if !ok {
			continue
		}
		lock := b.src(unparen(call.Fun).(*ast.SelectorExpr).X)
		for _, next := range list[i+1:] {
			if b.unlocks(next, lock) {
				break
			}
			if pos := b.suspends(next, co); pos.IsValid() {
				what := fmt.Sprintf("%s is held across a suspension (line %d): a coroutine of this env that locks it then waits in Go's scheduler", lock, b.pass.Fset.Position(pos).Line)
				b.report(call.Pos(), call.End(), what, instead, nil)
				break
			}
		}
	}
}

// unlocks reports whether st is lock.Unlock() or lock.RUnlock() (not
// deferred).
func (b *blockingChecker) unlocks(st ast.Stmt, lock string) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := unparen(es.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	return ok && (sel.Sel.Name == "Unlock" || sel.Sel.Name == "RUnlock") && b.src(sel.X) == lock
}

// suspends returns the position of a suspension point in n: a waiting
// method of the handle, or a call that passes the handle (a //co:stackless
// function, a cosync operation). Function literals are not entered.
func (b *blockingChecker) suspends(n ast.Node, co *types.Var) token.Pos {
	var at token.Pos
	ast.Inspect(n, func(n ast.Node) bool {
		if at.IsValid() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := unparen(n.Fun).(*ast.SelectorExpr); ok && waitingMethods[sel.Sel.Name] && b.isHandle(sel.X, co) {
				at = n.Pos()
			}
			for _, a := range n.Args {
				if b.isHandle(a, co) {
					at = n.Pos()
				}
			}
		}
		return true
	})
	return at
}

// bufferedVar reports whether ch is a variable defined, in this file, as
// make(chan T, n) with a constant n > 0: the idiom of a channel that hands
// results out, whose sends are not reported.
func (b *blockingChecker) bufferedVar(ch ast.Expr) bool {
	id, ok := unparen(ch).(*ast.Ident)
	if !ok {
		return false
	}
	obj := b.pass.TypesInfo.Uses[id]
	if obj == nil {
		return false
	}
	buffered := false
	check := func(name *ast.Ident, value ast.Expr) {
		if b.pass.TypesInfo.Defs[name] != obj {
			return
		}
		call, ok := unparen(value).(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return
		}
		if fn, ok := unparen(call.Fun).(*ast.Ident); !ok || fn.Name != "make" {
			return
		}
		if tv := b.pass.TypesInfo.Types[call.Args[1]]; tv.Value != nil && tv.Value.String() != "0" {
			buffered = true
		}
	}
	ast.Inspect(b.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if lid, ok := l.(*ast.Ident); ok {
						check(lid, n.Rhs[i])
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, name := range n.Names {
					check(name, n.Values[i])
				}
			}
		}
		return !buffered
	})
	return buffered
}

func (b *blockingChecker) isHandle(e ast.Expr, co *types.Var) bool {
	id, ok := unparen(e).(*ast.Ident)
	return ok && b.pass.TypesInfo.Uses[id] == co
}

// callee returns the full name of the function or method a call calls, ""
// for anything else (a func value, a conversion, a builtin, an interface
// method).
func (b *blockingChecker) callee(call *ast.CallExpr) string {
	fn, ok := typeutil.Callee(b.pass.TypesInfo, call).(*types.Func)
	if !ok {
		return ""
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) {
		return ""
	}
	return fn.FullName()
}

func (b *blockingChecker) call(call *ast.CallExpr, co *types.Var) {
	name := b.callee(call)
	rule, ok := blockingCalls[name]
	if !ok {
		return
	}
	short := strings.NewReplacer("golang.org/x/sync/", "", "os/exec", "exec", "net/http", "http", "(*", "", ")", "").Replace(name)
	what := short + " waits in Go's scheduler"
	h := co.Name()
	var fix *analysis.SuggestedFix
	switch {
	case b.marked && rule.fix == fixOffload:
		// The handle's Offload has no stackless counterpart: cogen
		// refuses it in a marked function, so no fix offers it there.
		rule.instead = "a function that is not //co:stackless, called with the handle, that runs it with co.Offload (Offload has no stackless counterpart)"
		if name == "(*sync.WaitGroup).Wait" {
			rule.instead = "cosync.WaitGroup (wg.Wait(co))"
		}
	case b.marked && rule.fix == fixConetDial:
		// conet's calls wait on the loop only in a stackful coroutine.
		rule.instead = "co.Connect on a non-blocking socket, or a function that is not //co:stackless using " + rule.instead
	case h == "_":
	case rule.fix == fixSleep:
		fix = b.replace(call.Fun.Pos(), call.Fun.End(), h+".Sleep", "Use "+h+".Sleep")
		rule.instead = h + ".Sleep"
	case rule.fix == fixOffload:
		fix = b.offloadFix(call, h)
	case rule.fix == fixConetDial:
		fix = b.conetFix(call)
	}
	b.report(call.Pos(), call.End(), what, rule.instead, fix)
}

// offloadFix runs the statement that call is the whole of, or the right
// side of, with h.Offload: x.M() becomes h.Offload(x.M), f(args) becomes
// h.Offload(func() { f(args) }), a, b = f(args) becomes
// h.Offload(func() { a, b = f(args) }), and a, b := f(args) declares the
// new variables first (var a T; var b U) if the file can name their types.
// Any other use of the call gets no fix.
func (b *blockingChecker) offloadFix(call *ast.CallExpr, h string) *analysis.SuggestedFix {
	path, _ := astutil.PathEnclosingInterval(b.file, call.Pos(), call.End())
	var stmt ast.Stmt
	inList := false // stmt is in a statement list, where declarations may go
	for i, n := range path[1:] {
		if _, ok := n.(*ast.ParenExpr); ok {
			continue
		}
		stmt, _ = n.(ast.Stmt)
		if i+2 < len(path) {
			switch path[i+2].(type) {
			case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
				inList = true
			}
		}
		break
	}
	msg := "Run it with " + h + ".Offload"
	switch s := stmt.(type) {
	case *ast.ExprStmt:
		sig, _ := typeutil.Callee(b.pass.TypesInfo, call).Type().(*types.Signature)
		if sel, ok := unparen(call.Fun).(*ast.SelectorExpr); ok && len(call.Args) == 0 && sig != nil && sig.Results().Len() == 0 {
			return b.replace(call.Pos(), call.End(), fmt.Sprintf("%s.Offload(%s)", h, b.src(sel)), msg)
		}
		return b.replace(call.Pos(), call.End(), fmt.Sprintf("%s.Offload(func() { %s })", h, b.src(call)), msg)
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 || unparen(s.Rhs[0]) != call {
			return nil
		}
		if s.Tok == token.ASSIGN {
			return b.replace(s.Pos(), s.End(), fmt.Sprintf("%s.Offload(func() { %s })", h, b.src(s)), msg)
		}
		if s.Tok != token.DEFINE || !inList {
			return nil
		}
		var decls, lhs []string
		for _, l := range s.Lhs {
			id := l.(*ast.Ident)
			lhs = append(lhs, id.Name)
			obj := b.pass.TypesInfo.Defs[id]
			if obj == nil || id.Name == "_" {
				continue // assigned, not declared here
			}
			typ, ok := b.typeString(obj.Type())
			if !ok {
				return nil
			}
			decls = append(decls, fmt.Sprintf("var %s %s", id.Name, typ))
		}
		indent := strings.Repeat("\t", b.pass.Fset.Position(s.Pos()).Column-1)
		text := ""
		for _, d := range decls {
			text += d + "\n" + indent
		}
		text += fmt.Sprintf("%s.Offload(func() { %s = %s })", h, strings.Join(lhs, ", "), b.src(call))
		return b.replace(s.Pos(), s.End(), text, msg)
	}
	return nil
}

// typeString spells t as the file can: every package it names must be
// imported by the file, under the name the file gives it.
func (b *blockingChecker) typeString(t types.Type) (string, bool) {
	names := map[string]string{}
	for _, imp := range b.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch {
		case imp.Name != nil:
			names[p] = imp.Name.Name
		default:
			for _, q := range b.pass.Pkg.Imports() {
				if q.Path() == p {
					names[p] = q.Name()
				}
			}
		}
	}
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == b.pass.Pkg {
			return ""
		}
		n, found := names[p.Path()]
		if !found || n == "_" || n == "." {
			ok = false
		}
		return n
	})
	return s, ok
}

// conetFix rewrites pkg.F(...) of package net into conet.F(...), importing
// conet if the file does not.
func (b *blockingChecker) conetFix(call *ast.CallExpr) *analysis.SuggestedFix {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	name := "conet"
	var edits []analysis.TextEdit
	imported := false
	for _, imp := range b.file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == conetPath {
			imported = true
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if !imported {
		if b.file.Scope != nil && b.file.Scope.Lookup("conet") != nil || b.pass.Pkg.Scope().Lookup("conet") != nil {
			return nil
		}
		edit, ok := b.addImport(conetPath)
		if !ok {
			return nil
		}
		edits = append(edits, edit)
	}
	edits = append(edits, analysis.TextEdit{Pos: sel.X.Pos(), End: sel.X.End(), NewText: []byte(name)})
	return &analysis.SuggestedFix{Message: "Use " + name + "." + sel.Sel.Name, TextEdits: edits}
}

// addImport returns an edit that adds path to the file's first import
// declaration (a parenthesized one gets a line of its own).
func (b *blockingChecker) addImport(path string) (analysis.TextEdit, bool) {
	for _, d := range b.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if gd.Lparen.IsValid() {
			return analysis.TextEdit{Pos: gd.Rparen, End: gd.Rparen, NewText: []byte("\t" + strconv.Quote(path) + "\n")}, true
		}
		return analysis.TextEdit{Pos: gd.End(), End: gd.End(), NewText: []byte("\nimport " + strconv.Quote(path))}, true
	}
	return analysis.TextEdit{}, false
}

func (b *blockingChecker) replace(pos, end token.Pos, text, msg string) *analysis.SuggestedFix {
	return &analysis.SuggestedFix{Message: msg, TextEdits: []analysis.TextEdit{{Pos: pos, End: end, NewText: []byte(text)}}}
}

func (b *blockingChecker) report(pos, end token.Pos, what, instead string, fix *analysis.SuggestedFix) {
	if b.allowed[b.pass.Fset.Position(pos).Line] {
		return
	}
	if fix != nil && b.hasMarked && (b.marked || addsLines(fix)) {
		fix.Message += ", then run go generate (the file's generated code is stale until then)"
	}
	d := analysis.Diagnostic{
		Pos:      pos,
		End:      end,
		Category: Category,
		Message:  fmt.Sprintf("%s and freezes the coroutine's whole env: use %s (or mark the line %s)", what, instead, blockingDirective),
	}
	if fix != nil {
		d.SuggestedFixes = []analysis.SuggestedFix{*fix}
	}
	b.pass.Report(d)
}

func (b *blockingChecker) src(n ast.Node) string {
	var buf bytes.Buffer
	format.Node(&buf, b.pass.Fset, n)
	return buf.String()
}

func unparen(e ast.Expr) ast.Expr { return ast.Unparen(e) }

// addsLines reports whether a fix changes the number of lines of the file,
// moving the source positions that generated code points at.
func addsLines(fix *analysis.SuggestedFix) bool {
	for _, e := range fix.TextEdits {
		if strings.Contains(string(e.NewText), "\n") {
			return true
		}
	}
	return false
}

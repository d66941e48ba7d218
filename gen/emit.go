package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
)

// A File is one generated file.
type File struct {
	Path    string // where it goes: beside its source
	Source  string // the source file it is generated from
	Content []byte
}

// emitter renders the generated file of one source file.
type emitter struct {
	fset    *token.FileSet
	pkg     *types.Package
	file    *jen.File
	srcName string
	// locals names the types declared inside the function being emitted
	// (hoisted to the top of its Step with their own names).
	locals map[types.Object]string
	// stepAliases names the package-level types shadowed in the Step being
	// emitted (plan.pkgAliases).
	stepAliases map[types.Object]string
	aliasUsed   map[types.Object]bool
	// imports names the packages the generated file refers to, by path;
	// importNames holds those names (the namers of funcs see it, so that
	// names invented while rendering avoid them).
	imports     map[string]string
	importNames map[string]bool
	// durableLocals are the names the durable encoding methods of the
	// file give their parameters and locals (durableCodec.id): an import
	// chosen after them must not take one.
	durableLocals map[string]bool
	funcs         []*Func  // the marked functions of the file
	pkgNames      pkgNames // package-level names
	// cur is the source line the generated text being rendered maps to,
	// 0 if unknown (after code that spans generated lines). Rendering
	// runs in the order of the output, so that line and at can tell
	// whether a token needs a directive.
	cur int
}

// genPackages are the packages generated code refers to on its own, by
// path, with their names: the only packages the generated file may import
// that the source does not mention.
var genPackages = map[string]string{
	stacklessPath:  "stackless",
	cogenrtPath:    "cogenrt",
	"unicode/utf8": "utf8",
	"unsafe":       "unsafe",
}

// qual names sel in the package at path (its name is name), importing it.
// The import's name is decided here, from the package alone, so that the
// output does not depend on which files the package held when it was
// loaded (under go vet the generated file itself is one of them).
func (e *emitter) qualPath(path, name, sel string) *jen.Statement {
	if e.pkg != nil && path == e.pkg.Path() {
		return jen.Id(sel)
	}
	if _, ok := e.imports[path]; !ok {
		chosen := importName(name, e.pkgNames, e.importNames, e.durableLocals, e.funcs)
		e.imports[path] = chosen
		e.importNames[chosen] = true
		if chosen == name {
			e.file.ImportName(path, name)
		} else {
			e.file.ImportAlias(path, chosen)
		}
	}
	return jen.Qual(path, sel)
}

// varRef names a package-level variable, of this package or another.
func (e *emitter) varRef(v *types.Var) *jen.Statement {
	return e.qualPath(v.Pkg().Path(), v.Pkg().Name(), v.Name())
}

// gq names sel in one of genPackages.
func (e *emitter) gq(path, sel string) *jen.Statement {
	name, ok := genPackages[path]
	if !ok {
		panic("cogen: internal error: " + path + " is not in genPackages")
	}
	return e.qualPath(path, name, sel)
}

// restoreMarker is replaced after formatting by a //line directive that
// points back into the generated file itself.
const restoreMarker = "//line cogen-restore:1"

// Generate renders the generated files of a package from the Result of
// Analyzer: one <file>_cogen.go per source file with marked functions.
// Functions that have diagnostics are skipped; callers that must not write
// partial output check for diagnostics first.
func Generate(fset *token.FileSet, pkg *types.Package, res *Result) ([]File, error) {
	var order []*ast.File
	byFile := map[*ast.File][]*Func{}
	for _, f := range res.Funcs {
		if !f.OK {
			continue
		}
		if byFile[f.File] == nil {
			order = append(order, f.File)
		}
		byFile[f.File] = append(byFile[f.File], f)
	}
	sort.Slice(order, func(i, j int) bool {
		return fset.Position(order[i].Pos()).Filename < fset.Position(order[j].Pos()).Filename
	})
	var out []File
	for _, af := range order {
		src := fset.Position(af.Pos()).Filename
		content, err := generateFile(fset, pkg, af, src, byFile[af])
		if err != nil {
			return nil, err
		}
		out = append(out, File{Path: OutputName(src), Source: src, Content: content})
	}
	return out, nil
}

var (
	knownOS   = strings.Fields("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos")
	knownArch = strings.Fields("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm")
)

// OutputName returns the generated file for a source file: x.go gives
// x_cogen.go; suffixes that constrain the build stay last
// (x_linux_test.go gives x_cogen_linux_test.go).
func OutputName(src string) string {
	dir, base := filepath.Split(src)
	stem := strings.TrimSuffix(base, ".go")
	parts := strings.Split(stem, "_")
	cut := len(parts)
	if cut > 1 && parts[cut-1] == "test" {
		cut--
	}
	isOS := func(s string) bool { return contains(knownOS, s) }
	isArch := func(s string) bool { return contains(knownArch, s) }
	if cut > 1 && isArch(parts[cut-1]) {
		cut--
		if cut > 1 && isOS(parts[cut-1]) {
			cut--
		}
	} else if cut > 1 && isOS(parts[cut-1]) {
		cut--
	}
	name := strings.Join(parts[:cut], "_") + "_cogen"
	if cut < len(parts) {
		name += "_" + strings.Join(parts[cut:], "_")
	}
	return filepath.Join(dir, name+".go")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func generateFile(fset *token.FileSet, pkg *types.Package, af *ast.File, src string, funcs []*Func) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("cogen: internal error generating code for %s: %v", filepath.Base(src), r)
		}
	}()
	e := &emitter{fset: fset, pkg: pkg, srcName: filepath.Base(src), imports: map[string]string{}, importNames: map[string]bool{}, durableLocals: map[string]bool{}, funcs: funcs}
	for _, fn := range funcs {
		e.pkgNames = fn.lits.pkg
		fn.plan.names.imports = e.importNames
		for _, lf := range fn.lits.list {
			lf.plan.names.imports = e.importNames
		}
	}
	e.file = jen.NewFilePathName(pkg.Path(), pkg.Name())
	for _, cg := range af.Comments {
		if cg.Pos() >= af.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build ") {
				e.file.HeaderComment(c.Text)
			}
		}
	}
	e.file.HeaderComment("Code generated by cogen. DO NOT EDIT.")
	e.file.HeaderComment("Source: " + e.srcName)
	for _, fn := range funcs {
		e.function(fn)
		if fn.lits != nil {
			for _, lf := range fn.lits.list {
				e.function(lf)
			}
		}
	}
	var buf bytes.Buffer
	if err := e.file.Render(&buf); err != nil {
		e.file.NoFormat = true
		var raw bytes.Buffer
		_ = e.file.Render(&raw)
		return nil, fmt.Errorf("cogen: formatting the output for %s: %v\nunformatted source:\n%s", e.srcName, firstLine(err.Error()), numbered(raw.String()))
	}
	return restoreLines(buf.Bytes(), filepath.Base(OutputName(src))), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func numbered(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, line)
	}
	return b.String()
}

var markerRE = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(restoreMarker) + `$`)

// restoreLines replaces each marker with a //line directive naming the
// generated file and the line after the marker.
func restoreLines(src []byte, name string) []byte {
	lines := bytes.Split(src, []byte("\n"))
	for i, l := range lines {
		if markerRE.Match(l) {
			lines[i] = fmt.Appendf(nil, "//line %s:%d", name, i+2)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// line is a //line directive for a source position: the generated line
// after it maps to the position's line. Every statement, and every
// terminator of a state that evaluates source expressions, starts with one,
// because a directive holds until the next one in the text of the file,
// not in the order the states run.
func (e *emitter) line(pos token.Pos) jen.Code {
	if !pos.IsValid() {
		return nil
	}
	e.cur = e.fset.Position(pos).Line
	return jen.Comment(fmt.Sprintf("//line %s:%d", e.srcName, e.cur))
}

// at keeps the line of a token that gives an operation its position (the
// parenthesis of a call, the bracket of an index, a binary operator, ...):
// gc reports a call or a panic at the line of that token, and a multi-line
// source expression is rendered on one generated line. If the generated
// text at this point does not map to pos's line, at returns an inline
// /*line*/ directive to put before the token, else nil.
func (e *emitter) at(pos token.Pos) jen.Code {
	if !pos.IsValid() {
		return nil
	}
	l := e.fset.Position(pos).Line
	if l == e.cur {
		return nil
	}
	e.cur = l
	return jen.Comment(fmt.Sprintf("/*line %s:%d*/", e.srcName, l))
}

// lost records that the generated text has moved to another line that no
// directive maps (after a block, or glue code of several lines).
func (e *emitter) lost() { e.cur = 0 }

// typeParams returns the type parameter declarations and uses of a frame.
func (e *emitter) typeParams(fn *Func) (decl, use []jen.Code) {
	sig := fn.Obj.Type().(*types.Signature)
	tps := sig.TypeParams()
	if sig.Recv() != nil {
		tps = sig.RecvTypeParams()
	}
	if tps == nil {
		return nil, nil
	}
	for tp := range tps.TypeParams() {
		decl = append(decl, jen.Id(tp.Obj().Name()).Add(e.typ(tp.Constraint())))
		use = append(use, jen.Id(tp.Obj().Name()))
	}
	return decl, use
}

func generic(s *jen.Statement, args []jen.Code) *jen.Statement {
	if len(args) == 0 {
		return s
	}
	return s.Types(args...)
}

// fieldType is the declared type of a variable in the frame or in Step.
func (e *emitter) fieldType(v *variable) *jen.Statement {
	if v.kind == kChild {
		c := v.child
		var args []jen.Code
		for _, t := range c.typeArgs {
			args = append(args, e.typ(t))
		}
		return jen.Op("*").Add(generic(c.fn.qualified(c.fn.FrameName), args))
	}
	if v.boxed {
		return jen.Op("*").Add(e.typ(v.typ))
	}
	return e.typ(v.typ)
}

func (e *emitter) function(fn *Func) {
	p := fn.plan
	e.locals = map[types.Object]string{}
	for _, v := range p.vars {
		if _, ok := v.obj.(*types.TypeName); ok {
			e.locals[v.obj] = v.name
		}
	}
	name := fn.Decl.Name.Name
	if recv := fn.Obj.Type().(*types.Signature).Recv(); recv != nil {
		name = recvTypeName(recv.Type()) + "." + name
	}
	if fn.lit != nil {
		name = fmt.Sprintf("the function literal at %s:%d", e.srcName, e.fset.Position(fn.lit.node.Pos()).Line)
	}
	decl, use := e.typeParams(fn)
	frame := func() *jen.Statement { return generic(jen.Id(fn.FrameName), use) }
	recv := func() *jen.Statement { return jen.Id(p.recv).Op("*").Add(frame()) }

	fields := []jen.Code{e.gq(stacklessPath, "Base")}
	if p.hasDefer {
		fields = append(fields, e.gq(cogenrtPath, "Defers"))
	}
	for _, v := range p.vars {
		if v.field && v.shares == nil && !(v.kind == kParam && v.obj == nil) {
			fields = append(fields, jen.Id(v.name).Add(e.fieldType(v)))
		}
	}
	e.file.Commentf("%s is the stackless frame of %s: it holds the values of %s that live across a suspension.", fn.FrameName, name, name)
	e.file.Type().Id(fn.FrameName).Types(decl...).Struct(fields...)

	// Constructor.
	var params []jen.Code
	var inits []jen.Code
	ctorParams := p.params
	if p.recvVar != nil {
		ctorParams = append([]*variable{p.recvVar}, ctorParams...)
	}
	sig := fn.Obj.Type().(*types.Signature)
	for i, v := range ctorParams {
		pname := "_"
		if v.obj != nil {
			pname = v.name
			inits = append(inits, jen.Id(v.name).Op(":").Id(v.name))
		}
		t := e.fieldType(v) // a pointer for what a literal captures
		if sig.Variadic() && i == len(ctorParams)-1 {
			t = jen.Op("...").Add(e.typ(v.typ.(*types.Slice).Elem()))
		}
		params = append(params, jen.Id(pname).Add(t))
	}
	e.file.Commentf("%s returns a frame that runs %s when a task steps it: pass it to stackless.Spawn,", fn.CtorName, name)
	e.file.Comment("or let generated code call it from another frame.")
	e.file.Func().Id(fn.CtorName).Types(decl...).Params(params...).Op("*").Add(frame()).Block(
		jen.Return(jen.Op("&").Add(frame()).Values(inits...)),
	)

	// Results.
	if len(p.results) > 0 {
		var rtypes, vals []jen.Code
		r := &rctx{e: e, p: p}
		for _, v := range p.results {
			rtypes = append(rtypes, e.typ(v.typ))
			vals = append(vals, r.varExpr(v))
		}
		e.file.Commentf("Result returns the results of %s once the frame is done.", name)
		e.file.Func().Params(recv()).Id("Result").Params().Params(rtypes...).Block(jen.Return(vals...))
	}

	// Step.
	e.file.Commentf("Step runs %s from its resume point to its next suspension, call or return.", name)
	step := e.stepBody(fn)
	e.file.Func().Params(recv()).Id("Step").Params(jen.Id(p.task).Op("*").Qual(stacklessPath, "Task")).Qual(stacklessPath, "Status").Block(step...)

	// Unwind.
	if len(p.stops) > 0 {
		r := &rctx{e: e, p: p}
		pv := jen.Id(p.unwindParam)
		var body []jen.Code
		for i := len(p.stops) - 1; i >= 0; i-- {
			body = append(body, jen.Add(pv).Op("=").Add(r.varExpr(p.stops[i])).Dot("Unwind").Call(pv))
		}
		body = append(body, jen.Return(pv))
		e.file.Commentf("Unwind unwinds the iterators of %s's range-over-func loops, innermost first, with a panic that leaves the frame (cogenrt.Unwinder).", name)
		e.file.Func().Params(recv()).Id("Unwind").Params(jen.Add(pv).Any()).Any().Block(body...)
	}

	// Where.
	e.file.Commentf("Where returns the source position of %s's resume point (cogenrt.Locator).", name)
	e.file.Func().Params(recv()).Id("Where").Params().String().Block(e.whereBody(fn)...)

	if fn.Durable {
		e.durable(fn, name, step)
	}

	// Stale guard.
	if decl == nil && fn.lit == nil {
		var target *jen.Statement
		guard := fn.Obj.Type().(*types.Signature)
		if r := guard.Recv(); r != nil {
			ps := []*types.Var{types.NewParam(token.NoPos, nil, "", r.Type())}
			for v := range guard.Params().Variables() {
				ps = append(ps, v)
			}
			guard = types.NewSignatureType(nil, nil, nil, types.NewTuple(ps...), guard.Results(), guard.Variadic())
			rt := e.typ(r.Type())
			if _, ptr := r.Type().(*types.Pointer); ptr {
				rt = jen.Parens(rt)
			}
			target = rt.Dot(fn.Decl.Name.Name)
		} else {
			target = jen.Id(fn.Decl.Name.Name)
		}
		e.file.Commentf("A compile error here means the signature of %s changed: run cogen again.", name)
		e.file.Func().Id("_").Params().Block(jen.Var().Id("_").Func().Add(e.signature(guard)).Op("=").Add(target))
	}
}

// whereBody maps the frame's resume points to source positions: a state
// that starts with a waiting call to the call's line, the state after a
// child call to the call's line, anything else (entry, a finished frame)
// to the function's line.
func (e *emitter) whereBody(fn *Func) []jen.Code {
	p := fn.plan
	file := e.srcName
	if e.pkg != nil {
		file = e.pkg.Path() + "/" + e.srcName
	}
	at := func(pos token.Pos) string { return fmt.Sprintf("%s:%d", file, e.fset.Position(pos).Line) }
	pcs := map[string][]int{}
	var order []string
	add := func(where string, pc int) {
		if pcs[where] == nil {
			order = append(order, where)
		}
		pcs[where] = append(pcs[where], pc)
	}
	for _, b := range p.blocks {
		if b.suspend && len(b.nodes) > 0 {
			if sn, ok := b.nodes[0].(*suspendNode); ok && sn.pos.IsValid() {
				add(at(sn.pos), b.index)
			}
		}
		if ct, ok := b.term.(*callTerm); ok && ct.pos.IsValid() {
			add(at(ct.pos), ct.next.index)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return pcs[order[i]][0] < pcs[order[j]][0] })
	var cases []jen.Code
	for _, w := range order {
		var vals []jen.Code
		for _, pc := range pcs[w] {
			vals = append(vals, jen.Lit(pc))
		}
		cases = append(cases, jen.Case(vals...).Block(jen.Return(jen.Lit(w))))
	}
	pos := fn.Decl.Pos()
	if fn.lit != nil {
		pos = fn.lit.node.Pos()
	}
	if len(cases) == 0 {
		return []jen.Code{jen.Return(jen.Lit(at(pos)))}
	}
	return []jen.Code{
		jen.Switch(jen.Id(p.recv).Dot("PC")).Block(cases...),
		jen.Return(jen.Lit(at(pos))),
	}
}

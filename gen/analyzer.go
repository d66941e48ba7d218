package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cogen-go/cogen/gen/internal/handle"
	"golang.org/x/tools/go/analysis"
)

// Import paths of the two runtimes. The source of a marked function uses the
// stackful handle; the generated code runs on the stackless task.
const (
	stackfulPath  = "github.com/cogen-go/cogen/runtime/stackful"
	stacklessPath = "github.com/cogen-go/cogen/runtime/stackless"
	// cogenrtPath is the part of the runtime only generated code calls.
	cogenrtPath = stacklessPath + "/cogenrt"
)

// directivePrefix starts every cogen directive.
const directivePrefix = "//co:"

// waitingMethods are the suspension points on the coroutine handle: methods
// of *stackful.Co that *stackless.Task mirrors with identical signatures.
var waitingMethods = handle.WaitingMethods

// plainMethods are methods of the handle that both models have with the same
// signature and that never suspend.
var plainMethods = map[string]bool{"Close": true}

// Analyzer finds functions marked //co:stackless, reports misplaced or unknown
// directives and every construct the transformer cannot rewrite, and plans
// the rewrite of the others. Its result is a *Result.
var Analyzer = &analysis.Analyzer{
	Name:       "cogen",
	Doc:        "cogen: rewrite //co: functions into state machines\n\nReports misplaced or unknown //co: directives and the constructs of //co:stackless functions that cannot be rewritten into stackless frames, and generated files that are stale (run go generate). The manual is package gen's doc.",
	URL:        "https://pkg.go.dev/github.com/cogen-go/cogen/gen",
	Run:        run,
	ResultType: reflect.TypeFor[*Result](),
}

// Result is what Analyzer returns for a package: the marked functions, in
// source order, each with its lowered form when it has no diagnostics.
type Result struct {
	Funcs []*Func
}

// A Func is one //co:stackless function.
type Func struct {
	Decl      *ast.FuncDecl
	Obj       *types.Func
	File      *ast.File
	Co        *types.Var // the coroutine handle parameter
	FrameName string     // e.g. EchoFrame
	CtorName  string     // e.g. NewEchoFrame
	// Pkg is the package of a marked function of another package that the
	// package calls (see externalCallee); nil for the package's own.
	Pkg *types.Package
	// OK reports whether the function has no diagnostics; only then does it
	// have a plan and get generated.
	OK bool
	// Durable: marked //co:stackless durable; its frame can be snapshotted
	// (durable.go).
	// Of another package's function: its frame is durable (see
	// externalCallee).
	Durable bool
	// codecs are the codecs a durable function's frame may use (codecs.go).
	codecs codecView
	plan   *plan
	// lit is set for a function literal that suspends, rewritten as a frame
	// of its own; lits are those of a marked function (nested ones
	// included), in the order they were found.
	lit  *litInfo
	lits *litSet
	// versionKeys are what a durable function's fingerprint hashes
	// besides its code and layout (durablever.go).
	versionKeys []string
}

// litInfo describes a function literal that suspends.
type litInfo struct {
	node  *ast.FuncLit
	root  *Func // the marked function it is in
	ownCo bool  // the handle is its first parameter (else it captures it)
	// captures are the variables of the enclosing functions it refers to,
	// in order of first mention; its frame holds pointers to them.
	captures []*types.Var
}

// litSet is what a marked function and its literals share about the
// literals that suspend.
type litSet struct {
	list   []*Func
	byNode map[*ast.FuncLit]*Func
	byObj  map[types.Object]*Func // local variables holding one
	defs   map[ast.Node]bool      // the statements or specs defining those variables
	pkg    pkgNames               // the package-level names, the literals' frames included
	// imported are the names the package's files give their imports.
	imported map[string]token.Pos
}

func (f *Func) root() *Func {
	if f.lit != nil {
		return f.lit.root
	}
	return f
}

// Fields describes the frame fields the rewrite keeps, in struct order: the
// parameters and results, then the values live across a suspension.
func (f *Func) Fields() []string {
	if f.plan == nil {
		return nil
	}
	var names []string
	for _, v := range f.plan.fieldVars() {
		names = append(names, v.name)
	}
	return names
}

func run(pass *analysis.Pass) (any, error) {
	return runWith(pass, nil)
}

// runWith is run, recognising the marked functions of the packages of src
// by their directives (see externalCallee).
func runWith(pass *analysis.Pass, src srcMarks) (*Result, error) {
	res := &Result{}
	marked := map[*types.Func]*Func{}
	for _, file := range pass.Files {
		if ast.IsGenerated(file) {
			continue
		}
		docs := map[*ast.CommentGroup]*ast.FuncDecl{}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				docs[fd.Doc] = fd
			}
		}
		for _, cg := range file.Comments {
			for _, c := range cg.List {
				if !strings.HasPrefix(c.Text, directivePrefix) {
					continue
				}
				name, args := directive(c.Text)
				switch {
				case name == "blocking":
					// Marks a line for the blocking analyzer (gen/blocking).
				case name != "stackless":
					pass.Reportf(c.Pos(), "unknown directive %s%s (cogen knows //co:stackless)", directivePrefix, name)
				case args != "" && args != "durable":
					pass.Reportf(c.Pos(), "//co:stackless takes no argument but durable")
				case docs[cg] == nil:
					pass.Reportf(c.Pos(), "misplaced //co:stackless: it must be in the doc comment of a function")
				default:
					fd := docs[cg]
					obj, _ := pass.TypesInfo.Defs[fd.Name].(*types.Func)
					if obj == nil || marked[obj] != nil {
						continue
					}
					f := &Func{Decl: fd, Obj: obj, File: file, Durable: args == "durable"}
					marked[obj] = f
					res.Funcs = append(res.Funcs, f)
				}
			}
		}
	}
	sort.Slice(res.Funcs, func(i, j int) bool { return res.Funcs[i].Decl.Pos() < res.Funcs[j].Decl.Pos() })

	for _, f := range res.Funcs {
		f.OK = checkSignature(pass, f) && checkPredeclared(pass, f)
	}
	checkNames(pass, res.Funcs)
	names, imported := newPkgNames(pass, res.Funcs), importedNames(pass)
	codecs := findCodecs(pass)
	for _, f := range res.Funcs {
		if f.OK {
			f.lits = &litSet{byNode: map[*ast.FuncLit]*Func{}, byObj: map[types.Object]*Func{}, defs: map[ast.Node]bool{}, pkg: names, imported: imported}
			f.plan, f.OK = lowerFunc(pass, f, marked, src)
			// Lowering a literal may find more (nested) ones.
			for i := 0; i < len(f.lits.list) && f.OK; i++ {
				lf := f.lits.list[i]
				lf.plan, lf.OK = lowerFunc(pass, lf, marked, src)
				f.OK = lf.OK
			}
			if f.OK && f.Durable {
				f.codecs = codecView{set: codecs, test: isTestFile(pass.Fset, f.File)}
				f.OK = checkDurable(pass, f)
			}
		}
	}
	checkStale(pass, res)
	return res, nil
}

// directive splits the text of a //co: comment into the directive's name
// and its arguments, without a trailing // comment.
func directive(text string) (name, args string) {
	text = strings.TrimPrefix(text, directivePrefix)
	if i := strings.Index(text, "//"); i >= 0 {
		text = text[:i] // a trailing comment
	}
	name, args, _ = strings.Cut(text, " ")
	return strings.TrimSpace(name), strings.TrimSpace(args)
}

// checkStale reports generated files of the package that differ from what
// cogen would write now: under go vet, an edited source whose output was
// not regenerated. (cogen itself sets earlier output aside while loading,
// so it never sees one.)
func checkStale(pass *analysis.Pass, res *Result) {
	existing := map[string]*ast.File{}
	for _, f := range pass.Files {
		if len(f.Decls) > 0 && ast.IsGenerated(f) {
			existing[pass.Fset.Position(f.Package).Filename] = f
		}
	}
	if len(existing) == 0 {
		return
	}
	byFile := map[*ast.File][]*Func{}
	for _, f := range res.Funcs {
		byFile[f.File] = append(byFile[f.File], f)
	}
	for file, funcs := range byFile {
		for _, f := range funcs {
			if !f.OK {
				return
			}
		}
		src := pass.Fset.Position(file.Package).Filename
		out := OutputName(src)
		gf := existing[out]
		if gf == nil {
			continue
		}
		want, err := generateFile(pass.Fset, pass.Pkg, file, src, funcs)
		if err != nil {
			continue
		}
		got, err := pass.ReadFile(out)
		if err == nil && string(got) != string(want) {
			pass.Reportf(gf.Package, "%s is stale: run go generate (go tool cogen) again", filepath.Base(out))
		}
	}
}

// checkSignature validates the shape of a marked function and finds its
// handle parameter.
func checkSignature(pass *analysis.Pass, f *Func) bool {
	fd := f.Decl
	if fd.Body == nil {
		pass.Reportf(fd.Name.Pos(), "//co:stackless function %s has no body", fd.Name.Name)
		return false
	}
	sig := f.Obj.Type().(*types.Signature)
	if sig.Params().Len() == 0 || !isCoType(sig.Params().At(0).Type()) {
		pass.Reportf(fd.Name.Pos(), "//co:stackless function %s must take the coroutine handle *stackful.Co as its first parameter", fd.Name.Name)
		return false
	}
	if sig.Variadic() && sig.Params().Len() == 1 {
		pass.Reportf(fd.Name.Pos(), "the coroutine handle of %s cannot be variadic", fd.Name.Name)
		return false
	}
	f.Co = sig.Params().At(0)
	if recv := sig.Recv(); recv != nil {
		if recvTypeName(recv.Type()) == "" {
			pass.Reportf(fd.Name.Pos(), "cannot name the frame of method %s: unsupported receiver type", fd.Name.Name)
			return false
		}
	}
	return true
}

// checkNames assigns the generated names and reports collisions with
// package-level identifiers or with each other.
func checkNames(pass *analysis.Pass, funcs []*Func) {
	taken := map[string]*Func{}
	imported := importedNames(pass)
	for _, f := range funcs {
		if !f.OK {
			continue
		}
		f.FrameName, f.CtorName = frameNames(f.Obj)
		for _, name := range []string{f.FrameName, f.CtorName} {
			if other := taken[name]; other != nil {
				pass.Reportf(f.Decl.Name.Pos(), "generated name %s of %s collides with the one of %s", name, f.Decl.Name.Name, other.Decl.Name.Name)
				f.OK = false
				continue
			}
			taken[name] = f
			if obj := pass.Pkg.Scope().Lookup(name); obj != nil && !inGeneratedFile(pass, obj.Pos()) {
				pass.Reportf(f.Decl.Name.Pos(), "generated name %s of %s collides with %s declared at %s", name, f.Decl.Name.Name, name, pass.Fset.Position(obj.Pos()))
				f.OK = false
			} else if pos, ok := imported[name]; ok {
				pass.Reportf(f.Decl.Name.Pos(), "generated name %s of %s collides with the import named %s at %s", name, f.Decl.Name.Name, name, pass.Fset.Position(pos))
				f.OK = false
			}
		}
	}
}

// inGeneratedFile reports whether pos is in a generated file of the package
// (a previous cogen output declares the names we are about to write).
func inGeneratedFile(pass *analysis.Pass, pos token.Pos) bool {
	for _, file := range pass.Files {
		if file.FileStart <= pos && pos <= file.FileEnd {
			return ast.IsGenerated(file)
		}
	}
	return false
}

func isCoType(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Name() == "Co" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == stackfulPath
}

func recvTypeName(t types.Type) string {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// The naming rule (see "Names" in the package doc): every name the
// generated file introduces is chosen against every name it could capture
// or be captured by, so that every user name keeps its meaning.
//
//   - Package-level names of the generated file (frames, constructors) are
//     those of the public API for marked functions (a collision with a
//     declaration of the package is a diagnostic) and fresh ones for
//     literals (pkgNames.lit).
//   - Names of imports are chosen per generated file (emitter.qualPath):
//     the package's own name when it is free, else name1, name2, ...; a
//     name is free when it is not a keyword, a predeclared identifier, a
//     package-level name ([pkgNames]), an identifier of any function
//     rewritten in the file, or a name given to anything in their Steps.
//   - Names inside a Step (variables of the source, temporaries, the
//     receiver, labels) are chosen by a namer, one per function: a variable
//     keeps its name when no other one holds it and it is not predeclared,
//     package-level or a member of the frame; an invented name also avoids
//     every identifier of the function. Import names chosen later avoid
//     them all, and names invented while rendering avoid the imports.

// pkgNames are the package-level names of a package: those its source
// files declare (not earlier cogen output, so that the names are the same
// whether or not it was loaded) and those the generated files declare.
type pkgNames map[string]bool

// newPkgNames collects the package-level names of the package of pass and
// the frame and constructor names of its marked functions.
func newPkgNames(pass *analysis.Pass, funcs []*Func) pkgNames {
	names := pkgNames{}
	for _, name := range pass.Pkg.Scope().Names() {
		if !inGeneratedFile(pass, pass.Pkg.Scope().Lookup(name).Pos()) {
			names[name] = true
		}
	}
	for _, f := range funcs {
		if f.FrameName != "" {
			names[f.FrameName], names[f.CtorName] = true, true
		}
	}
	return names
}

// importedNames are the names the source files of the package give their
// imports, with the position of one: a package-level declaration cannot
// have one of them.
func importedNames(pass *analysis.Pass) map[string]token.Pos {
	names := map[string]token.Pos{}
	for _, f := range pass.Files {
		if ast.IsGenerated(f) {
			continue
		}
		for _, imp := range f.Imports {
			if pn := pass.TypesInfo.PkgNameOf(imp); pn != nil && pn.Name() != "_" && pn.Name() != "." {
				if _, ok := names[pn.Name()]; !ok {
					names[pn.Name()] = imp.Pos()
				}
			}
		}
	}
	return names
}

// lit returns fresh frame and constructor names for a function literal of
// the marked function whose frame is rootFrame: rootFunc<n>Frame and
// newRootFunc<n>Frame, n counting from first, avoiding the package-level
// names and the names of the source files' imports.
func (pn pkgNames) lit(rootFrame string, first int, imported map[string]token.Pos) (name, frame, ctor string) {
	taken := func(s string) bool {
		_, imp := imported[s]
		return pn[s] || imp
	}
	for n := first; ; n++ {
		name = fmt.Sprintf("%sFunc%d", lowerFirst(rootFrame[:len(rootFrame)-len("Frame")]), n)
		frame, ctor = name+"Frame", "new"+upperFirst(name)+"Frame"
		if !taken(frame) && !taken(ctor) && !pn[name] {
			pn[frame], pn[ctor] = true, true
			return name, frame, ctor
		}
	}
}

// frameMembers are the fields and methods of every frame (its own and
// those promoted from stackless.Base and cogenrt.Defers): no variable
// held in the frame may be named like one.
var frameMembers = []string{"PC", "Base", "Step", "Result", "base", "parent", "Defers", "Defer", "RunDefers", "defers", "Where", "Unwind"}

// namer allocates the names of the generated code for one function. Names
// of hoisted variables must not capture an identifier the function refers to
// (they are declared for the whole Step method), and invented names must
// not capture any identifier of the function at all.
type namer struct {
	taken   map[string]bool // allocated here
	pkg     pkgNames        // package-level names
	user    map[string]bool // every identifier of the function
	imports map[string]bool // names of the generated file's imports, once emitting
	types   map[string]bool // names of the types declared in the function
}

func newNamer(pkg pkgNames, user map[string]bool) *namer {
	return &namer{taken: map[string]bool{}, pkg: pkg, user: user}
}

// reserved reports whether name is predeclared, package-level, a frame
// member or an import of the generated file.
func (n *namer) reserved(name string) bool {
	return token.IsKeyword(name) || types.Universe.Lookup(name) != nil || n.pkg[name] || n.imports[name] || memberName(name)
}

func memberName(name string) bool {
	for _, m := range frameMembers {
		if m == name {
			return true
		}
	}
	return false
}

// captures reports whether name is an identifier of the function or was
// given to anything by the namer: an import name must be neither.
func (n *namer) captures(name string) bool { return n.user[name] || n.taken[name] }

// variable names a variable of the source: its own name when free.
func (n *namer) variable(name string) string {
	if name != "_" && name != "" && !n.taken[name] && !n.reserved(name) && !n.types[name] {
		n.taken[name] = true
		return name
	}
	if name == "_" || name == "" {
		name = "v"
	}
	return n.fresh(name)
}

// fresh invents a name from base that captures nothing.
func (n *namer) fresh(base string) string {
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s%d", base, i)
		}
		if !n.taken[name] && !n.reserved(name) && !n.user[name] {
			n.taken[name] = true
			return name
		}
	}
}

// importName chooses the name of an import of the generated file of funcs
// for a package named name: its own name if free, else name1, name2...
// (see the naming rule above). locals are the names the file's durable
// encoding methods have given their parameters and locals so far.
func importName(name string, pkg pkgNames, chosen, locals map[string]bool, funcs []*Func) string {
	free := func(s string) bool {
		if token.IsKeyword(s) || types.Universe.Lookup(s) != nil || pkg[s] || chosen[s] || locals[s] {
			return false
		}
		for _, fn := range funcs {
			if fn.plan.names.captures(s) {
				return false
			}
			if fn.lits != nil {
				for _, lf := range fn.lits.list {
					if lf.plan.names.captures(s) {
						return false
					}
				}
			}
		}
		return true
	}
	for i := 0; ; i++ {
		s := name
		if i > 0 {
			s = fmt.Sprintf("%s%d", name, i)
		}
		if free(s) {
			return s
		}
	}
}

package gen

import (
	"fmt"
	"go/ast"
	"go/types"
)

// namer allocates the names of the generated code for one function. Names
// of hoisted variables must not capture an identifier the function refers to
// (they are declared for the whole Step method), and invented names must
// not capture any identifier of the function at all.
type namer struct {
	taken    map[string]bool // allocated here
	reserved map[string]bool // package-level, imported and predeclared names
	user     map[string]bool // every identifier of the function
}

func newNamer(pkg *types.Package, file *ast.File, user map[string]bool, marked []*Func) *namer {
	n := &namer{taken: map[string]bool{}, reserved: map[string]bool{}, user: user}
	for _, name := range types.Universe.Names() {
		n.reserved[name] = true
	}
	for _, name := range pkg.Scope().Names() {
		n.reserved[name] = true
	}
	for _, imp := range file.Imports {
		if imp.Name != nil {
			n.reserved[imp.Name.Name] = true
		}
	}
	for _, name := range []string{"stackless", "stackful", "iter", "utf8", "loop", "time", "unix", "PC", "Base", "Step", "Result", "base", "parent", "Defers", "Defer", "RunDefers", "defers", "Where", "Unwind"} {
		n.reserved[name] = true
	}
	for _, f := range marked {
		n.reserved[f.FrameName] = true
		n.reserved[f.CtorName] = true
	}
	return n
}

// reserve records imported package names as they are found.
func (n *namer) reserve(name string) { n.reserved[name] = true }

// variable names a variable of the source: its own name when free.
func (n *namer) variable(name string) string {
	if name != "_" && name != "" && !n.taken[name] && !n.reserved[name] {
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
		if !n.taken[name] && !n.reserved[name] && !n.user[name] {
			n.taken[name] = true
			return name
		}
	}
}
